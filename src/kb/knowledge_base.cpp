// Loads checks/data/{gfx_targets,pci_ids,rocm_releases,rocm_libraries}.json
// (compiled in) and validates them once.
#include <algorithm>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>

#include "embedded_data.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/text.h"
#include "rocm_doctor/versions.h"

namespace rocm_doctor::kb {

namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& file, const std::string& message) {
  throw std::runtime_error("knowledge base " + file + ": " + message);
}

json parse_file(std::string_view text, const std::string& file) {
  auto parsed = json::parse(text, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) fail(file, "not a JSON object");
  const auto sources = parsed.value("_sources", json::array());
  if (!sources.is_array() || sources.empty()) fail(file, "no _sources");
  return parsed;
}

std::vector<std::string> strings(const json& value) {
  std::vector<std::string> out;
  if (value.is_array()) {
    for (const auto& item : value) {
      if (item.is_string()) out.push_back(item.get<std::string>());
    }
  }
  return out;
}

std::string text_of(const json& row, const char* key) {
  const auto it = row.find(key);
  return it != row.end() && it->is_string() ? it->get<std::string>() : std::string();
}

GfxTarget parse_target(const json& row) {
  GfxTarget target;
  target.gfx = text_of(row, "gfx");
  target.family = text_of(row, "family");
  target.isa_family = text_of(row, "isa_family");
  if (const auto override_value = text_of(row, "override"); !override_value.empty()) {
    target.version = parse_override_value(override_value);
    if (!target.version) fail("gfx_targets.json", target.gfx + ": bad override " + override_value);
  }
  target.apu = row.value("apu", false);
  target.products = strings(row.value("products", json::array()));
  target.notes = text_of(row, "notes");
  target.sources = strings(row.value("sources", json::array()));
  if (row.contains("workaround")) {
    const auto& raw = row["workaround"];
    target.workaround = Workaround{text_of(raw, "override"), text_of(raw, "runs_as"), text_of(raw, "reliability"),
                                   text_of(raw, "note"), strings(raw.value("sources", json::array()))};
  }
  if (row.contains("support_history")) {
    const auto& raw = row["support_history"];
    target.history = SupportHistory{text_of(raw, "text"), text_of(raw, "last_release"),
                                    strings(raw.value("sources", json::array()))};
  }
  return target;
}

}  // namespace

// The table types are not file-local: KnowledgeBase::Tables (kb.h) holds them, and a
// member of internal-linkage type in a class of external linkage is a warning
// (-Wsubobject-linkage) wherever this file is not the main file, as in a unity build.

// A table parsed on first use; call_once makes concurrent first uses safe
// and lets a throwing parse be retried (and throw again) later.
template <typename T>
class ParsedOnce {
 public:
  template <typename Parse>
  const T& get(Parse parse) const {
    std::call_once(once_, [&] { value_ = parse(); });
    return *value_;
  }

 private:
  mutable std::once_flag once_;
  mutable std::optional<T> value_;
};

template <typename Row>
struct Table {
  std::vector<Row> rows;
  std::vector<std::string> sources;  // the file's _sources
};

struct ReleaseTable : Table<Release> {
  PerDeviceOverride per_device_override;
};

namespace {

// Parses one file and fills its rows with `load`; any error names the file.
template <typename T, typename Load>
T load_table(std::string_view text, const std::string& file_name, Load load) {
  const auto file = parse_file(text, file_name);
  T table;
  try {
    load(table, file);
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error("knowledge base " + file_name + ": malformed table: " + error.what());
  }
  table.sources = strings(file["_sources"]);
  return table;
}

void load_targets(Table<GfxTarget>& table, const json& file) {
  std::set<std::string> seen;
  for (const auto& row : file.at("targets")) {
    auto target = parse_target(row);
    if (target.gfx.empty() || target.isa_family.empty()) fail("gfx_targets.json", "row without gfx/isa_family");
    if (target.sources.empty()) fail("gfx_targets.json", target.gfx + ": no sources");
    if (!seen.insert(target.gfx).second) fail("gfx_targets.json", "duplicate " + target.gfx);
    if (target.version && gfx_name(*target.version) != target.gfx) {
      fail("gfx_targets.json", target.gfx + ": override string does not spell this target");
    }
    table.rows.push_back(std::move(target));
  }
}

void load_pci(Table<PciDevice>& table, const json& file) {
  std::set<std::pair<std::uint32_t, std::int64_t>> seen;
  for (const auto& row : file.at("devices")) {
    PciDevice device;
    const auto id = parse_uint(text_of(row, "device"), 16);
    if (!id) fail("pci_ids.json", "bad device id " + text_of(row, "device"));
    device.device = static_cast<std::uint32_t>(*id);
    if (row.contains("revision") && row["revision"].is_string()) {
      const auto revision = parse_uint(row["revision"].get<std::string>(), 16);
      if (!revision) fail("pci_ids.json", "bad revision for " + text_of(row, "device"));
      device.revision = static_cast<std::uint32_t>(*revision);
    }
    device.name = text_of(row, "name");
    device.codename = text_of(row, "codename");
    device.gfx = text_of(row, "gfx");
    if (row.contains("xcds")) {
      if (!row["xcds"].is_number_unsigned() || row["xcds"].get<unsigned>() == 0) {
        fail("pci_ids.json", text_of(row, "device") + ": 'xcds' must be a positive integer");
      }
      device.xcds = row["xcds"].get<unsigned>();
    }
    if (row.contains("unified_memory")) {
      if (!row["unified_memory"].is_boolean())
        fail("pci_ids.json", text_of(row, "device") + ": 'unified_memory' must be true or false");
      device.unified_memory = row["unified_memory"].get<bool>();
    }
    if (row.contains("virtual_function")) {
      if (!row["virtual_function"].is_boolean())
        fail("pci_ids.json", text_of(row, "device") + ": virtual_function is not a boolean");
      device.virtual_function = row["virtual_function"].get<bool>();
    }
    device.sources = strings(row.value("sources", json::array()));
    if (device.sources.empty()) fail("pci_ids.json", text_of(row, "device") + ": no sources");
    if (!seen.insert({device.device, device.revision ? static_cast<std::int64_t>(*device.revision) : -1}).second) {
      fail("pci_ids.json", "duplicate " + text_of(row, "device"));
    }
    table.rows.push_back(std::move(device));
  }
}

void load_releases(ReleaseTable& table, const json& file) {
  std::set<std::string> seen;
  for (const auto& row : file.at("releases")) {
    Release release;
    release.release = text_of(row, "release");
    release.patch_releases = strings(row.value("patch_releases", json::array()));
    for (const auto& target : row.value("gfx_targets", json::array())) {
      release.targets.push_back({text_of(target, "gfx"), text_of(target, "since")});
    }
    for (const auto& os : row.value("os", json::array())) {
      release.os.push_back({text_of(os, "name"), text_of(os, "version"), text_of(os, "kernel")});
    }
    release.notes = text_of(row, "notes");
    release.sources = strings(row.value("sources", json::array()));
    if (release.sources.empty()) fail("rocm_releases.json", release.release + ": no sources");
    if (!seen.insert(release.release).second) fail("rocm_releases.json", "duplicate " + release.release);
    if (!table.rows.empty() && !version_less(table.rows.back().release, release.release)) {
      fail("rocm_releases.json", "releases not oldest first at " + release.release);
    }
    table.rows.push_back(std::move(release));
  }
  if (table.rows.empty()) fail("rocm_releases.json", "no releases");
  const auto& per_device = file.value("per_device_override", json::object());
  table.per_device_override = {text_of(per_device, "since"), per_device.value("inferred", true),
                               text_of(per_device, "note")};
}

void load_libraries(Table<MathLibrary>& table, const json& file) {
  std::set<std::string> seen;
  for (const auto& row : file.at("libraries")) {
    MathLibrary library{text_of(row, "name"), text_of(row, "soname"), std::nullopt};
    if (row.contains("kernels")) {
      const auto& raw = row["kernels"];
      library.kernels =
          KernelLayout{text_of(raw, "base"), strings(raw.value("dirs", json::array())), text_of(raw, "match"),
                       text_of(raw, "finding"), text_of(raw, "family_absent_severity")};
    }
    if (library.name.empty() || library.soname.empty()) fail("rocm_libraries.json", "row without name/soname");
    if (!seen.insert(library.name).second) fail("rocm_libraries.json", "duplicate " + library.name);
    table.rows.push_back(std::move(library));
  }
}

// Every gfx name a table mentions must be a row of gfx_targets.json.
void check_references(const KnowledgeBase& kb) {
  for (const auto& target : kb.targets()) {
    if (target.workaround && kb.target(target.workaround->runs_as) == nullptr) {
      fail("gfx_targets.json", target.gfx + ": workaround runs as unknown " + target.workaround->runs_as);
    }
  }
  for (const auto& device : kb.pci_devices()) {
    if (!device.gfx.empty() && kb.target(device.gfx) == nullptr) {
      fail("pci_ids.json", device.name + ": unknown gfx " + device.gfx);
    }
  }
  for (const auto& release : kb.releases()) {
    for (const auto& target : release.targets) {
      if (kb.target(target.gfx) == nullptr) fail("rocm_releases.json", release.release + ": unknown gfx " + target.gfx);
    }
  }
}

}  // namespace

bool Release::lists(std::string_view gfx, std::string_view version) const {
  return std::any_of(targets.begin(), targets.end(), [&](const ReleaseTarget& target) {
    return target.gfx == gfx && (target.since.empty() || version.empty() || !version_less(version, target.since));
  });
}

std::vector<std::string> Release::target_names(std::string_view version) const {
  std::vector<std::string> names;
  for (const auto& target : targets) {
    if (lists(target.gfx, version)) names.push_back(target.gfx);
  }
  return names;
}

struct KnowledgeBase::Tables {
  TableTexts texts;
  ParsedOnce<Table<GfxTarget>> targets;
  ParsedOnce<Table<PciDevice>> pci;
  ParsedOnce<ReleaseTable> releases;
  ParsedOnce<Table<MathLibrary>> libraries;

  const Table<GfxTarget>& target_table() const {
    return targets.get(
        [&] { return load_table<Table<GfxTarget>>(texts.gfx_targets, "gfx_targets.json", load_targets); });
  }
  const Table<PciDevice>& pci_table() const {
    return pci.get([&] { return load_table<Table<PciDevice>>(texts.pci_ids, "pci_ids.json", load_pci); });
  }
  const ReleaseTable& release_table() const {
    return releases.get([&] { return load_table<ReleaseTable>(texts.releases, "rocm_releases.json", load_releases); });
  }
  const Table<MathLibrary>& library_table() const {
    return libraries.get(
        [&] { return load_table<Table<MathLibrary>>(texts.libraries, "rocm_libraries.json", load_libraries); });
  }
};

KnowledgeBase::KnowledgeBase(TableTexts texts) : tables_(std::make_unique<Tables>()) {
  tables_->texts = texts;
}

KnowledgeBase::~KnowledgeBase() = default;

const std::vector<GfxTarget>& KnowledgeBase::targets() const {
  return tables_->target_table().rows;
}

const std::vector<PciDevice>& KnowledgeBase::pci_devices() const {
  return tables_->pci_table().rows;
}

const std::vector<Release>& KnowledgeBase::releases() const {
  return tables_->release_table().rows;
}

const std::vector<MathLibrary>& KnowledgeBase::libraries() const {
  return tables_->library_table().rows;
}

const PerDeviceOverride& KnowledgeBase::per_device_override() const {
  return tables_->release_table().per_device_override;
}

std::vector<std::string> KnowledgeBase::sources() const {
  std::vector<std::string> all;
  for (const auto* list : {&tables_->target_table().sources, &tables_->pci_table().sources,
                           &tables_->release_table().sources, &tables_->library_table().sources}) {
    all.insert(all.end(), list->begin(), list->end());
  }
  return all;
}

const GfxTarget* KnowledgeBase::target(std::string_view gfx) const {
  const auto& rows = targets();
  const auto it = std::find_if(rows.begin(), rows.end(), [&](const GfxTarget& t) { return t.gfx == gfx; });
  return it == rows.end() ? nullptr : &*it;
}

const PciDevice* KnowledgeBase::pci_device(std::uint32_t device, std::optional<std::uint32_t> revision) const {
  const PciDevice* any_revision = nullptr;
  const PciDevice* first = nullptr;
  for (const auto& row : pci_devices()) {
    if (row.device != device) continue;
    if (revision && row.revision == revision) return &row;
    if (!row.revision && any_revision == nullptr) any_revision = &row;
    if (first == nullptr) first = &row;
  }
  return any_revision != nullptr ? any_revision : first;
}

const Release* KnowledgeBase::release(std::string_view version) const {
  const auto numbers = version_numbers(version);
  if (numbers.size() < 2) return nullptr;
  for (const auto& row : releases()) {
    const auto own = version_numbers(row.release);
    if (own.size() >= 2 && own[0] == numbers[0] && own[1] == numbers[1]) return &row;
  }
  return nullptr;
}

const Release* KnowledgeBase::last_release_listing(std::string_view gfx) const {
  const auto& rows = releases();
  for (auto it = rows.rbegin(); it != rows.rend(); ++it) {
    if (it->lists(gfx)) return &*it;
  }
  return nullptr;
}

bool KnowledgeBase::has_per_device_override(std::string_view version) const {
  const auto& since = per_device_override().since;
  return !since.empty() && !version.empty() && !version_less(version, since);
}

std::vector<int> version_numbers(std::string_view version) {
  const auto dash = version.find_first_of("-~+ ");
  if (dash != std::string_view::npos) version = version.substr(0, dash);
  std::vector<int> numbers;
  for (const auto part : split(version, '.')) {
    const auto value = parse_uint(part);
    if (!value) return {};
    numbers.push_back(static_cast<int>(*value));
  }
  return numbers;
}

bool version_less(std::string_view a, std::string_view b) {
  const auto numbers = [](std::string_view text) {
    const auto parts = version_numbers(text);
    return std::vector<std::uint64_t>(parts.begin(), parts.end());
  };
  return versions::compare_release(numbers(a), numbers(b)) < 0;
}

std::unique_ptr<KnowledgeBase> parse_knowledge_base(TableTexts texts) {
  auto kb = std::make_unique<KnowledgeBase>(texts);
  (void)kb->sources();  // parses every table
  check_references(*kb);
  return kb;
}

const KnowledgeBase& knowledge_base() {
  static const KnowledgeBase kb(TableTexts{embedded::data_gfx_targets(), embedded::data_pci_ids(),
                                           embedded::data_rocm_releases(), embedded::data_rocm_libraries()});
  return kb;
}

}  // namespace rocm_doctor::kb

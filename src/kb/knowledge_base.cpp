// Loads checks/data/{gfx_targets,pci_ids,rocm_releases,rocm_libraries}.json
// (compiled in) and validates them once.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "rocm_doctor/kb.h"
#include "rocm_doctor/text.h"
#include "rocm_doctor/versions.h"

namespace rocm_doctor::embedded {
std::string_view data_gfx_targets();
std::string_view data_pci_ids();
std::string_view data_rocm_releases();
std::string_view data_rocm_libraries();
}  // namespace rocm_doctor::embedded

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

void load_targets(KnowledgeBase& kb, const json& file) {
  std::set<std::string> seen;
  for (const auto& row : file.at("targets")) {
    auto target = parse_target(row);
    if (target.gfx.empty() || target.isa_family.empty()) fail("gfx_targets.json", "row without gfx/isa_family");
    if (target.sources.empty()) fail("gfx_targets.json", target.gfx + ": no sources");
    if (!seen.insert(target.gfx).second) fail("gfx_targets.json", "duplicate " + target.gfx);
    if (target.version && gfx_name(*target.version) != target.gfx) {
      fail("gfx_targets.json", target.gfx + ": override string does not spell this target");
    }
    kb.targets.push_back(std::move(target));
  }
}

void load_pci(KnowledgeBase& kb, const json& file) {
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
    device.sources = strings(row.value("sources", json::array()));
    if (device.sources.empty()) fail("pci_ids.json", text_of(row, "device") + ": no sources");
    if (!device.gfx.empty() && kb.target(device.gfx) == nullptr) {
      fail("pci_ids.json", text_of(row, "device") + ": unknown gfx " + device.gfx);
    }
    if (!seen.insert({device.device, device.revision ? static_cast<std::int64_t>(*device.revision) : -1}).second) {
      fail("pci_ids.json", "duplicate " + text_of(row, "device"));
    }
    kb.pci_devices.push_back(std::move(device));
  }
}

void load_releases(KnowledgeBase& kb, const json& file) {
  std::set<std::string> seen;
  for (const auto& row : file.at("releases")) {
    Release release;
    release.release = text_of(row, "release");
    release.patch_releases = strings(row.value("patch_releases", json::array()));
    for (const auto& target : row.value("gfx_targets", json::array())) {
      release.targets.push_back({text_of(target, "gfx"), text_of(target, "since")});
      if (kb.target(release.targets.back().gfx) == nullptr) {
        fail("rocm_releases.json", release.release + ": unknown gfx " + release.targets.back().gfx);
      }
    }
    for (const auto& os : row.value("os", json::array())) {
      release.os.push_back({text_of(os, "name"), text_of(os, "version"), text_of(os, "kernel")});
    }
    release.notes = text_of(row, "notes");
    release.sources = strings(row.value("sources", json::array()));
    if (release.sources.empty()) fail("rocm_releases.json", release.release + ": no sources");
    if (!seen.insert(release.release).second) fail("rocm_releases.json", "duplicate " + release.release);
    if (!kb.releases.empty() && !version_less(kb.releases.back().release, release.release)) {
      fail("rocm_releases.json", "releases not oldest first at " + release.release);
    }
    kb.releases.push_back(std::move(release));
  }
  if (kb.releases.empty()) fail("rocm_releases.json", "no releases");
  const auto& per_device = file.value("per_device_override", json::object());
  kb.per_device_override = {text_of(per_device, "since"), per_device.value("inferred", true),
                            text_of(per_device, "note")};
}

void load_libraries(KnowledgeBase& kb, const json& file) {
  std::set<std::string> seen;
  for (const auto& row : file.at("libraries")) {
    MathLibrary library{text_of(row, "name"), text_of(row, "soname"), std::nullopt};
    if (row.contains("kernels")) {
      const auto& raw = row["kernels"];
      library.kernels = KernelLayout{text_of(raw, "base"), strings(raw.value("dirs", json::array())),
                                     text_of(raw, "match"), text_of(raw, "finding"),
                                     text_of(raw, "family_absent_severity")};
    }
    if (library.name.empty() || library.soname.empty()) fail("rocm_libraries.json", "row without name/soname");
    if (!seen.insert(library.name).second) fail("rocm_libraries.json", "duplicate " + library.name);
    kb.libraries.push_back(std::move(library));
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

const GfxTarget* KnowledgeBase::target(std::string_view gfx) const {
  const auto it = std::find_if(targets.begin(), targets.end(), [&](const GfxTarget& t) { return t.gfx == gfx; });
  return it == targets.end() ? nullptr : &*it;
}

const PciDevice* KnowledgeBase::pci_device(std::uint32_t device, std::optional<std::uint32_t> revision) const {
  const PciDevice* any_revision = nullptr;
  const PciDevice* first = nullptr;
  for (const auto& row : pci_devices) {
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
  for (const auto& row : releases) {
    const auto own = version_numbers(row.release);
    if (own.size() >= 2 && own[0] == numbers[0] && own[1] == numbers[1]) return &row;
  }
  return nullptr;
}

const Release* KnowledgeBase::last_release_listing(std::string_view gfx) const {
  for (auto it = releases.rbegin(); it != releases.rend(); ++it) {
    if (it->lists(gfx)) return &*it;
  }
  return nullptr;
}

bool KnowledgeBase::has_per_device_override(std::string_view version) const {
  return !per_device_override.since.empty() && !version.empty() && !version_less(version, per_device_override.since);
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

KnowledgeBase parse_knowledge_base(std::string_view gfx_targets_json, std::string_view pci_ids_json,
                                   std::string_view releases_json, std::string_view libraries_json) {
  KnowledgeBase kb;
  const auto targets = parse_file(gfx_targets_json, "gfx_targets.json");
  const auto pci = parse_file(pci_ids_json, "pci_ids.json");
  const auto releases = parse_file(releases_json, "rocm_releases.json");
  const auto libraries = parse_file(libraries_json, "rocm_libraries.json");
  try {
    load_targets(kb, targets);
    for (const auto& target : kb.targets) {
      if (target.workaround && kb.target(target.workaround->runs_as) == nullptr) {
        fail("gfx_targets.json", target.gfx + ": workaround runs as unknown " + target.workaround->runs_as);
      }
    }
    load_pci(kb, pci);
    load_releases(kb, releases);
    load_libraries(kb, libraries);
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error(std::string("knowledge base: malformed table: ") + error.what());
  }
  for (const auto* file : {&targets, &pci, &releases, &libraries}) {
    for (const auto& source : strings((*file)["_sources"])) kb.sources.push_back(source);
  }
  return kb;
}

const KnowledgeBase& knowledge_base() {
  static const KnowledgeBase kb =
      parse_knowledge_base(embedded::data_gfx_targets(), embedded::data_pci_ids(), embedded::data_rocm_releases(),
                           embedded::data_rocm_libraries());
  return kb;
}

}  // namespace rocm_doctor::kb

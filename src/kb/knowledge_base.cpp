// The knowledge base (kb.h) over checks/data/{gfx_targets,pci_ids,rocm_releases,rocm_libraries}.json:
// each table read by its one typed loader (kb_tables.h) on first use, references between them
// checked by parse_knowledge_base.
#include <algorithm>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "kb_tables.h"
#include "rocm_doctor/knowledge.h"
#include "rocm_doctor/text.h"
#include "rocm_doctor/versions.h"

namespace rocm_doctor::kb {

// One table of a KnowledgeBase, read on first use. Its text is the table's current one (the
// built-in or installed overlay text) for knowledge_base(): then it is the shared loader's
// result, parsed once for every reader; any other text (a test's, install()'s merged overlays
// before they are installed) is parsed here. Not file-local: KnowledgeBase::Tables holds it.
template <typename T, data_table::LoadResult<T> (*Read)(data_table::TableReader&)>
class KbTableSlot {
 public:
  KbTableSlot(std::string_view file, std::string_view text) : file_(file), text_(text) {}

  // The table; throws std::runtime_error naming the file and key on each use when it is broken.
  const T& get() const {
    std::call_once(once_, [&] { result_ = &resolve(); });
    if (!*result_) throw std::runtime_error("knowledge base " + result_->error());
    return **result_;
  }

 private:
  const data_table::LoadResult<T>& resolve() const {
    if (text_.data() == knowledge::table_text(file_).data()) return data_table::load<T, Read>(file_);
    own_ = read_kb_table_text<T, Read>(file_, text_);
    return *own_;
  }

  std::string_view file_;
  std::string_view text_;
  mutable std::once_flag once_;
  mutable const data_table::LoadResult<T>* result_ = nullptr;
  mutable std::optional<data_table::LoadResult<T>> own_;
};

namespace {

[[noreturn]] void fail_kb_reference(std::string_view file, std::string_view key, const std::string& message) {
  throw std::runtime_error("knowledge base " + std::string(file) + ": " + std::string(key) + ": " + message);
}

// Every gfx name a table mentions must be a row of gfx_targets.json.
void check_references(const KnowledgeBase& kb) {
  for (const auto& target : kb.targets()) {
    if (target.workaround && kb.target(target.workaround->runs_as) == nullptr) {
      fail_kb_reference(kGfxTargetsFile, "targets",
                        target.gfx + ": workaround runs as unknown " + target.workaround->runs_as);
    }
  }
  for (const auto& device : kb.pci_devices()) {
    if (!device.gfx.empty() && kb.target(device.gfx) == nullptr) {
      fail_kb_reference(kPciIdsFile, "devices", device.name + ": unknown gfx " + device.gfx);
    }
  }
  for (const auto& release : kb.releases()) {
    for (const auto& target : release.targets) {
      if (kb.target(target.gfx) == nullptr)
        fail_kb_reference(kRocmReleasesFile, "releases", release.release + ": unknown gfx " + target.gfx);
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
  KbTableSlot<GfxTargetTable, &read_gfx_targets_table> targets;
  KbTableSlot<PciTable, &read_pci_ids_table> pci;
  KbTableSlot<ReleaseTable, &read_rocm_releases_table> releases;
  KbTableSlot<LibraryTable, &read_rocm_libraries_table> libraries;

  explicit Tables(const TableTexts& texts)
      : targets(kGfxTargetsFile, texts.gfx_targets),
        pci(kPciIdsFile, texts.pci_ids),
        releases(kRocmReleasesFile, texts.releases),
        libraries(kRocmLibrariesFile, texts.libraries) {}

  const GfxTargetTable& target_table() const { return targets.get(); }
  const PciTable& pci_table() const { return pci.get(); }
  const ReleaseTable& release_table() const { return releases.get(); }
  const LibraryTable& library_table() const { return libraries.get(); }
};

KnowledgeBase::KnowledgeBase(TableTexts texts) : tables_(std::make_unique<Tables>(texts)) {}

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
  // The texts as they are at first use (installed overlays included, install() runs first).
  static const KnowledgeBase kb(TableTexts{knowledge::table_text(kGfxTargetsFile), knowledge::table_text(kPciIdsFile),
                                           knowledge::table_text(kRocmReleasesFile),
                                           knowledge::table_text(kRocmLibrariesFile)});
  return kb;
}

}  // namespace rocm_doctor::kb

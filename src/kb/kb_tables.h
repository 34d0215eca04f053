// The knowledge base's four tables (checks/data/{gfx_targets,pci_ids,rocm_releases,rocm_libraries}.json),
// each read by one typed loader (rocm_doctor/data_table.h): parsed once per table text, every
// top-level key recorded for DataTables.EveryTopLevelKeyIsRead, errors "FILE: KEY: what".
// KnowledgeBase (kb.h) and install()'s check of merged overlays (knowledge.h) read them here only.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/data_table.h"
#include "rocm_doctor/kb.h"

namespace rocm_doctor::kb {

inline constexpr std::string_view kGfxTargetsFile = "gfx_targets.json";
inline constexpr std::string_view kPciIdsFile = "pci_ids.json";
inline constexpr std::string_view kRocmReleasesFile = "rocm_releases.json";
inline constexpr std::string_view kRocmLibrariesFile = "rocm_libraries.json";

// The table types are not file-local: KnowledgeBase::Tables (knowledge_base.cpp) holds them,
// and a member of internal-linkage type in a class of external linkage is a warning
// (-Wsubobject-linkage) wherever the file is not the main file, as in a unity build.
template <typename Row>
struct Table {
  std::vector<Row> rows;
  std::vector<std::string> sources;  // the file's _sources
};

struct GfxTargetTable : Table<GfxTarget> {};
// Its "vendor" key must be kAmdPciVendor (kb.h): every row is an AMD device.
struct PciTable : Table<PciDevice> {};
struct ReleaseTable : Table<Release> {
  PerDeviceOverride per_device_override;
};
struct LibraryTable : Table<MathLibrary> {};

// The loaders: each reads one table's keys and checks its rows (a table's own rules; the
// references between tables are parse_knowledge_base's).
data_table::LoadResult<GfxTargetTable> read_gfx_targets_table(data_table::TableReader& reader);
data_table::LoadResult<PciTable> read_pci_ids_table(data_table::TableReader& reader);
data_table::LoadResult<ReleaseTable> read_rocm_releases_table(data_table::TableReader& reader);
data_table::LoadResult<LibraryTable> read_rocm_libraries_table(data_table::TableReader& reader);

// Table `file` parsed from `text` now and read by `Read`: for a text that is not the table's
// current one (a test's tables, or install()'s merged overlays before they are installed);
// the current text goes through data_table::load, parsed once for every reader.
template <typename T, data_table::LoadResult<T> (*Read)(data_table::TableReader&)>
data_table::LoadResult<T> read_kb_table_text(std::string_view file, std::string_view text) {
  auto parsed = data_table::parse_table_text(file, text);
  if (!parsed) return tl::unexpected(parsed.error());
  data_table::TableReader reader(file, *parsed);
  return Read(reader);
}

}  // namespace rocm_doctor::kb

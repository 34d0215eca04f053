// The typed loaders of the knowledge base's four tables (kb_tables.h). A row's problem is an
// error value naming the row; the table reader prefixes it with "FILE: KEY: ". A value of the
// wrong JSON type deep in a row (nlohmann's get<> throws) becomes the error by read_catching.
#include "kb_tables.h"

#include <fmt/format.h>

#include <set>
#include <utility>

#include "rocm_doctor/text.h"

namespace rocm_doctor::kb {

namespace {

using data_table::LoadResult;
using data_table::TableReader;
using data_table::text_field;
using nlohmann::json;

template <typename T>
using RowResult = tl::expected<T, std::string>;

[[noreturn]] void throw_kb_table_error(const TableReader& reader, std::string_view key, std::string_view what) {
  throw std::runtime_error(reader.error(key, what));
}

// A row's list of strings: anything but a string in it, or a missing list, is left out.
std::vector<std::string> kb_string_list(const json& row, const char* field) {
  std::vector<std::string> out;
  const auto it = row.find(field);
  if (it == row.end() || !it->is_array()) return out;
  for (const auto& item : *it) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

// The file's _sources: every table names where its facts come from.
std::vector<std::string> kb_table_sources(TableReader& reader) {
  auto sources = reader.strings("_sources");
  if (!sources) throw std::runtime_error(sources.error());
  if (sources->empty()) throw_kb_table_error(reader, "_sources", "no sources");
  return std::move(*sources);
}

// The rows of a required array key.
const json& kb_table_rows(TableReader& reader, std::string_view key) {
  auto rows = reader.at(key);
  if (!rows) throw std::runtime_error(rows.error());
  if (!rows->get().is_array()) throw_kb_table_error(reader, key, "must be a list");
  return rows->get();
}

RowResult<GfxTarget> read_gfx_target_row(const json& row) {
  GfxTarget target;
  target.gfx = text_field(row, "gfx");
  target.family = text_field(row, "family");
  target.isa_family = text_field(row, "isa_family");
  if (target.gfx.empty() || target.isa_family.empty()) return tl::unexpected(std::string("row without gfx/isa_family"));
  if (const auto override_value = text_field(row, "override"); !override_value.empty()) {
    target.version = parse_override_value(override_value);
    if (!target.version) return tl::unexpected(target.gfx + ": bad override " + override_value);
    if (gfx_name(*target.version) != target.gfx) {
      return tl::unexpected(target.gfx + ": override string does not spell this target");
    }
  }
  target.apu = row.value("apu", false);
  target.products = kb_string_list(row, "products");
  target.notes = text_field(row, "notes");
  target.sources = kb_string_list(row, "sources");
  if (target.sources.empty()) return tl::unexpected(target.gfx + ": no sources");
  if (row.contains("workaround")) {
    const auto& raw = row.at("workaround");
    target.workaround =
        Workaround{text_field(raw, "override"), text_field(raw, "runs_as"), text_field(raw, "reliability"),
                   text_field(raw, "note"), kb_string_list(raw, "sources")};
  }
  if (row.contains("support_history")) {
    const auto& raw = row.at("support_history");
    target.history =
        SupportHistory{text_field(raw, "text"), text_field(raw, "last_release"), kb_string_list(raw, "sources")};
  }
  return target;
}

// An optional boolean field of a PCI row; anything else is the row's error.
RowResult<bool> read_pci_flag(const json& row, const char* field, const std::string& what_if_not) {
  if (!row.contains(field)) return false;
  if (!row.at(field).is_boolean()) return tl::unexpected(text_field(row, "device") + ": " + what_if_not);
  return row.at(field).get<bool>();
}

RowResult<PciDevice> read_pci_device_row(const json& row) {
  PciDevice device;
  const auto device_text = text_field(row, "device");
  const auto id = parse_uint(device_text, 16);
  if (!id) return tl::unexpected("bad device id " + device_text);
  device.device = static_cast<std::uint32_t>(*id);
  if (row.contains("revision") && row.at("revision").is_string()) {
    const auto revision = parse_uint(row.at("revision").get<std::string>(), 16);
    if (!revision) return tl::unexpected("bad revision for " + device_text);
    device.revision = static_cast<std::uint32_t>(*revision);
  }
  device.name = text_field(row, "name");
  device.codename = text_field(row, "codename");
  device.gfx = text_field(row, "gfx");
  if (row.contains("xcds")) {
    const auto& xcds = row.at("xcds");
    if (!xcds.is_number_unsigned() || xcds.get<unsigned>() == 0) {
      return tl::unexpected(device_text + ": 'xcds' must be a positive integer");
    }
    device.xcds = xcds.get<unsigned>();
  }
  const auto unified = read_pci_flag(row, "unified_memory", "'unified_memory' must be true or false");
  if (!unified) return tl::unexpected(unified.error());
  device.unified_memory = *unified;
  const auto virtual_function = read_pci_flag(row, "virtual_function", "virtual_function is not a boolean");
  if (!virtual_function) return tl::unexpected(virtual_function.error());
  device.virtual_function = *virtual_function;
  device.sources = kb_string_list(row, "sources");
  if (device.sources.empty()) return tl::unexpected(device_text + ": no sources");
  return device;
}

// The table's "vendor" is the one vendor id the code knows AMD by (kb::kAmdPciVendor): a
// table that says otherwise would describe devices the doctor never looks up.
void check_pci_vendor(TableReader& reader) {
  auto vendor = reader.text("vendor");
  if (!vendor) throw std::runtime_error(vendor.error());
  if (parse_uint(*vendor, 16) != kAmdPciVendor) {
    throw_kb_table_error(
        reader, "vendor",
        fmt::format("{} is not AMD's PCI vendor id {:#06x} (kb::kAmdPciVendor)", *vendor, kAmdPciVendor));
  }
}

RowResult<Release> read_release_row(const json& row) {
  Release release;
  release.release = text_field(row, "release");
  release.patch_releases = kb_string_list(row, "patch_releases");
  for (const auto& target : row.value("gfx_targets", json::array())) {
    release.targets.push_back({text_field(target, "gfx"), text_field(target, "since")});
  }
  for (const auto& os : row.value("os", json::array())) {
    release.os.push_back({text_field(os, "name"), text_field(os, "version"), text_field(os, "kernel")});
  }
  release.notes = text_field(row, "notes");
  release.sources = kb_string_list(row, "sources");
  if (release.sources.empty()) return tl::unexpected(release.release + ": no sources");
  return release;
}

PerDeviceOverride read_per_device_override(TableReader& reader) {
  const auto& raw = reader.optional("per_device_override");
  const auto& per_device = raw.is_null() ? json::object() : raw;
  return {text_field(per_device, "since"), per_device.value("inferred", true), text_field(per_device, "note")};
}

RowResult<MathLibrary> read_library_row(const json& row) {
  MathLibrary library{text_field(row, "name"), text_field(row, "soname"), std::nullopt};
  if (library.name.empty() || library.soname.empty()) return tl::unexpected(std::string("row without name/soname"));
  if (row.contains("kernels")) {
    const auto& raw = row.at("kernels");
    library.kernels = KernelLayout{text_field(raw, "base"), kb_string_list(raw, "dirs"), text_field(raw, "match"),
                                   text_field(raw, "finding"), text_field(raw, "family_absent_severity")};
  }
  return library;
}

// Reads every row of `key` with `read_row`; a row's error, or a second row of the same
// `identity`, is the table's error (the duplicate named by its `name_field`).
template <typename Row, typename ReadRow, typename Identity>
std::vector<Row> read_kb_rows(TableReader& reader, std::string_view key, const char* name_field, ReadRow read_row,
                              Identity identity) {
  std::vector<Row> rows;
  std::set<decltype(identity(std::declval<const Row&>()))> seen;
  for (const auto& raw : kb_table_rows(reader, key)) {
    auto row = read_row(raw);
    if (!row) throw_kb_table_error(reader, key, row.error());
    if (!seen.insert(identity(*row)).second)
      throw_kb_table_error(reader, key, "duplicate " + text_field(raw, name_field));
    rows.push_back(std::move(*row));
  }
  return rows;
}

// Releases oldest first (the checks take the last row as the newest), and at least one.
void check_release_order(TableReader& reader, const std::vector<Release>& rows) {
  if (rows.empty()) throw_kb_table_error(reader, "releases", "no releases");
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (!version_less(rows[i - 1].release, rows[i].release)) {
      throw_kb_table_error(reader, "releases", "releases not oldest first at " + rows[i].release);
    }
  }
}

}  // namespace

LoadResult<GfxTargetTable> read_gfx_targets_table(TableReader& reader) {
  return data_table::read_catching(reader, [](TableReader& table_reader) {
    GfxTargetTable table;
    table.sources = kb_table_sources(table_reader);
    table.rows = read_kb_rows<GfxTarget>(table_reader, "targets", "gfx", read_gfx_target_row,
                                         [](const GfxTarget& target) { return target.gfx; });
    return table;
  });
}

LoadResult<PciTable> read_pci_ids_table(TableReader& reader) {
  return data_table::read_catching(reader, [](TableReader& table_reader) {
    PciTable table;
    table.sources = kb_table_sources(table_reader);
    check_pci_vendor(table_reader);
    table.rows =
        read_kb_rows<PciDevice>(table_reader, "devices", "device", read_pci_device_row, [](const PciDevice& device) {
          return std::pair{device.device, device.revision ? std::int64_t{*device.revision} : -1};
        });
    return table;
  });
}

LoadResult<ReleaseTable> read_rocm_releases_table(TableReader& reader) {
  return data_table::read_catching(reader, [](TableReader& table_reader) {
    ReleaseTable table;
    table.sources = kb_table_sources(table_reader);
    table.rows = read_kb_rows<Release>(table_reader, "releases", "release", read_release_row,
                                       [](const Release& release) { return release.release; });
    check_release_order(table_reader, table.rows);
    table.per_device_override = read_per_device_override(table_reader);
    return table;
  });
}

LoadResult<LibraryTable> read_rocm_libraries_table(TableReader& reader) {
  return data_table::read_catching(reader, [](TableReader& table_reader) {
    LibraryTable table;
    table.sources = kb_table_sources(table_reader);
    table.rows = read_kb_rows<MathLibrary>(table_reader, "libraries", "name", read_library_row,
                                           [](const MathLibrary& library) { return library.name; });
    return table;
  });
}

namespace {

// Each table's loader, enrolled in DataTables.EveryTopLevelKeyIsRead.
[[maybe_unused]] const bool kGfxTargetsLoaderRegistered =
    data_table::register_table_loader<GfxTargetTable, &read_gfx_targets_table>(kGfxTargetsFile);
[[maybe_unused]] const bool kPciIdsLoaderRegistered =
    data_table::register_table_loader<PciTable, &read_pci_ids_table>(kPciIdsFile);
[[maybe_unused]] const bool kRocmReleasesLoaderRegistered =
    data_table::register_table_loader<ReleaseTable, &read_rocm_releases_table>(kRocmReleasesFile);
[[maybe_unused]] const bool kRocmLibrariesLoaderRegistered =
    data_table::register_table_loader<LibraryTable, &read_rocm_libraries_table>(kRocmLibrariesFile);

}  // namespace

}  // namespace rocm_doctor::kb

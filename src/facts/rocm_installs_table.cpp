// The typed loader of checks/data/rocm_installs.json (rocm_installs_detail.h): TheRock's GPU
// families and their suffixes, the folders applications bundle ROCm in, and the rocBLAS
// per-target file names.
#include <nlohmann/json.hpp>

#include "facts/rocm_installs_detail.h"
#include "rocm_doctor/data_table.h"

namespace rocm_doctor::installs_detail {
namespace {

constexpr std::string_view kRocmInstallsFile = "rocm_installs.json";

// A row's list of strings at `field` (missing or null: empty); an error says what is wrong.
tl::expected<std::vector<std::string>, std::string> install_row_strings(const nlohmann::json& row,
                                                                        std::string_view field) {
  const auto it = row.find(field);
  if (it == row.end() || it->is_null()) return std::vector<std::string>{};
  if (!it->is_array()) return tl::unexpected(std::string(field) + ": must be a list");
  std::vector<std::string> values;
  for (const auto& value : *it) {
    if (!value.is_string()) return tl::unexpected(std::string(field) + ": holds a non-string");
    values.push_back(value.get<std::string>());
  }
  return values;
}

// family name -> its gfx targets.
tl::expected<std::map<std::string, std::vector<std::string>>, std::string> read_install_families(
    data_table::TableReader& reader) {
  auto families = reader.at("families");
  if (!families) return tl::unexpected(families.error());
  if (!families->get().is_object()) return tl::unexpected(reader.error("families", "must be an object"));
  std::map<std::string, std::vector<std::string>> result;
  for (const auto& [family, targets] : families->get().items()) {
    auto list = install_row_strings(families->get(), family);
    if (!list) return tl::unexpected(reader.error("families", list.error()));
    result[family] = std::move(*list);
  }
  return result;
}

tl::expected<BundlePlace, std::string> read_bundle_place(const nlohmann::json& row) {
  if (!row.is_object()) return tl::unexpected(std::string("a row is not an object"));
  BundlePlace place;
  place.kind = data_table::text_field(row, "kind");
  place.app = data_table::text_field(row, "app");
  place.match = data_table::text_field(row, "match");
  place.kernels = data_table::text_field(row, "kernels");
  place.service = data_table::text_field(row, "service");
  if (place.kind.empty()) return tl::unexpected(std::string("a row has no kind"));
  auto folders = install_row_strings(row, "folders");
  if (!folders) return tl::unexpected(place.kind + ": " + folders.error());
  place.folders = std::move(*folders);
  auto programs = install_row_strings(row, "programs");
  if (!programs) return tl::unexpected(place.kind + ": " + programs.error());
  place.programs = std::move(*programs);
  return place;
}

tl::expected<std::vector<BundlePlace>, std::string> read_bundle_places(data_table::TableReader& reader) {
  auto rows = reader.at("bundles");
  if (!rows) return tl::unexpected(rows.error());
  if (!rows->get().is_array()) return tl::unexpected(reader.error("bundles", "must be a list"));
  std::vector<BundlePlace> places;
  for (const auto& row : rows->get()) {
    auto place = read_bundle_place(row);
    if (!place) return tl::unexpected(reader.error("bundles", place.error()));
    places.push_back(std::move(*place));
  }
  return places;
}

tl::expected<InstallData, std::string> read_rocm_installs_table(data_table::TableReader& reader) {
  InstallData data;
  auto suffixes = reader.strings("family_suffixes");
  if (!suffixes) return tl::unexpected(suffixes.error());
  data.suffixes = std::move(*suffixes);
  auto patterns = reader.strings("rocblas_library_patterns");
  if (!patterns) return tl::unexpected(patterns.error());
  data.rocblas_patterns = std::move(*patterns);
  auto families = read_install_families(reader);
  if (!families) return tl::unexpected(families.error());
  data.families = std::move(*families);
  auto bundles = read_bundle_places(reader);
  if (!bundles) return tl::unexpected(bundles.error());
  data.bundles = std::move(*bundles);
  return data;
}

[[maybe_unused]] const bool kRocmInstallsLoaderRegistered =
    data_table::register_table_loader<InstallData, &read_rocm_installs_table>(kRocmInstallsFile);

}  // namespace

// Parsed once per table text (overlays included); the finders and the pure parsers read it
// deep in, with no error path of their own (the key test holds the built-in table valid).
const InstallData& install_data() {
  return data_table::require(data_table::load<InstallData, &read_rocm_installs_table>(kRocmInstallsFile));
}

}  // namespace rocm_doctor::installs_detail

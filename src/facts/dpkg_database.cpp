#include "rocm_doctor/facts/dpkg_database.h"

#include <algorithm>

#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

// A real status file is about 1 MB per thousand packages.
constexpr std::size_t kStatusLimit = 64U * 1024 * 1024;

void read_status_field(DpkgPackage& package, std::string_view value) {
  const auto words = split_words(value);
  if (words.size() != 3) return;
  package.want = std::string(words[0]);
  package.flag = std::string(words[1]);
  package.state = std::string(words[2]);
}

}  // namespace

std::vector<DpkgPackage> parse_dpkg_status(std::string_view text) {
  std::vector<DpkgPackage> packages;
  DpkgPackage current;
  const auto on_field = [&](const ControlField& field) {
    if (field.name == "Package") {
      current.name = std::string(field.value);
      current.line = field.line;
    } else if (field.name == "Version") {
      current.version = std::string(field.value);
    } else if (field.name == "Status") {
      read_status_field(current, field.value);
    }
  };
  const auto on_stanza_end = [&] {
    if (!current.name.empty()) packages.push_back(std::move(current));
    current = DpkgPackage{};
  };
  read_control_stanzas(text, on_field, on_stanza_end);
  return packages;
}

std::optional<std::string> DpkgDatabase::installed_version(std::string_view name) const {
  const auto it = std::find_if(packages.begin(), packages.end(), [&](const DpkgPackage& package) {
    return package.name == name && package.state == "installed" && !package.version.empty();
  });
  if (it == packages.end()) return std::nullopt;
  return it->version;
}

DpkgDatabase DpkgDatabase::collect(const CheckContext& ctx) {
  DpkgDatabase database;
  if (const auto text = ctx.host().read_file(kStatusPath, kStatusLimit)) database.packages = parse_dpkg_status(*text);
  return database;
}

}  // namespace rocm_doctor

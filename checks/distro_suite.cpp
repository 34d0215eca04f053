// The apt suite AMD publishes for a distribution release (declared in distro_suite.h),
// from checks/data/distro_suites.json.
#include "distro_suite.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

#include "rocm_doctor/kb.h"
#include "rocm_doctor/text.h"
#include "table_loader.h"

namespace rocm_doctor::distro_suite {

namespace {

struct Ubuntu {
  std::string codename, version;
  bool lts = false;
};
struct Debian {
  std::string codename, version, suite;
};
struct Data {
  std::vector<std::string> amd_suites;
  std::vector<Ubuntu> ubuntu;
  std::vector<Debian> debian;
};

// Throws "distro_suites.json: KEY: what" on a missing or mistyped key or row field: the
// TableLoader makes it the error value.
Data distro_suites_from(data_table::TableReader& reader) {
  Data result;
  result.amd_suites = check_tables::value_of<std::vector<std::string>>(reader, "amd_suites");
  result.ubuntu = check_tables::read_key(reader, "ubuntu", [](const nlohmann::json& rows) {
    std::vector<Ubuntu> releases;
    for (const auto& row : rows) {
      releases.push_back(
          {row.at("codename").get<std::string>(), row.at("version").get<std::string>(), row.at("lts").get<bool>()});
    }
    return releases;
  });
  result.debian = check_tables::read_key(reader, "debian", [](const nlohmann::json& rows) {
    std::vector<Debian> releases;
    for (const auto& row : rows) {
      releases.push_back({row.at("codename").get<std::string>(), row.at("version").get<std::string>(),
                          row.at("suite").get<std::string>()});
    }
    return releases;
  });
  return result;
}

const check_tables::TableLoader<Data, &distro_suites_from> kDistroSuitesTable("distro_suites.json");

const Data& data() {
  return kDistroSuitesTable.get();
}

const Ubuntu* ubuntu_by_codename(std::string_view codename) {
  const auto& rows = data().ubuntu;
  const auto it = std::find_if(rows.begin(), rows.end(), [&](const Ubuntu& row) { return row.codename == codename; });
  return it == rows.end() ? nullptr : &*it;
}

// The newest suite AMD publishes that is not newer than `version`: an interim release's LTS.
const Ubuntu* amd_suite_at_or_before(std::string_view version) {
  const Ubuntu* best = nullptr;
  for (const auto& row : data().ubuntu) {
    const auto& suites = data().amd_suites;
    if (std::find(suites.begin(), suites.end(), row.codename) == suites.end()) continue;
    if (kb::version_less(version, row.version)) continue;
    if (!best || kb::version_less(best->version, row.version)) best = &row;
  }
  return best;
}

std::string field(const std::map<std::string, std::string>& fields, const std::string& key) {
  const auto it = fields.find(key);
  return it == fields.end() ? std::string() : it->second;
}

}  // namespace

std::optional<Release> judge(const std::map<std::string, std::string>& os_release) {
  const auto id = field(os_release, "ID");
  const auto like = " " + field(os_release, "ID_LIKE") + " ";
  const auto codename = field(os_release, "VERSION_CODENAME");
  Release release;
  release.version = field(os_release, "VERSION_ID");
  release.codename = codename;
  if (id == "debian") {
    release.distro = "Debian";
    const auto& rows = data().debian;
    const auto it = std::find_if(rows.begin(), rows.end(), [&](const Debian& row) {
      return row.codename == codename || (codename.empty() && row.version == release.version);
    });
    if (it == rows.end()) return std::nullopt;  // testing/sid or unknown: no suite to name
    release.codename = it->codename;
    release.suite = it->suite;
    if (const auto* row = ubuntu_by_codename(it->suite)) release.suite_version = row->version;
    release.evidence = "ID=debian VERSION_ID=" + release.version + " VERSION_CODENAME=" + release.codename;
    return release;
  }
  const bool ubuntu = id == "ubuntu";
  const auto base = ubuntu ? codename : field(os_release, "UBUNTU_CODENAME");
  if (!ubuntu && (base.empty() || like.find(" ubuntu ") == std::string::npos)) return std::nullopt;
  const auto* row = ubuntu_by_codename(base);
  if (!row) return std::nullopt;
  release.distro = ubuntu ? "Ubuntu" : field(os_release, "NAME");
  if (release.distro.empty()) release.distro = id;
  if (ubuntu) {
    release.version = row->version;
  } else {
    release.base = base;
  }
  release.interim = !row->lts;
  const auto* suite = amd_suite_at_or_before(row->version);
  if (suite) {
    release.suite = suite->codename;
    release.suite_version = suite->version;
  }
  release.evidence = "ID=" + id + " VERSION_ID=" + field(os_release, "VERSION_ID") +
                     (codename.empty() ? "" : " VERSION_CODENAME=" + codename) +
                     (ubuntu ? "" : " UBUNTU_CODENAME=" + base);
  return release;
}

std::optional<Release> read(const Host& host) {
  const auto text = host.read_file("/etc/os-release");
  if (!text) return std::nullopt;
  return judge(parse_env_file(*text));
}

std::string describe(const Release& release) {
  auto text = release.distro + (release.version.empty() ? "" : " " + release.version) +
              (release.codename.empty() ? "" : " '" + release.codename + "'");
  if (!release.base.empty()) text += " (based on Ubuntu '" + release.base + "')";
  if (release.interim) text += " (interim release)";
  return text;
}

}  // namespace rocm_doctor::distro_suite

// `repo-suite`: AMD's apt entries against the distribution release. repo.radeon.com
// publishes one package set per Ubuntu codename (jammy, noble); Debian 12 and 13 use the
// jammy and noble sets, an interim Ubuntu the LTS before it. An entry naming another
// suite (left over from before a release upgrade, copied from a guide for another
// release) installs packages that depend on libraries this release does not have:
// "rocm-gdb : Depends: libpython3.10 but it is not installable".
#include <algorithm>
#include <map>

#include "distro_suite.h"
#include "packages.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/system_facts.h"
#include "rocm_doctor/text.h"
#include "rocm_packages_table.h"

namespace rocm_doctor::repo_suite_check {
namespace {

constexpr std::string_view kCheckId = "repo-suite";

struct AptEntry {
  std::string file;
  bool deb822 = false;
  packages::RepoEntry entry;
};

std::vector<AptEntry> radeon_apt_entries(const Host& host, std::map<std::string, std::size_t>& entries_per_file) {
  std::vector<std::pair<std::string, bool>> files;
  if (host.exists("/etc/apt/sources.list")) files.emplace_back("/etc/apt/sources.list", false);
  for (const auto& entry : host.list_dir("/etc/apt/sources.list.d").value_or(std::vector<DirEntry>{})) {
    if (entry.name.ends_with(".list")) files.emplace_back("/etc/apt/sources.list.d/" + entry.name, false);
    if (entry.name.ends_with(".sources")) files.emplace_back("/etc/apt/sources.list.d/" + entry.name, true);
  }
  std::vector<AptEntry> result;
  for (const auto& [path, deb822] : files) {
    const auto text = host.read_file(path);
    if (!text) continue;
    const auto entries = deb822 ? packages::parse_deb822(*text) : packages::parse_apt_list(*text);
    entries_per_file[path] = entries.size();
    for (const auto& entry : entries) {
      if (!entry.enabled || entry.suite.empty()) continue;
      const bool radeon = std::any_of(entry.uris.begin(), entry.uris.end(), [](const std::string& uri) {
        return packages::parse_radeon_url(uri).has_value();
      });
      if (radeon) result.push_back({path, deb822, entry});
    }
  }
  return result;
}

std::string keyring() {
  return packages::rocm_packages_table().keyring;
}

std::string corrected_line(const packages::RepoEntry& entry, const std::string& suite) {
  return "deb [arch=amd64 signed-by=" + keyring() + "] " + entry.uris.front() + " " + suite +
         (entry.components.empty() ? "" : " " + entry.components);
}

// One command per file: a file holding only AMD's entries is rewritten with the corrected
// lines; anything else (other entries, deb822) is edited by hand.
std::vector<std::string> fix_commands(const std::vector<const AptEntry*>& wrong, const std::vector<AptEntry>& all,
                                      const std::map<std::string, std::size_t>& entries_per_file,
                                      const std::string& suite) {
  std::vector<std::string> commands;
  std::vector<std::string> done;
  for (const auto* item : wrong) {
    if (std::find(done.begin(), done.end(), item->file) != done.end()) continue;
    done.push_back(item->file);
    std::vector<std::string> lines;
    for (const auto& other : all) {
      if (other.file == item->file) lines.push_back(corrected_line(other.entry, suite));
    }
    const auto count = entries_per_file.count(item->file) ? entries_per_file.at(item->file) : 0;
    if (item->deb822 || item->file == "/etc/apt/sources.list" || lines.size() != count) {
      commands.push_back(shell_command({"sudoedit", item->file}));
      continue;
    }
    std::string printf = "printf '%s\\n'";
    for (const auto& line : lines) printf += " " + shell_quote(line);
    commands.push_back(printf + " | sudo tee " + shell_quote(item->file) + " > /dev/null");
  }
  commands.push_back("sudo apt update");
  return commands;
}

class RepoSuiteCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "AMD apt repositories and the distribution release"; }
  int order() const override { return 56; }
  std::vector<std::string_view> finding_ids() const override { return {"rocm.repo-suite-mismatch"}; }

  CheckOutcome run(const CheckContext& ctx) const override {
    const auto& host = ctx.host();
    const auto release = distro_suite::read(host);
    if (!release) return CheckOutcome::skipped("not a Debian or Ubuntu release AMD publishes apt suites for");
    if (release->suite.empty()) {
      return CheckOutcome::skipped(distro_suite::describe(*release) + " is older than every suite AMD publishes");
    }
    std::map<std::string, std::size_t> entries_per_file;
    const auto entries = radeon_apt_entries(host, entries_per_file);
    std::vector<const AptEntry*> wrong;
    // An LTS release's own codename is fine too: AMD may publish it before this table knows.
    const auto own = release->base.empty() ? release->codename : release->base;
    for (const auto& entry : entries) {
      const bool own_lts = !release->interim && release->distro != "Debian" && entry.entry.suite == own;
      if (entry.entry.suite != release->suite && !own_lts) wrong.push_back(&entry);
    }
    if (wrong.empty()) return CheckOutcome{};
    const auto& first = *wrong.front();
    const bool derived = release->distro != "Ubuntu" || release->interim;
    auto finding =
        make_finding("rocm.repo-suite-mismatch", Severity::warning,
                     "AMD's apt entries name '" + first.entry.suite + "' packages, but this is " +
                         distro_suite::describe(*release) +
                         (derived ? ", for which AMD's packages are the Ubuntu " + release->suite_version + " '" +
                                        release->suite + "' ones"
                                  : ""))
            .because(
                "repo.radeon.com builds each package set against one Ubuntu release's libraries. Packages of "
                "another release's suite fail to install (\"Depends: libpython3.10 but it is not installable\", "
                "unmet dependencies of rocm-llvm, hipsolver or mesa-amdgpu) or install and then load libraries "
                "this release does not have.")
            .with_evidence("/etc/os-release", release->evidence);
    for (const auto* item : wrong) {
      finding.with_evidence(item->file + ":" + std::to_string(item->entry.line), item->entry.text);
    }
    return {
        {finding.with_fix(make_fix(kCheckId,
                                   "Use the '" + release->suite + "' suite in AMD's entries (same folders, signed by " +
                                       keyring() + "): " + corrected_line(first.entry, release->suite),
                                   fix_commands(wrong, entries, entries_per_file, release->suite), {.root = true}))}};
  }
};

}  // namespace
}  // namespace rocm_doctor::repo_suite_check

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::repo_suite_check::RepoSuiteCheck)

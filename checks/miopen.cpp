// `miopen`: MIOpen keeps tuned kernels in a user database and a compiled-kernel
// cache; when neither folder is writable every run compiles and tunes again.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/python_env.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/facts/torch_view.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::miopen_check {
namespace {

constexpr std::string_view kCheckId = "miopen";

struct Mount {
  std::string point;
  bool read_only = false;
};

// /proc/mounts: "device mountpoint type options 0 0" (octal escapes in the mount point).
std::vector<Mount> parse_mounts(std::string_view text) {
  std::vector<Mount> mounts;
  for (const auto line : lines(text)) {
    const auto fields = split_words(line);
    if (fields.size() < 4) continue;
    std::string point;
    const auto raw = fields[1];
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '\\' && i + 3 < raw.size()) {
        const auto code = parse_uint(raw.substr(i + 1, 3), 8);
        if (code) {
          point.push_back(static_cast<char>(*code));
          i += 3;
          continue;
        }
      }
      point.push_back(raw[i]);
    }
    bool ro = false;
    for (const auto option : split(fields[3], ',')) ro = ro || option == "ro";
    mounts.push_back({point, ro});
  }
  return mounts;
}

// The mount that holds `path` (the last, longest matching mount point wins).
const Mount* mount_of(const std::vector<Mount>& mounts, const std::string& path) {
  const Mount* best = nullptr;
  for (const auto& mount : mounts) {
    const auto& point = mount.point;
    const bool inside = point == "/" || path == point || path.starts_with(point + "/");
    if (inside && (best == nullptr || point.size() >= best->point.size())) best = &mount;
  }
  return best;
}

bool writable_by(const NodeInfo& node, const Identity& who) {
  if (who.uid == 0) return true;
  unsigned bits = node.mode & 07;
  if (node.uid == who.uid)
    bits = (node.mode >> 6) & 07;
  else if (node.gid == who.gid || std::find(who.groups.begin(), who.groups.end(), node.gid) != who.groups.end()) {
    bits = (node.mode >> 3) & 07;
  }
  return (bits & 03) == 03;  // write and search
}

struct Verdict {
  bool writable = true;
  std::string reason;
  std::string evidence_path;
  std::string evidence;
};

// Whether MIOpen can use (or create) the folder.
Verdict judge_folder(const Host& host, const std::vector<Mount>& mounts, const std::string& folder) {
  std::string path = folder;
  bool exists = true;
  while (true) {
    auto node = host.stat_node(path);
    if (node) {
      Verdict verdict;
      verdict.evidence_path = path;
      verdict.evidence =
          fmt::format("{} mode {:04o} uid {} gid {}", to_string(node->type), node->mode, node->uid, node->gid);
      if (const auto* mount = mount_of(mounts, path); mount != nullptr && mount->read_only) {
        verdict.writable = false;
        verdict.reason = fmt::format("{} is on a read-only mount ({})", path, mount->point);
        verdict.evidence += ", mount " + mount->point + " ro";
        return verdict;
      }
      if (node->type != EntryType::directory) {
        verdict.writable = false;
        verdict.reason = path + " is not a folder";
        return verdict;
      }
      // A snapshot older than its `stat` record knows no owner or mode: nothing to judge then.
      if (node->permissions_known && !writable_by(*node, host.identity())) {
        verdict.writable = false;
        verdict.reason =
            exists ? path + " is not writable by this user"
                   : folder + " does not exist and " + path + " is not writable by this user, so it cannot be created";
      }
      return verdict;
    }
    if (node.error().kind != HostErrorKind::not_found) {
      return {false, path + ": " + node.error().message, path, "unreadable"};
    }
    exists = false;
    const auto slash = path.rfind('/');
    if (slash == std::string::npos || path == "/") return {};
    path = slash == 0 ? "/" : path.substr(0, slash);
  }
}

// Read-only mounts need another folder; a folder root took from its user goes back; otherwise use one in $HOME.
Fix unwritable_fix(const std::string& variable, const std::string& path, const Verdict& verdict, const Identity& who) {
  if (verdict.reason.find("read-only") != std::string::npos) {
    return make_fix(kCheckId,
                    "Point MIOpen at a writable folder (or mount a volume there, e.g. docker run -v "
                    "miopen-cache:" +
                        path + ").",
                    {"mkdir -p /tmp/miopen", "export " + variable + "=/tmp/miopen"});
  }
  if (!who.user.empty() && verdict.evidence.find("uid 0 ") != std::string::npos && who.uid != 0) {
    return make_fix(kCheckId, "Give the folder back to its user.",
                    {"sudo chown -R " + shell_quote(who.user) + ": " + shell_quote(verdict.evidence_path)},
                    FixNeeds{.root = true});
  }
  return make_fix(kCheckId, "Use a folder this user can write.",
                  {"mkdir -p \"$HOME/.cache/miopen\"", "export " + variable + "=\"$HOME/.cache/miopen\""});
}

bool miopen_in_use(const CheckContext& ctx) {
  const auto& host = ctx.host();
  for (const auto& name : host.env_names()) {
    if (name.starts_with("MIOPEN_")) return true;
  }
  const auto& install = ctx.fact<RocmInstallation>();
  for (const auto& release : install.releases) {
    if (release.lib_dir.empty()) continue;
    auto entries = host.list_dir(release.lib_dir);
    if (!entries) continue;
    if (std::any_of(entries->begin(), entries->end(),
                    [](const DirEntry& e) { return e.name.starts_with("libMIOpen.so"); })) {
      return true;
    }
  }
  // A ROCm PyTorch wheel bundles its own MIOpen: its files say so, no import needed.
  if (const auto& env = ctx.fact<PythonEnvironment>(); env.torch && build_of(*env.torch) == TorchBuild::rocm) {
    return true;
  }
  // Else the view the torch check judges (the python probe's import when the level
  // allows one, or a replay's recorded one), computed here when torch did not run:
  // `--only miopen` judges what the full run does (probes() declares "python").
  if (const auto& view = ctx.fact<TorchView>(); view.outcome) {
    const auto& outcome = *view.outcome;
    if (!outcome.contains("result") || !outcome["result"].is_object()) return false;
    const auto& result = outcome["result"];
    return result.contains("torch") && result["torch"].is_object() && result["torch"].contains("hip") &&
           result["torch"]["hip"].is_string();
  }
  return false;
}

class MiopenCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "MIOpen database and cache"; }
  int order() const override { return 90; }
  std::vector<std::string_view> finding_ids() const override { return {"miopen.cache-unwritable", "miopen.ok"}; }
  std::vector<std::string_view> probes() const override { return {"python"}; }

  CheckOutcome run(const CheckContext& ctx) const override {
    const auto& host = ctx.host();
    if (!miopen_in_use(ctx)) return CheckOutcome::skipped("MIOpen is not installed and no ROCm PyTorch uses it");
    const auto who = host.identity();
    std::string home = host.env("HOME").value_or("");
    if (home.empty() && !who.user.empty()) {
      if (auto user = host.user_by_name(who.user)) home = user->home;
    }
    std::vector<Mount> mounts;
    if (auto text = host.read_file("/proc/mounts")) mounts = parse_mounts(*text);
    struct Folder {
      std::string variable;
      std::string path;
      std::string what;
    };
    std::vector<Folder> folders;
    for (const auto& [variable, fallback, what] :
         {std::tuple{"MIOPEN_USER_DB_PATH", "/.config/miopen", "user database (tuned kernel choices)"},
          std::tuple{"MIOPEN_CUSTOM_CACHE_DIR", "/.cache/miopen", "kernel cache (compiled kernels)"}}) {
      if (auto value = host.env(variable); value && !trim(*value).empty()) {
        folders.push_back({variable, std::string(trim(*value)), what});
      } else if (!home.empty()) {
        folders.push_back({"", home + fallback, what});
      }
    }
    std::vector<Finding> findings;
    std::vector<std::string> fine;
    for (const auto& folder : folders) {
      std::string path = folder.path;
      while (path.size() > 1 && path.back() == '/') path.pop_back();
      if (path.empty() || path.front() != '/') continue;
      const auto verdict = judge_folder(host, mounts, path);
      if (verdict.writable) {
        fine.push_back(path);
        continue;
      }
      auto finding = make_finding("miopen.cache-unwritable", Severity::warning,
                                  fmt::format("MIOpen cannot write its {}: {}", folder.what, verdict.reason))
                         .because(
                             "MIOpen stores the kernels it compiled and the convolution algorithms it tuned "
                             "there; when it cannot, every process compiles and tunes again (minutes of start-up "
                             "per run, slower convolutions). Common in read-only containers and when a folder "
                             "was created by root (sudo python ...).")
                         .with_evidence(folder.variable.empty() ? "default folder" : "env " + folder.variable, path);
      if (!verdict.evidence_path.empty()) finding.with_evidence(verdict.evidence_path, verdict.evidence);
      const auto variable =
          folder.variable.empty()
              ? std::string(folder.what.starts_with("user") ? "MIOPEN_USER_DB_PATH" : "MIOPEN_CUSTOM_CACHE_DIR")
              : folder.variable;
      finding.with_fix(unwritable_fix(variable, path, verdict, who));
      findings.push_back(std::move(finding));
    }
    if (findings.empty() && !fine.empty()) {
      findings.push_back(make_finding("miopen.ok", Severity::ok,
                                      "MIOpen's database and cache folders are writable: " + join(fine, ", "))
                             .because("Tuned kernels persist between runs."));
    }
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::miopen_check

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::miopen_check::MiopenCheck)

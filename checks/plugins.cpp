// The site check plugins (docs/plugins.md): executables a site drops into
// /etc/rocm-doctor/checks.d, ~/.config/rocm-doctor/checks.d or --plugin-dir.
// This check hands them the facts the doctor collected, and turns the plugin
// stage's record (what ran, how it ended, what it answered) into findings:
// the plugins' own (site.<plugin>.<id>) and the doctor's about the plugins.
// A live host runs them; a snapshot answers with the record its capture saved.
#include <fmt/format.h>

#include <set>

#include "env_lint.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/plugin_answer.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/system_facts.h"
#include "rocm_doctor/text.h"
#include "version.h"

namespace rocm_doctor::plugins_check {
namespace {

constexpr std::string_view kCheckId = "plugins";

using Json = nlohmann::json;

Json text_or_null(const std::string& text) {
  return text.empty() ? Json(nullptr) : Json(text);
}

// Only the variables ROCm documents (checks/data/env_variables.json): never
// unrelated ones such as tokens.
Json rocm_environment(const Host& host) {
  Json environment = Json::object();
  for (const auto& name : host.env_names()) {
    if (env_lint::judge_variable(name).verdict != env_lint::NameVerdict::known) continue;
    if (auto value = host.env(name)) environment[name] = *value;
  }
  return environment;
}

Json rocm_facts(const RocmInstallation& rocm) {
  Json releases = Json::array();
  for (const auto& release : rocm.releases) {
    releases.push_back({{"version", text_or_null(release.version)},
                        {"path", release.prefix},
                        {"distro_packaged", release.distro_packaged}});
  }
  Json facts = {{"installed", rocm.installed()},
                {"release", nullptr},
                {"path", nullptr},
                {"hip_version", nullptr},
                {"releases", releases}};
  if (rocm.active) {
    facts["release"] = text_or_null(rocm.active->version);
    facts["path"] = rocm.active->prefix;
    facts["hip_version"] = text_or_null(rocm.active->hip_version);
  }
  return facts;
}

// The facts document every plugin reads on stdin (docs/plugins.md, "Input").
Json plugin_facts(const CheckContext& ctx) {
  const auto& host = ctx.host();
  const auto system = SystemFacts::collect(ctx);
  const auto identity = host.identity();
  const auto& inventory = ctx.fact<GpuInventory>();
  const auto driver_version = host.read_trimmed("/sys/module/amdgpu/version");
  return {
      {"protocol", plugins::kProtocol},
      {"doctor", {{"name", "rocm-doctor"}, {"version", kVersion}}},
      {"source", host.source()},
      {"options", {{"image", ctx.options().image_mode}, {"target_gfx", ctx.options().target_gfx}}},
      {"host",
       {{"hostname", system.hostname},
        {"os", system.os_pretty_name},
        {"os_id", system.os_id},
        {"os_version", system.os_version_id},
        {"kernel", system.kernel_release},
        {"container", text_or_null(system.container)},
        {"wsl", system.wsl},
        {"user", identity.user},
        {"uid", identity.uid},
        {"root", identity.uid == 0}}},
      {"gpus", Json(inventory.to_json())},
      {"driver",
       {{"amdgpu_loaded", inventory.amdgpu_loaded},
        {"kfd_present", inventory.kfd_present},
        {"version", driver_version ? Json(*driver_version) : Json(nullptr)}}},
      {"rocm", rocm_facts(ctx.fact<RocmInstallation>())},
      {"environment", rocm_environment(host)},
  };
}

std::set<std::string, std::less<>> builtin_finding_ids() {
  std::set<std::string, std::less<>> ids;
  for (const Check* check : registered_checks()) {
    for (const auto id : check->finding_ids()) ids.emplace(id);
  }
  return ids;
}

std::string node_text(const Json& entry) {
  return fmt::format("mode {}, owner uid {}, group gid {}", entry.value("mode", "?"), entry.value("uid", 0U),
                     entry.value("gid", 0U));
}

// chmod/chown commands that make `path` trustworthy again, for what is wrong.
// `user_folder`: the path is in the user's own plugin folder, which becomes
// theirs again rather than root's. Giving a path away, or changing one that
// is someone else's, takes root: those commands call sudo, as the doctor's
// other fixes do (not in a root run, where sudo may not even exist).
// What is wrong is read from the facts the scan recorded of the unsafe node (its uid, gid and
// mode; the ancestor's for a folder refused for one), by the scan's own rules
// (src/plugins/plugin_scan.cpp unsafe_reason), never from the words of its problem text.
struct PluginNodeFault {
  bool foreign_owner = false;
  bool writable_by_others = false;
};

PluginNodeFault plugin_node_fault(const Json& entry, const Identity& identity) {
  constexpr std::uint64_t kOtherWriteBit = 0002;
  constexpr std::uint64_t kGroupWriteBit = 0020;
  constexpr std::uint64_t kStickyBit = 01000;
  PluginNodeFault fault;
  const auto uid = entry.value("uid", 0U);
  const auto gid = entry.value("gid", 0U);
  const auto mode = parse_uint(entry.value("mode", ""), 8);
  fault.foreign_owner = uid != 0 && uid != identity.uid;
  if (!mode) return fault;
  const bool ancestor = entry.contains("unsafe_path") && entry.value("unsafe_path", "") != entry.value("path", "");
  const bool sticky_folder = ancestor && (*mode & kStickyBit) != 0;
  fault.writable_by_others = !sticky_folder && ((*mode & kOtherWriteBit) != 0 ||
                                                ((*mode & kGroupWriteBit) != 0 && gid != 0 && gid != identity.gid));
  return fault;
}

Fix ownership_fix(const std::string& path, const Json& entry, const Identity& identity, bool user_folder) {
  const auto fault = plugin_node_fault(entry, identity);
  const bool chown = fault.foreign_owner;
  const bool chmod = fault.writable_by_others;
  const bool needs_root = chown || entry.value("uid", 0U) != identity.uid;
  std::vector<std::string> sudo;
  if (needs_root && identity.uid != 0) sudo.emplace_back("sudo");
  const auto command = [&](std::vector<std::string> words) {
    words.insert(words.begin(), sudo.begin(), sudo.end());
    return shell_command(words);
  };
  std::vector<std::string> commands;
  if (chown) {
    const std::string owner =
        user_folder && identity.uid != 0 && !identity.user.empty() ? identity.user + ":" : "root:";
    commands.push_back(command({"chown", owner, path}));
  }
  if (chmod) commands.push_back(command({"chmod", "go-w", path}));
  return make_fix(kCheckId, "Let only root (or you, for your own folder) write there, then run the doctor again",
                  std::move(commands), {.root = needs_root});
}

bool in_user_folder(const Json& plugin, const Json& record) {
  const auto folder = plugin.value("folder", "");
  for (const auto& entry : record.value("folders", Json::array())) {
    if (entry.value("path", "") == folder) return entry.value("origin", "") == "user";
  }
  return false;
}

Finding unsafe_folder(const Json& folder, const Identity& identity) {
  const auto path = folder.value("path", "");
  const auto unsafe_path = folder.value("unsafe_path", path);
  auto finding =
      make_finding("plugin.unsafe-folder", Severity::warning,
                   fmt::format("Plugin folder {} refused: {}", path, folder.value("problem", "it is not safe")));
  finding
      .because(
          "The doctor executes every plugin in this folder, possibly as root. A folder that anyone but root "
          "(or you) can write to lets them drop in a program the doctor would run for them, so none of its "
          "plugins were run and their checks are missing from this report.")
      .with_evidence(unsafe_path, node_text(folder))
      .with_fix(ownership_fix(unsafe_path, folder, identity, folder.value("origin", "") == "user"));
  return finding;
}

Finding unreadable_folder(const Json& folder) {
  const auto path = folder.value("path", "");
  return make_finding("plugin.folder-unreadable", Severity::info,
                      fmt::format("Plugin folder {} could not be read: {}", path, folder.value("problem", "")))
      .because(
          "Plugins in a folder the doctor cannot list do not run; when it runs as another user (for example "
          "without root) that can be intended.")
      .with_evidence(path, folder.value("problem", ""));
}

Finding unsafe_file(const Json& plugin, const Identity& identity, bool user_folder) {
  const auto path = plugin.value("path", "");
  auto finding = make_finding("plugin.unsafe-file", Severity::warning,
                              fmt::format("Plugin {} refused: {}", path, plugin.value("problem", "it is not safe")));
  finding
      .because(
          "A plugin file that anyone but root (or you) can change could be made to run anything with the "
          "doctor's rights, so it was not run and its checks are missing from this report.")
      .with_evidence(path, node_text(plugin))
      .with_fix(ownership_fix(path, plugin, identity, user_folder));
  return finding;
}

// The last few lines a plugin wrote to stderr: usually why it failed.
std::string stderr_lines(const Json& plugin) {
  const auto tail = plugin.value("stderr_tail", "");
  std::vector<std::string> kept;
  for (const auto line : lines(tail)) {
    if (!trim(line).empty()) kept.emplace_back(trim(line));
  }
  if (kept.size() > 5) kept.erase(kept.begin(), kept.end() - 5);
  return join(kept, "\n");
}

std::string failure_reason(const Json& plugin) {
  const auto status = plugin.value("status", "");
  if (status == "timeout") {
    return fmt::format("did not finish within {} s and was killed", plugin.value("timeout_ms", 0) / 1000.0);
  }
  if (status == "crashed") return "was killed by " + plugin.value("signal_name", std::string("a signal"));
  if (status == "exit-code") return fmt::format("exited with status {}", plugin.value("exit_code", -1));
  if (status == "invalid-output") return "gave no valid answer: " + plugin.value("problem", "");
  if (status == "exec-failed") return "could not be started: " + plugin.value("error", "");
  if (status == "duplicate" || status == "bad-name" || status == "broken") {
    return "was not run: " + plugin.value("problem", "");
  }
  return "ended in an unknown way ('" + status + "')";
}

// How the plugin ended, for the evidence line: "exit status 0 after 45 ms".
std::string how_it_ended(const Json& plugin) {
  const auto status = plugin.value("status", "");
  const auto elapsed = plugin.value("elapsed_ms", 0);
  if (plugin.contains("signal_name")) return fmt::format("{} after {} ms", plugin.value("signal_name", ""), elapsed);
  if (plugin.contains("exit_code"))
    return fmt::format("exit status {} after {} ms", plugin.value("exit_code", 0), elapsed);
  if (status == "exec-failed") return "not started";
  return "not run (" + status + ")";
}

Finding plugin_failed(const Json& plugin, const std::string& reason) {
  const auto name = plugin.value("name", "");
  const auto path = plugin.value("path", "");
  auto finding = make_finding("plugin.failed", Severity::warning,
                              fmt::format("Site plugin '{}' {}", name.empty() ? path : name, reason));
  std::string why =
      "The checks this plugin makes for your site did not run, so this report says nothing about them. Its author "
      "can replay the run by hand: `rocm-doctor -v` logs the exact input it got (docs/plugins.md).";
  if (plugin.value("status", "") == "timeout") why += " If it is merely slow, give it more time with --probe-timeout.";
  finding.because(std::move(why)).with_evidence(path, how_it_ended(plugin));
  if (const auto err = stderr_lines(plugin); !err.empty()) finding.with_evidence("stderr of " + name, err);
  if (const auto head = plugin.value("stdout_head", ""); !head.empty()) {
    finding.with_evidence("stdout of " + name, trim(head));
  }
  return finding;
}

// A plugin that answered, for plugin.ran.
struct Answered {
  std::string name;
  std::string path;
  std::string detail;  // "2 findings in 45 ms"
};

// One plugin's entry of the record: its findings and the doctor's.
void judge_plugin(const Json& plugin, const Json& record, const Identity& identity,
                  const std::set<std::string, std::less<>>& builtin_ids, std::vector<Finding>& findings,
                  std::vector<Answered>& ran) {
  const auto status = plugin.value("status", "");
  if (status == "refused") {
    findings.push_back(unsafe_file(plugin, identity, in_user_folder(plugin, record)));
    return;
  }
  if (status != "ok") {
    findings.push_back(plugin_failed(plugin, failure_reason(plugin)));
    return;
  }
  const auto name = plugin.value("name", "");
  auto answer = plugins::parse_plugin_answer(plugin.value("output", Json()), name, builtin_ids);
  if (!answer) {
    findings.push_back(plugin_failed(plugin, "gave an invalid answer: " + answer.error()));
    return;
  }
  for (auto& finding : *answer) {
    if (finding.evidence.empty()) finding.with_evidence("site plugin " + name, plugin.value("path", ""));
    findings.push_back(std::move(finding));
  }
  ran.push_back({name, plugin.value("path", ""),
                 fmt::format("{} finding{} in {} ms", answer->size(), answer->size() == 1 ? "" : "s",
                             plugin.value("elapsed_ms", 0))});
}

// "3 site plugins ran: a, b, c" (the first few names; each one in the evidence).
Finding plugins_ran(const std::vector<Answered>& ran) {
  constexpr std::size_t kNamesInSummary = 8;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < ran.size() && i < kNamesInSummary; ++i) names.push_back(ran[i].name);
  if (ran.size() > kNamesInSummary) names.push_back(fmt::format("and {} more", ran.size() - kNamesInSummary));
  auto finding =
      make_finding("plugin.ran", Severity::ok,
                   fmt::format("{} site plugin{} ran: {}", ran.size(), ran.size() == 1 ? "" : "s", join(names, ", ")));
  finding.because(
      "Their findings carry ids of the form site.<plugin>.<id>; a plugin that fails is reported as "
      "plugin.failed instead.");
  for (const auto& plugin : ran) finding.with_evidence(plugin.path, plugin.detail);
  return finding;
}

class PluginsCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "Site check plugins"; }
  int order() const override { return 1000; }  // last: the site's own checks close the report
  std::vector<std::string_view> finding_ids() const override {
    return {"plugin.ran", "plugin.failed", "plugin.unsafe-folder", "plugin.unsafe-file", "plugin.folder-unreadable"};
  }

  CheckOutcome run(const CheckContext& ctx) const override {
    const auto record = ctx.host().run_plugins(plugin_facts(ctx));
    if (!record) {
      return CheckOutcome::skipped(ctx.host().source() == "snapshot"
                                       ? "this snapshot holds no plugin results (plugins run on live runs only)"
                                       : "plugins were not run");
    }
    const auto identity = ctx.host().identity();
    std::vector<Finding> findings;
    std::vector<std::string> looked_in;
    for (const auto& folder : record->value("folders", Json::array())) {
      looked_in.push_back(folder.value("path", ""));
      const auto state = folder.value("state", "");
      if (state == "unsafe") findings.push_back(unsafe_folder(folder, identity));
      if (state == "unreadable") findings.push_back(unreadable_folder(folder));
    }
    const auto builtin_ids = builtin_finding_ids();
    std::vector<Answered> ran;
    const auto plugins = record->value("plugins", Json::array());
    for (const auto& plugin : plugins) judge_plugin(plugin, *record, identity, builtin_ids, findings, ran);
    if (!ran.empty()) findings.push_back(plugins_ran(ran));
    if (findings.empty() && plugins.empty()) {
      return CheckOutcome::skipped("no site plugins installed (looked in " + join(looked_in, ", ") + ")");
    }
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::plugins_check

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::plugins_check::PluginsCheck)

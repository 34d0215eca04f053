// --fix-script: every fix of a report as one reviewable POSIX sh script.
//
// Commands are written exactly as the checks produced them (they are already
// shell-quoted); the script only orders them, drops repeats, guards appends so
// a second run adds nothing, and moves what ends the session (reboot, newgrp)
// or only makes sense in the user's own shell (export, unset) to the end, as
// comments. Free text (ids, summaries) goes only into comments, one line each.
#include <fmt/format.h>

#include <array>
#include <cctype>
#include <optional>
#include <set>

#include "fix/command_kinds.h"
#include "render/formats.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

// The order fixes must run in: the platform before packages, packages before
// the driver, the driver before GPU settings and device access.
enum class Phase { platform, packages, driver, configuration, access };

struct PhaseInfo {
  Phase phase;
  std::string_view title;
  std::vector<std::string_view> prefixes;  // finding id prefixes ("driver" for "driver.x")
};

const std::array<PhaseInfo, 5>& phases() {
  static const std::array<PhaseInfo, 5> table = {{
      {Phase::platform, "Platform and kernel", {"os", "platform", "kernel"}},
      {Phase::packages, "ROCm packages", {"packages", "pkg", "rocm"}},
      {Phase::driver, "Kernel driver", {"driver", "amdgpu", "dkms"}},
      {Phase::configuration, "GPU and library configuration", {}},
      {Phase::access, "Device access (groups, udev)", {"access"}},
  }};
  return table;
}

Phase phase_of(std::string_view finding_id) {
  const auto prefix = finding_id.substr(0, finding_id.find('.'));
  for (const auto& info : phases()) {
    for (const auto candidate : info.prefixes) {
      if (candidate == prefix) return info.phase;
    }
  }
  return Phase::configuration;
}

// Free text for a comment: one line, no control characters.
std::string comment(std::string_view text) {
  std::string out;
  for (const char c : text) out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c;
  return out;
}

// Splits a command into words when it is made only of plain words,
// single-quoted strings and `\'`, as shell_quote writes them; operators are
// words of their own. nullopt for anything else (it is then left alone).
std::optional<std::vector<std::string>> simple_words(std::string_view command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (c == ' ') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else if (c == '\'') {
      const auto end = command.find('\'', i + 1);
      if (end == std::string_view::npos) return std::nullopt;
      word += command.substr(i, end - i + 1);
      i = end;
      in_word = true;
    } else if (c == '\\' && i + 1 < command.size() && command[i + 1] == '\'') {
      word += "\\'";
      ++i;
      in_word = true;
    } else if (std::isalnum(static_cast<unsigned char>(c)) != 0 ||
               std::string_view("@%+=:,./_->~").find(c) != std::string_view::npos) {
      word += c;
      in_word = true;
    } else {
      return std::nullopt;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

// `echo LINE >> FILE` becomes idempotent: nothing is appended when FILE
// already has LINE. The same quoted words are reused, never re-quoted.
std::string idempotent(const std::string& command) {
  const auto words = simple_words(command);
  if (!words || words->size() != 4 || (*words)[0] != "echo" || (*words)[2] != ">>") return command;
  const auto& line = (*words)[1];
  const auto& file = (*words)[3];
  return fmt::format("grep -qxF -- {} {} 2>/dev/null || {}", line, file, command);
}

bool is_reboot(std::string_view command) {
  return command_kind(command) == CommandKind::reboot;
}

// What a script cannot do for the user's session.
bool is_session_only(std::string_view command) {
  return command_kind(command) == CommandKind::session;
}

struct Step {
  const Finding* finding;
  const Fix* fix;
};

}  // namespace

std::string render_fix_script(const Report& report) {
  std::array<std::vector<Step>, 5> steps;
  for (const auto& check : report.checks) {
    for (const auto& finding : check.findings) {
      if (finding.severity < Severity::warning) continue;
      for (const auto& fix : finding.fixes) {
        steps[static_cast<std::size_t>(phase_of(finding.id))].push_back({&finding, &fix});
      }
    }
  }

  std::string out = "#!/bin/sh\n";
  out += "# rocm-doctor fix script" +
         (report.host.hostname.empty() ? std::string() : " for " + comment(report.host.hostname)) + ", from the " +
         comment(report.source) + " run of " + comment(report.generated_at) + " (rocm-doctor " +
         comment(report.tool_version) + ").\n";
  out +=
      "# Review every line before running it: rocm-doctor never runs it.\n"
      "# Run it as your own user; commands that need root call sudo themselves.\n"
      "# Steps run in dependency order and stop at the first failure (set -eu).\n"
      "set -eu\n";

  std::set<std::string> done;
  std::vector<std::string> session;  // commented: for the user's own shell
  std::vector<std::string> after_reboot;
  bool reboot = false;
  bool relogin = false;
  int number = 0;
  for (std::size_t p = 0; p < steps.size(); ++p) {
    if (steps[p].empty()) continue;
    out += fmt::format("\n# ===== {}. {} =====\n", ++number, phases()[p].title);
    for (const auto& [finding, fix] : steps[p]) {
      out += fmt::format("\n# [{}] {}: {}\n", to_string(finding->severity), comment(finding->id),
                         comment(finding->summary));
      out += "# Fix: " + comment(fix->description) + (fix->needs_root ? " (needs root)" : "") + "\n";
      relogin = relogin || fix->needs_relogin;
      bool rebooted = false;
      int written = 0;
      for (const auto& command : fix->commands) {
        if (is_reboot(command)) {
          reboot = rebooted = true;
          continue;
        }
        if (rebooted) {
          after_reboot.push_back(command);
        } else if (is_session_only(command)) {
          session.push_back(command);
        } else if (done.insert(command).second) {
          out += idempotent(command) + "\n";
          ++written;
        } else {
          out += "# (already done above: " + comment(command) + ")\n";
        }
      }
      if (written == 0 && !fix->commands.empty()) out += ":  # nothing to run here; see the end of the script\n";
      if (fix->commands.empty()) out += "# (no command: follow the description above)\n";
      if (!fix->verify.empty()) out += "# Verify afterwards: " + comment(fix->verify) + "\n";
      if (fix->needs_reboot) reboot = true;
    }
  }
  if (number == 0) {
    out += "\necho 'rocm-doctor: nothing to fix'\n";
    return out;
  }

  out += "\n# ===== Finally =====\n";
  for (const auto& command : session) out += "# In your own shell: " + comment(command) + "\n";
  if (relogin) out += "# Log out and back in (group and environment changes apply to new logins only).\n";
  if (reboot) {
    out += "# Reboot to load the new kernel, driver or settings: sudo reboot\n";
    for (const auto& command : after_reboot) out += "# After the reboot: " + comment(command) + "\n";
  }
  out += "echo 'rocm-doctor: fixes applied";
  if (reboot) out += "; reboot now (sudo reboot)";
  if (relogin && !reboot) out += "; log out and back in";
  out += ", then run rocm-doctor again'\n";
  return out;
}

}  // namespace rocm_doctor

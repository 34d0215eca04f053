// `wsl`: the Windows side's versions. ROCm on WSL is listed for Windows 11
// only; the optional interop probe asks Windows (`cmd.exe /c ver`,
// `wsl.exe --version`), and without it the WSL kernel still tells: the
// inbox kernel of Windows 10 (5.10.16.3) means a Windows 10 host that never
// ran `wsl --update`.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "rocm_doctor/kb.h"
#include "rocm_doctor/system_facts.h"
#include "rocm_doctor/text.h"
#include "wsl.h"

namespace rocm_doctor::wsl {

namespace {

// The value after a line's label: after an ASCII ':' or a full-width '：' (U+FF1A).
std::string line_value(std::string_view line) {
  auto at = line.find(':');
  std::size_t skip = 1;
  if (const auto wide = line.find("\xef\xbc\x9a"); wide != std::string_view::npos && wide < at) {
    at = wide;
    skip = 3;
  }
  if (at == std::string_view::npos) return std::string(trim(line));
  return std::string(trim(line.substr(at + skip)));
}

struct WindowsVersion {
  std::string version;  // "10.0.19045.6456"
  std::string source;   // "cmd.exe /c ver", "wsl.exe --version"
};

// The interop probe's answers: the Windows version, the WSL version and kernel.
struct InteropAnswer {
  std::optional<WindowsVersion> windows;
  WslVersionText wsl;
  std::string status;  // why nothing came back
};

std::string command_text(const nlohmann::json& result, const char* key) {
  const auto it = result.find(key);
  if (it == result.end() || !it->is_object() || it->value("status", std::string()) != "ok") return {};
  return it->value("stdout", std::string());
}

InteropAnswer interop_answer(const Host& host) {
  InteropAnswer answer;
  const auto outcome = host.probe("wsl-interop");
  if (!outcome || !outcome->is_object()) {
    answer.status = "not asked (interop off, --level quick, --image, or a snapshot without it)";
    return answer;
  }
  const auto it = outcome->find("result");
  if (it == outcome->end() || !it->is_object()) {
    answer.status = "no answer (" + outcome->value("status", std::string("unknown")) + ")";
    return answer;
  }
  const auto ver = command_text(*it, "cmd_ver");
  const auto wsl_text = command_text(*it, "wsl_version");
  answer.wsl = parse_wsl_version(wsl_text);
  if (const auto build = windows_build_in(ver)) {
    answer.windows = WindowsVersion{*build, "cmd.exe /c ver"};
  } else if (const auto from_wsl = windows_build_in(answer.wsl.windows)) {
    answer.windows = WindowsVersion{*from_wsl, "wsl.exe --version"};
  }
  if (!answer.windows && answer.wsl.wsl.empty()) answer.status = "Windows did not answer (cmd.exe, wsl.exe)";
  return answer;
}

Fix update_fix() {
  return make_fix(kCheckId,
                  "ROCm on WSL is listed for Windows 11 only: upgrade Windows, then update WSL's kernel and restart "
                  "it, in PowerShell on Windows:",
                  {"wsl --update", "wsl --shutdown"});
}

std::optional<Finding> old_windows(const WindowsVersion& windows, unsigned build) {
  if (build >= data().windows_min_build) return std::nullopt;
  return make_finding("wsl.windows-too-old", Severity::error,
                      fmt::format("Windows {} (build {}) hosts this WSL: ROCm on WSL needs {}", windows.version, build,
                                  data().windows_name))
      .because(fmt::format("AMD lists {} (build {} and newer) as the host of ROCm on WSL; on Windows 10 rocminfo "
                           "fails with HSA_STATUS_ERROR_OUT_OF_RESOURCES whatever the driver.",
                           data().windows_name, data().windows_min_build))
      .with_evidence(windows.source, windows.version)
      .with_evidence("source", data().windows_source)
      .with_fix(update_fix());
}

std::optional<Finding> old_kernel(const std::string& kernel) {
  const bool inbox =
      std::find(data().inbox_kernels.begin(), data().inbox_kernels.end(), kernel) != data().inbox_kernels.end();
  if (inbox) {
    return make_finding("wsl.windows-too-old", Severity::error,
                        fmt::format("WSL kernel {} is the inbox kernel of Windows 10: ROCm on WSL needs {}", kernel,
                                    data().windows_name))
        .because(fmt::format("This kernel ships with Windows 10's built-in WSL and is replaced by `wsl --update`; "
                             "ROCm on WSL is listed for {} with an updated WSL.",
                             data().windows_name))
        .with_evidence("/proc/sys/kernel/osrelease", kernel)
        .with_evidence("source", data().inbox_kernels_source)
        .with_fix(update_fix());
  }
  if (!kb::version_less(kernel, data().min_kernel)) return std::nullopt;
  return make_finding("wsl.windows-too-old", Severity::warning,
                      fmt::format("WSL kernel {} is older than {}, the oldest seen running ROCm on WSL", kernel,
                                  data().min_kernel))
      .because(data().min_kernel_note)
      .with_evidence("/proc/sys/kernel/osrelease", kernel)
      .with_fix(make_fix(kCheckId, "Update WSL's kernel and restart it, in PowerShell on Windows:",
                         {"wsl --update", "wsl --shutdown"}));
}

}  // namespace

std::optional<std::string> windows_build_in(std::string_view text) {
  for (std::size_t at = text.find("10.0."); at != std::string_view::npos; at = text.find("10.0.", at + 1)) {
    if (at > 0 && (std::isdigit(static_cast<unsigned char>(text[at - 1])) != 0 || text[at - 1] == '.')) continue;
    auto end = at + 5;
    while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) != 0 || text[end] == '.')) ++end;
    auto version = std::string(text.substr(at, end - at));
    while (!version.empty() && version.back() == '.') version.pop_back();
    if (windows_build_number(version)) return version;
  }
  return std::nullopt;
}

std::optional<unsigned> windows_build_number(std::string_view version) {
  const auto parts = kb::version_numbers(version);
  if (parts.size() < 3 || parts[0] != 10 || parts[1] != 0 || parts[2] <= 0) return std::nullopt;
  return static_cast<unsigned>(parts[2]);
}

WslVersionText parse_wsl_version(std::string_view text) {
  WslVersionText parsed;
  std::vector<std::string> values;
  for (const auto& line : lines(text)) {
    if (trim(line).empty()) continue;
    values.push_back(line_value(line));
    // The last such line: DXCore's own version ("10.0.26100.1-240331...") comes before Windows'.
    if (windows_build_in(values.back())) parsed.windows = values.back();
  }
  // The labels are translated ("WSL 版本"); the order is not: WSL, kernel, WSLg, MSRDC, Direct3D, DXCore, Windows.
  if (!values.empty() && !kb::version_numbers(values[0]).empty()) parsed.wsl = values[0];
  if (values.size() > 1 && !kb::version_numbers(values[1]).empty()) parsed.kernel = values[1];
  return parsed;
}

std::optional<Finding> windows_finding(const CheckContext& ctx, std::vector<Evidence>& ok_evidence) {
  const auto& facts = ctx.fact<SystemFacts>();
  const auto answer = interop_answer(ctx.host());
  if (answer.windows) {
    if (const auto build = windows_build_number(answer.windows->version)) {
      if (auto finding = old_windows(*answer.windows, *build)) {
        if (!answer.wsl.wsl.empty()) finding->with_evidence("wsl.exe --version", "WSL " + answer.wsl.wsl);
        finding->with_evidence("/proc/sys/kernel/osrelease", facts.kernel_release);
        return finding;
      }
    }
    ok_evidence.push_back({answer.windows->source, answer.windows->version});
  } else {
    ok_evidence.push_back({"Windows interop", answer.status});
  }
  if (!answer.wsl.wsl.empty()) ok_evidence.push_back({"wsl.exe --version", "WSL " + answer.wsl.wsl});
  if (auto finding = old_kernel(facts.kernel_release)) return finding;
  ok_evidence.push_back({"/proc/sys/kernel/osrelease", facts.kernel_release});
  return std::nullopt;
}

}  // namespace rocm_doctor::wsl

#include "probe/wsl_interop_probe.h"

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "probe/child_process.h"
#include "rocm_doctor/wsl_table.h"

namespace rocm_doctor::probe {

namespace {

constexpr std::size_t kOutputLimit = 16 * 1024;

void append_utf8(std::string& out, std::uint32_t code) {
  if (code < 0x80) {
    out.push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (code >> 6)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
  } else if (code < 0x10000) {
    out.push_back(static_cast<char>(0xe0 | (code >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xf0 | (code >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
  }
}

bool looks_utf16le(std::string_view bytes) {
  if (bytes.size() < 2) return false;
  std::size_t zeros = 0;
  for (std::size_t i = 1; i < bytes.size(); i += 2) zeros += bytes[i] == '\0' ? 1 : 0;
  return zeros * 2 >= bytes.size() / 2;  // at least half the odd bytes are NUL: ASCII-heavy UTF-16LE
}

nlohmann::json run_command(const std::string& program, std::vector<std::string> argv, std::chrono::milliseconds timeout,
                           const std::atomic<bool>* cancel) {
  nlohmann::json entry = {{"command", argv}};
  if (program.empty()) {
    entry["status"] = "not-found";
    return entry;
  }
  argv.front() = program;
  entry["command"] = argv;
  ChildOptions options;
  options.timeout = timeout;
  options.stdout_limit = kOutputLimit;
  options.stderr_tail = 2048;
  options.cancel = cancel;
  options.extra_env = {"WSL_UTF8=1"};  // wsl.exe: UTF-8 instead of UTF-16LE where it is honoured
  const auto child = run_child(argv, options);
  entry["elapsed_ms"] = child.elapsed.count();
  if (!child.started) {
    entry["status"] = "exec-failed";
    entry["error"] = child.exec_error;
    return entry;
  }
  entry["stdout"] = decode_windows_output(child.out);
  if (child.exit_code) entry["exit_code"] = *child.exit_code;
  if (child.timed_out || child.cancelled) {
    entry["status"] = "timeout";
    entry["timeout_ms"] = timeout.count();
  } else {
    entry["status"] = child.exit_code.value_or(-1) == 0 ? "ok" : "failed";
  }
  return entry;
}

}  // namespace

bool wsl_interop_enabled(const Host& host) {
  // The binfmt_misc entries are facts of checks/data/wsl.json (interop.binfmt); a broken
  // table plans no interop probe (the wsl check reports the table's error).
  const auto& table = wsl::load_table();
  if (!table) return false;
  for (const auto& path : table->interop_binfmt) {
    const auto text = host.read_file(path, 4096);
    if (text && text->rfind("enabled", 0) == 0) return true;
  }
  return false;
}

std::string decode_windows_output(std::string_view bytes) {
  if (!looks_utf16le(bytes)) return std::string(bytes);
  std::size_t start =
      bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0xff && static_cast<unsigned char>(bytes[1]) == 0xfe
          ? 2
          : 0;
  std::string out;
  for (std::size_t i = start; i + 1 < bytes.size(); i += 2) {
    std::uint32_t unit = static_cast<unsigned char>(bytes[i]) | (static_cast<unsigned char>(bytes[i + 1]) << 8);
    if (unit >= 0xd800 && unit < 0xdc00 && i + 3 < bytes.size()) {
      const std::uint32_t low =
          static_cast<unsigned char>(bytes[i + 2]) | (static_cast<unsigned char>(bytes[i + 3]) << 8);
      if (low >= 0xdc00 && low < 0xe000) {
        unit = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
        i += 2;
      }
    }
    if (unit == 0) continue;
    append_utf8(out, unit);
  }
  return out;
}

std::string find_windows_program(std::string_view name, std::string_view path_variable,
                                 std::string_view fallback_folder) {
  std::size_t start = 0;
  while (start <= path_variable.size()) {
    auto end = path_variable.find(':', start);
    if (end == std::string_view::npos) end = path_variable.size();
    const auto folder = path_variable.substr(start, end - start);
    if (!folder.empty() && folder.front() == '/') {
      auto candidate = std::string(folder) + "/" + std::string(name);
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    start = end + 1;
  }
  auto fallback = std::string(fallback_folder) + "/" + std::string(name);
  return ::access(fallback.c_str(), X_OK) == 0 ? fallback : std::string();
}

nlohmann::json run_wsl_interop_probe(std::chrono::milliseconds timeout, const std::atomic<bool>* cancel) {
  const auto begin = std::chrono::steady_clock::now();
  const char* path = std::getenv("PATH");
  const std::string path_variable = path != nullptr ? path : "";
  const auto& table = wsl::load_table();
  if (!table) return {{"status", "error"}, {"error", table.error()}, {"elapsed_ms", 0}};
  const auto& folder = table->interop_windows_folder;
  nlohmann::json result;
  result["cmd_ver"] =
      run_command(find_windows_program("cmd.exe", path_variable, folder), {"cmd.exe", "/c", "ver"}, timeout, cancel);
  result["wsl_version"] =
      run_command(find_windows_program("wsl.exe", path_variable, folder), {"wsl.exe", "--version"}, timeout, cancel);
  const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - begin);
  return {{"status", "ok"}, {"elapsed_ms", elapsed.count()}, {"result", std::move(result)}};
}

}  // namespace rocm_doctor::probe

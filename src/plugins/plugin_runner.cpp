#include "plugins/plugin_runner.h"

#include <spdlog/spdlog.h>
#include <string.h>

#include <algorithm>
#include <atomic>
#include <thread>

namespace rocm_doctor::plugins {

namespace {

constexpr std::size_t kStdoutHead = 512;

std::string signal_name(int signal) {
  if (const char* abbreviation = ::sigabbrev_np(signal)) return std::string("SIG") + abbreviation;
  return "signal " + std::to_string(signal);
}

// Length of the UTF-8 sequence starting at text[at], or 0 when it is invalid
// (overlong forms, surrogates and code points above U+10FFFF included).
std::size_t utf8_sequence(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char first = byte(at);
  if (first < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (first >= 0xC2 && first <= 0xDF) {
    length = 2;
  } else if (first >= 0xE0 && first <= 0xEF) {
    length = 3;
    if (first == 0xE0) low = 0xA0;
    if (first == 0xED) high = 0x9F;
  } else if (first >= 0xF0 && first <= 0xF4) {
    length = 4;
    if (first == 0xF0) low = 0x90;
    if (first == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  if (byte(at + 1) < low || byte(at + 1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(at + i) < 0x80 || byte(at + i) > 0xBF) return 0;
  }
  return length;
}

// "[json.exception.parse_error.101] parse error at line 1, ..." -> "parse error at line 1, ...".
std::string parse_error_text(const std::string& what) {
  const auto bracket = what.find("] ");
  return what.starts_with("[json.exception") && bracket != std::string::npos ? what.substr(bracket + 2) : what;
}

nlohmann::json run_one(const ScannedPlugin& plugin, const nlohmann::json& facts, const PluginRunOptions& options) {
  probe::ChildOptions child;
  child.timeout = options.timeout;
  child.stdout_limit = kStdoutLimit;
  child.stderr_tail = kStderrTail;
  child.extra_env = {"ROCM_DOCTOR_PLUGIN_PROTOCOL=" + std::to_string(kProtocol)};
  child.input = plugin_input(facts, plugin).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  spdlog::debug("plugin {}: running {} with input {}", plugin.name, plugin.path,
                std::string_view(*child.input).substr(0, child.input->size() - 1));
  auto outcome = plugin_run_outcome(probe::run_child({plugin.path}, child), options.timeout);
  spdlog::debug("plugin {}: {} in {} ms", plugin.name, outcome.value("status", ""), outcome.value("elapsed_ms", 0));
  return outcome;
}

}  // namespace

bool is_valid_utf8(std::string_view text) {
  for (std::size_t at = 0; at < text.size();) {
    const auto length = utf8_sequence(text, at);
    if (length == 0) return false;
    at += length;
  }
  return true;
}

std::string valid_utf8(std::string_view text) {
  std::string result;
  result.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    const auto length = utf8_sequence(text, at);
    if (length == 0) {
      result += "\xEF\xBF\xBD";
      ++at;
      continue;
    }
    result.append(text.substr(at, length));
    at += length;
  }
  return result;
}

nlohmann::json plugin_input(const nlohmann::json& facts, const ScannedPlugin& plugin) {
  auto input = facts;
  input["protocol"] = kProtocol;
  input["plugin"] = {{"name", plugin.name}, {"path", plugin.path}, {"id_prefix", "site." + plugin.name + "."}};
  return input;
}

nlohmann::json plugin_run_outcome(const probe::ChildResult& child, std::chrono::milliseconds timeout) {
  nlohmann::json outcome = {{"elapsed_ms", child.elapsed.count()}};
  if (!child.started) {
    outcome["status"] = "exec-failed";
    outcome["error"] = valid_utf8(child.exec_error);
    return outcome;
  }
  outcome["stderr_tail"] = valid_utf8(child.err_tail);
  outcome["stderr_bytes"] = child.err_bytes;
  if (child.exit_code) outcome["exit_code"] = *child.exit_code;
  if (child.signal) {
    outcome["signal"] = *child.signal;
    outcome["signal_name"] = signal_name(*child.signal);
  }
  const auto invalid = [&](std::string problem) {
    outcome["status"] = "invalid-output";
    outcome["problem"] = std::move(problem);
    outcome["stdout_head"] = valid_utf8(child.out.substr(0, kStdoutHead));
    return outcome;
  };
  if (child.timed_out || child.cancelled) {
    outcome["status"] = "timeout";
    outcome["timeout_ms"] = timeout.count();
    return outcome;
  }
  if (child.signal) {
    outcome["status"] = "crashed";
    return outcome;
  }
  if (child.exit_code.value_or(0) != 0) {
    outcome["status"] = "exit-code";
    outcome["stdout_head"] = valid_utf8(child.out.substr(0, kStdoutHead));
    return outcome;
  }
  if (child.out_truncated)
    return invalid("it wrote more than " + std::to_string(kStdoutLimit / 1024) + " KiB on stdout");
  if (!is_valid_utf8(child.out)) return invalid("its stdout is not UTF-8 text");
  if (child.out.find_first_not_of(" \t\r\n") == std::string::npos) return invalid("it printed nothing on stdout");
  try {
    outcome["output"] = nlohmann::json::parse(child.out);
  } catch (const nlohmann::json::parse_error& error) {
    return invalid("its stdout is not one JSON document (" + parse_error_text(error.what()) + ")");
  }
  outcome["status"] = "ok";
  return outcome;
}

nlohmann::json run_plugin_stage(const PluginScan& scan, const nlohmann::json& facts, const PluginRunOptions& options) {
  const auto runnable = scan.runnable();
  std::vector<nlohmann::json> outcomes(runnable.size());
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t i = next++; i < runnable.size(); i = next++) outcomes[i] = run_one(*runnable[i], facts, options);
  };
  std::vector<std::thread> threads;
  const auto count = std::min(std::max<std::size_t>(options.parallel, 1), runnable.size());
  for (std::size_t i = 0; i < count; ++i) threads.emplace_back(worker);
  for (auto& thread : threads) thread.join();

  nlohmann::json record = {{"protocol", kProtocol},
                           {"timeout_ms", options.timeout.count()},
                           {"folders", nlohmann::json::array()},
                           {"plugins", nlohmann::json::array()}};
  for (const auto& folder : scan.folders) record["folders"].push_back(folder_json(folder));
  std::size_t ran = 0;
  for (const auto& plugin : scan.plugins) {
    auto entry = plugin_json(plugin);
    if (plugin.state == PluginState::runnable) entry.update(outcomes[ran++]);
    record["plugins"].push_back(std::move(entry));
  }
  return record;
}

PluginLauncher make_plugin_launcher(std::vector<std::string> extra_folders, PluginRunOptions options) {
  return [extra_folders = std::move(extra_folders),
          options](const nlohmann::json& facts) -> std::optional<nlohmann::json> {
    const LiveHost machine;  // the scan reads this machine; only the record is kept
    return run_plugin_stage(scan_plugins(machine, extra_folders), facts, options);
  };
}

}  // namespace rocm_doctor::plugins

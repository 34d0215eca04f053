// The `kernel-log` check's pure parts: log formats, the pattern table, matching, grouping.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "kernel_log.h"
#include "rocm_doctor/data_table.h"
#include "rocm_doctor/text.h"
#include "rocm_doctor/text_case.h"

namespace rocm_doctor::kernel_log {

std::optional<LogLine> parse_kmsg_record(std::string_view line) {
  if (line.empty() || line.front() == ' ') return std::nullopt;  // dictionary continuation
  const auto semicolon = line.find(';');
  if (semicolon == std::string_view::npos) return std::nullopt;
  const auto fields = split(line.substr(0, semicolon), ',');
  if (fields.size() < 3 || !parse_uint(fields[0]) || !parse_uint(fields[1])) return std::nullopt;
  const auto micros = parse_uint(fields[2]);
  if (!micros) return std::nullopt;
  LogLine result;
  result.seconds = static_cast<double>(*micros) / 1e6;
  result.message = std::string(trim(line.substr(semicolon + 1)));
  return result;
}

namespace {

// "[   12.345678] rest" -> seconds and rest.
std::optional<std::pair<double, std::string_view>> bracket_time(std::string_view text) {
  if (!text.starts_with('[')) return std::nullopt;
  const auto close = text.find(']');
  if (close == std::string_view::npos) return std::nullopt;
  const auto stamp = trim(text.substr(1, close - 1));
  const auto dot = stamp.find('.');
  const auto whole = parse_uint(stamp.substr(0, dot));
  if (!whole) return std::nullopt;
  double seconds = static_cast<double>(*whole);
  if (dot != std::string_view::npos) {
    const auto fraction = stamp.substr(dot + 1);
    const auto digits = parse_uint(fraction);
    if (!digits) return std::nullopt;
    double scale = 1;
    for (std::size_t i = 0; i < fraction.size(); ++i) scale *= 10;
    seconds += static_cast<double>(*digits) / scale;
  }
  return std::pair{seconds, trim(text.substr(close + 1))};
}

Severity severity_of(const std::string& priority) {
  if (priority == "critical" || priority == "high") return Severity::error;
  if (priority == "medium" || priority == "low") return Severity::warning;
  if (priority == "info") return Severity::info;
  throw std::invalid_argument("kernel_log.json: unknown priority '" + priority + "'");
}

}  // namespace

std::optional<LogLine> parse_syslog_line(std::string_view line) {
  auto text = trim(line);
  if (text.empty()) return std::nullopt;
  if (!text.starts_with('[')) {
    // syslog prefix: "<date> <host> kernel: " (traditional or ISO date)
    const auto marker = text.find(" kernel: ");
    if (marker == std::string_view::npos) return std::nullopt;
    text = trim(text.substr(marker + 9));
  }
  LogLine result;
  if (const auto timed = bracket_time(text)) {
    result.seconds = timed->first;
    text = timed->second;
  }
  result.message = std::string(text);
  return result;
}

std::vector<LogLine> parse_log(std::string_view text, Format format) {
  std::vector<LogLine> result;
  for (const auto line : lines(text)) {
    auto parsed = format == Format::kmsg ? parse_kmsg_record(line) : parse_syslog_line(line);
    if (!parsed) continue;
    if (format == Format::syslog && parsed->message.starts_with("Linux version ")) result.clear();
    result.push_back(std::move(*parsed));
  }
  return result;
}

namespace {

// Throws (a nlohmann::json exception, std::invalid_argument) on a malformed row.
Table kernel_log_table_from(const nlohmann::json& fixes, const nlohmann::json& findings,
                            const nlohmann::json& patterns) {
  Table table;
  for (const auto& [key, text] : fixes.items()) table.fixes[key] = text.get<std::string>();
  for (const auto& [id, row] : findings.items()) {
    table.findings[id] = {row.at("summary").get<std::string>()};
  }
  for (const auto& row : patterns) {
    Pattern pattern;
    pattern.id = row.at("id").get<std::string>();
    pattern.category = row.at("category").get<std::string>();
    pattern.priority = row.at("priority").get<std::string>();
    pattern.finding = row.at("finding").get<std::string>();
    pattern.fix = row.at("fix").get<std::string>();
    pattern.all = row.at("all").get<std::vector<std::string>>();
    pattern.severity = severity_of(pattern.priority);
    pattern.meaning = row.value("meaning", "");
    if (row.contains("sample") && row.at("sample").is_string()) pattern.sample = row.at("sample").get<std::string>();
    if (pattern.all.empty()) throw std::invalid_argument("kernel_log.json: pattern " + pattern.id + " matches all");
    if (!table.fixes.contains(pattern.fix))
      throw std::invalid_argument("kernel_log.json: pattern " + pattern.id + " names unknown fix " + pattern.fix);
    if (!table.findings.contains(pattern.finding))
      throw std::invalid_argument("kernel_log.json: pattern " + pattern.id + " names unknown finding " +
                                  pattern.finding);
    table.patterns.push_back(std::move(pattern));
  }
  return table;
}

tl::expected<Table, std::string> read_kernel_log_table(data_table::TableReader& reader) {
  auto fixes = reader.at("fixes");
  if (!fixes) return tl::unexpected(fixes.error());
  auto findings = reader.at("findings");
  if (!findings) return tl::unexpected(findings.error());
  auto patterns = reader.at("patterns");
  if (!patterns) return tl::unexpected(patterns.error());
  return data_table::read_catching(reader, [&](data_table::TableReader&) {
    return kernel_log_table_from(fixes->get(), findings->get(), patterns->get());
  });
}

constexpr std::string_view kKernelLogFile = "kernel_log.json";

[[maybe_unused]] const bool kKernelLogLoaderRegistered =
    data_table::register_table_loader<Table, &read_kernel_log_table>(kKernelLogFile);

}  // namespace

Table parse_table(std::string_view json_text) {
  return data_table::read_text_or_throw<Table, &read_kernel_log_table>(kKernelLogFile, json_text);
}

// Parsed once per table text (the loader's cache): the check runs once per report, but
// fleet and benchmark runs replay thousands of snapshots.
const Table& table() {
  return data_table::require(data_table::load<Table, &read_kernel_log_table>(kKernelLogFile));
}

std::vector<Pattern> parse_patterns(std::string_view json_text) {
  return parse_table(json_text).patterns;
}

const std::vector<Pattern>& patterns() {
  return table().patterns;
}

const Pattern* match(std::string_view message, const std::vector<Pattern>& list) {
  for (const auto& pattern : list) {
    if (std::all_of(pattern.all.begin(), pattern.all.end(),
                    [&](const std::string& part) { return message.find(part) != std::string_view::npos; })) {
      return &pattern;
    }
  }
  return nullptr;
}

std::optional<std::string> missing_firmware(std::string_view message) {
  constexpr std::string_view kPrefix = "Direct firmware load for ";
  const auto start = message.find(kPrefix);
  if (start == std::string_view::npos) return std::nullopt;
  const auto rest = message.substr(start + kPrefix.size());
  const auto end = rest.find(" failed with error");
  if (end == std::string_view::npos || end == 0) return std::nullopt;
  const auto name = rest.substr(0, end);
  if (!name.starts_with("amdgpu/") || name.find("..") != std::string_view::npos) return std::nullopt;
  return std::string(name);
}

namespace {

bool hex_digits(std::string_view text, std::size_t at, std::size_t count) {
  if (at + count > text.size()) return false;
  return std::all_of(text.begin() + static_cast<std::ptrdiff_t>(at),
                     text.begin() + static_cast<std::ptrdiff_t>(at + count),
                     [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

}  // namespace

// "dddd:bb:dd.f" with hex digits and a function 0-7, not inside a longer hex run.
std::vector<std::string> pci_addresses(std::string_view message) {
  std::vector<std::string> found;
  constexpr std::size_t kLength = 12;
  for (std::size_t i = 0; i + kLength <= message.size(); ++i) {
    if (i > 0 && std::isxdigit(static_cast<unsigned char>(message[i - 1])) != 0) continue;
    if (!hex_digits(message, i, 4) || message[i + 4] != ':' || !hex_digits(message, i + 5, 2) ||
        message[i + 7] != ':' || !hex_digits(message, i + 8, 2) || message[i + 10] != '.' || message[i + 11] < '0' ||
        message[i + 11] > '7')
      continue;
    if (i + kLength < message.size() && std::isxdigit(static_cast<unsigned char>(message[i + kLength])) != 0) continue;
    auto address = lower(message.substr(i, kLength));
    if (std::find(found.begin(), found.end(), address) == found.end()) found.push_back(std::move(address));
  }
  return found;
}

std::vector<Group> group_lines(const std::vector<LogLine>& lines) {
  std::vector<Group> groups;
  std::map<std::string, std::size_t> index;
  for (const auto& line : lines) {
    const auto [it, inserted] = index.emplace(line.message, groups.size());
    if (inserted) groups.push_back({line.message, 0, line.seconds, line.seconds});
    auto& group = groups[it->second];
    ++group.count;
    if (line.seconds) group.last_seconds = line.seconds;
  }
  return groups;
}

namespace {

std::string stamp(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "[%12.6f]", seconds);
  return text;
}

}  // namespace

std::string quote(const Group& group, std::size_t max_chars) {
  std::string text = group.first_seconds ? stamp(*group.first_seconds) + " " : "";
  text += group.message;
  if (text.size() > max_chars) text = text.substr(0, max_chars - 3) + "...";
  if (group.count > 1) {
    text += " (x" + std::to_string(group.count);
    if (group.last_seconds && group.last_seconds != group.first_seconds) text += ", last " + stamp(*group.last_seconds);
    text += ")";
  }
  return text;
}

std::vector<LogLine> since(std::vector<LogLine> lines, std::optional<double> start) {
  if (!start) return lines;
  std::erase_if(lines, [&](const LogLine& line) { return line.seconds && *line.seconds < *start; });
  return lines;
}

}  // namespace rocm_doctor::kernel_log

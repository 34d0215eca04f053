// Pure parsers of the `kernel-log` check: /dev/kmsg records, dmesg/syslog lines, the
// amdgpu/KFD/PCIe failure patterns (checks/data/kernel_log.json, parsed once) and the
// grouping of repeats by pattern and GPU.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/finding.h"

namespace rocm_doctor::kernel_log {

inline constexpr std::string_view kCheckId = "kernel-log";

struct LogLine {
  std::optional<double> seconds;  // since boot, when the line carries it
  std::string message;            // without priority, timestamps or syslog prefix
};

// /dev/kmsg record "6,1234,5678901,-;amdgpu ...": seconds from the microseconds field.
// Continuation lines (" SUBSYSTEM=pci") and garbage give nullopt.
std::optional<LogLine> parse_kmsg_record(std::string_view line);

// A dmesg or syslog line: "[   12.345678] msg", "Nov 30 07:00:01 host kernel: [   12.345678] msg",
// "2024-11-30T07:00:01.123456+00:00 host kernel: msg". Lines not from the kernel give nullopt.
std::optional<LogLine> parse_syslog_line(std::string_view line);

enum class Format { kmsg, syslog };
// Parses a whole log. For syslog files only the current boot counts: the lines after the
// last "Linux version" banner (older boots' failures are history).
std::vector<LogLine> parse_log(std::string_view text, Format format);

struct Pattern {
  std::string id;
  std::string category;                   // ras, reset, pcie, firmware, memory, thermal, init, kfd
  std::string priority;                   // critical, high, medium, low, info
  std::string finding;                    // the finding id it raises
  std::string fix;                        // a key of Table::fixes
  std::vector<std::string> all;           // every string must occur
  Severity severity = Severity::warning;  // from the priority
  std::string meaning;
  std::optional<std::string> sample;  // a real log line it matches
};

struct FindingInfo {
  std::string summary;  // its impact is in checks/data/finding_impact.json, like every finding's
};

struct Table {
  std::vector<Pattern> patterns;
  std::map<std::string, std::string> fixes;
  std::map<std::string, FindingInfo> findings;  // by finding id
};

// Throws nlohmann::json::exception on a malformed table, std::invalid_argument on a pattern
// naming an unknown fix or finding, or a priority outside the list.
Table parse_table(std::string_view json_text);
const Table& table();  // compiled in, parsed once
std::vector<Pattern> parse_patterns(std::string_view json_text);
const std::vector<Pattern>& patterns();

// The first pattern a message matches.
const Pattern* match(std::string_view message, const std::vector<Pattern>& list);

// "Direct firmware load for amdgpu/gc_11_0_0_mes_2.bin failed with error -2" -> "amdgpu/gc_11_0_0_mes_2.bin".
std::optional<std::string> missing_firmware(std::string_view message);

// Every PCI address ("0000:03:00.0", lower case) in a message, in order, without repeats.
std::vector<std::string> pci_addresses(std::string_view message);

// Lines grouped by a key in first-seen order: how often, first and last time, the first message.
struct Group {
  std::string message;
  std::size_t count = 0;
  std::optional<double> first_seconds;
  std::optional<double> last_seconds;
};
// Identical messages grouped.
std::vector<Group> group_lines(const std::vector<LogLine>& lines);

// "[   12.345678] msg (x3, last [  99.000000])" style quote, the message cut to `max_chars`.
std::string quote(const Group& group, std::size_t max_chars = 200);

// The lines at or after `start` seconds since boot; lines without a time are kept (a syslog
// line with a date only: the window cannot place it, and dropping it could hide a failure).
std::vector<LogLine> since(std::vector<LogLine> lines, std::optional<double> start);

}  // namespace rocm_doctor::kernel_log

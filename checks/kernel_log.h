// Pure parsers of the `kernel-log` check: /dev/kmsg records, dmesg/syslog lines,
// the amdgpu failure patterns (checks/data/kernel_log.json) and grouping.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/finding.h"

namespace rocm_doctor::kernel_log {

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
  std::vector<std::string> all;  // every string must occur
  Severity severity = Severity::warning;
  std::string meaning;
};
std::vector<Pattern> parse_patterns(std::string_view json_text);
const std::vector<Pattern>& patterns();  // compiled in

// The first pattern a message matches.
const Pattern* match(std::string_view message, const std::vector<Pattern>& list);

// "Direct firmware load for amdgpu/gc_11_0_0_mes_2.bin failed with error -2" -> "amdgpu/gc_11_0_0_mes_2.bin".
std::optional<std::string> missing_firmware(std::string_view message);

// Identical messages grouped in first-seen order.
struct Group {
  std::string message;
  std::size_t count = 0;
  std::optional<double> first_seconds;
};
std::vector<Group> group_lines(const std::vector<LogLine>& lines);

// "[   12.345678] msg (x3)" style quote, cut to `max_chars`.
std::string quote(const Group& group, std::size_t max_chars = 200);

}  // namespace rocm_doctor::kernel_log

// The kernel log's time window (--since): since boot, the last N seconds/minutes/hours/days,
// or since an RFC 3339 time. Parsed by the CLI (a bad value is a usage error) and by the
// kernel-log check, which turns it into seconds since boot with the machine's uptime or boot time.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rocm_doctor {

struct LogWindow {
  enum class Kind { boot, last, after };
  Kind kind = Kind::boot;
  double seconds = 0;  // last: the duration; after: the Unix time
};

// "", "boot" -> since boot; "90s", "30m", "24h", "7d" -> the last N; "2026-11-30T07:00:00Z" or
// "2026-11-30T09:00:00+02:00" (also with a space instead of T) -> after that time. Else nullopt.
std::optional<LogWindow> parse_log_window(std::string_view text);

// The window's start in seconds since boot, from /proc/uptime's first field (for `last`) or
// /proc/stat's btime (for `after`); nullopt: every line since boot counts (kind boot, or the
// needed clock is unknown). A start before boot is 0.
std::optional<double> window_start(const LogWindow& window, std::optional<double> uptime_seconds,
                                   std::optional<double> boot_unix_time);

// "since boot", "the last 24h" or "since 2026-11-30T07:00:00Z": for the report's words.
std::string describe(const LogWindow& window, std::string_view original);

// The run's --since text, set once by the CLI before the checks run ("" = since boot); the
// kernel-log check reads it. Process-wide like the check registry: one run per process.
void set_kernel_log_since(std::string text);
const std::string& kernel_log_since();

}  // namespace rocm_doctor

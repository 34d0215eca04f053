// The kernel log's --since window (rocm_doctor/log_window.h).
#include "rocm_doctor/log_window.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <ctime>

namespace rocm_doctor {

namespace {

std::optional<long long> number(std::string_view text) {
  long long value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < 0) return std::nullopt;
  return value;
}

// "24h" -> 86400 seconds.
std::optional<double> duration(std::string_view text) {
  if (text.size() < 2) return std::nullopt;
  const auto value = number(text.substr(0, text.size() - 1));
  if (!value) return std::nullopt;
  switch (text.back()) {
    case 's': return static_cast<double>(*value);
    case 'm': return static_cast<double>(*value) * 60;
    case 'h': return static_cast<double>(*value) * 3600;
    case 'd': return static_cast<double>(*value) * 86400;
    default: return std::nullopt;
  }
}

std::optional<int> digits(std::string_view text, std::size_t at, std::size_t count) {
  if (at + count > text.size()) return std::nullopt;
  int value = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (std::isdigit(static_cast<unsigned char>(text[i])) == 0) return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

// "YYYY-MM-DDTHH:MM:SS" then "Z" or "+HH:MM"/"-HH:MM" (fractions of a second are ignored).
std::optional<double> rfc3339(std::string_view text) {
  const auto year = digits(text, 0, 4), month = digits(text, 5, 2), day = digits(text, 8, 2);
  const auto hour = digits(text, 11, 2), minute = digits(text, 14, 2), second = digits(text, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second || text.size() < 20) return std::nullopt;
  if (text[4] != '-' || text[7] != '-' || (text[10] != 'T' && text[10] != ' ') || text[13] != ':' || text[16] != ':')
    return std::nullopt;
  if (*month < 1 || *month > 12 || *day < 1 || *day > 31 || *hour > 23 || *minute > 59 || *second > 60)
    return std::nullopt;
  std::size_t at = 19;
  if (text[at] == '.') {
    ++at;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])) != 0) ++at;
  }
  auto zone = text.substr(at);
  long offset = 0;
  if (zone == "Z" || zone == "z") {
    offset = 0;
  } else if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && zone[3] == ':') {
    const auto zh = digits(zone, 1, 2), zm = digits(zone, 4, 2);
    if (!zh || !zm || *zh > 23 || *zm > 59) return std::nullopt;
    offset = (*zh * 3600L + *zm * 60L) * (zone[0] == '+' ? 1 : -1);
  } else {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = *year - 1900;
  tm.tm_mon = *month - 1;
  tm.tm_mday = *day;
  tm.tm_hour = *hour;
  tm.tm_min = *minute;
  tm.tm_sec = *second;
  return static_cast<double>(timegm(&tm) - offset);
}

}  // namespace

std::optional<LogWindow> parse_log_window(std::string_view text) {
  if (text.empty() || text == "boot") return LogWindow{};
  if (const auto seconds = duration(text)) return LogWindow{LogWindow::Kind::last, *seconds};
  if (const auto time = rfc3339(text)) return LogWindow{LogWindow::Kind::after, *time};
  return std::nullopt;
}

std::optional<double> window_start(const LogWindow& window, std::optional<double> uptime_seconds,
                                   std::optional<double> boot_unix_time) {
  switch (window.kind) {
    case LogWindow::Kind::boot: return std::nullopt;
    case LogWindow::Kind::last:
      if (!uptime_seconds) return std::nullopt;
      return std::max(0.0, *uptime_seconds - window.seconds);
    case LogWindow::Kind::after:
      if (!boot_unix_time) return std::nullopt;
      return std::max(0.0, window.seconds - *boot_unix_time);
  }
  return std::nullopt;
}

std::string describe(const LogWindow& window, std::string_view original) {
  switch (window.kind) {
    case LogWindow::Kind::boot: return "since boot";
    case LogWindow::Kind::last: return "in the last " + std::string(original);
    case LogWindow::Kind::after: return "since " + std::string(original);
  }
  return "since boot";
}

namespace {

std::string& since_text() {
  static std::string text;
  return text;
}

}  // namespace

void set_kernel_log_since(std::string text) {
  since_text() = std::move(text);
}

const std::string& kernel_log_since() {
  return since_text();
}

}  // namespace rocm_doctor

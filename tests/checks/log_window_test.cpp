// --since: the kernel-log window's forms and how it becomes seconds since boot.
#include "rocm_doctor/log_window.h"

#include <gtest/gtest.h>

namespace rocm_doctor {
namespace {

TEST(LogWindow, Forms) {
  EXPECT_EQ(parse_log_window("")->kind, LogWindow::Kind::boot);
  EXPECT_EQ(parse_log_window("boot")->kind, LogWindow::Kind::boot);
  EXPECT_EQ(parse_log_window("90s")->seconds, 90);
  EXPECT_EQ(parse_log_window("30m")->seconds, 1800);
  EXPECT_EQ(parse_log_window("24h")->seconds, 86400);
  EXPECT_EQ(parse_log_window("7d")->seconds, 7 * 86400);
  EXPECT_EQ(parse_log_window("2026-11-30T07:00:00Z")->kind, LogWindow::Kind::after);
  EXPECT_EQ(parse_log_window("2026-11-30T07:00:00Z")->seconds, 1796022000);
  EXPECT_EQ(parse_log_window("2026-11-30T09:00:00.25+02:00")->seconds, 1796022000);
  EXPECT_EQ(parse_log_window("2026-11-30 06:00:00-01:00")->seconds, 1796022000);
  for (const auto* bad : {"yesterday", "24", "h", "-5m", "24H", "2026-13-01T00:00:00Z", "2026-11-30T07:00:00",
                          "2026-11-30T07:00:00+2", "1.5h"}) {
    EXPECT_FALSE(parse_log_window(bad).has_value()) << bad;
  }
}

TEST(LogWindow, StartInSecondsSinceBoot) {
  const auto last = *parse_log_window("1h");
  EXPECT_EQ(window_start(last, 7200.0, std::nullopt), 3600.0);
  EXPECT_EQ(window_start(last, 600.0, std::nullopt), 0.0);  // booted less than an hour ago
  EXPECT_EQ(window_start(last, std::nullopt, 1.0), std::nullopt);
  const auto after = *parse_log_window("2026-11-30T07:00:00Z");
  EXPECT_EQ(window_start(after, std::nullopt, 1796022000.0 - 500), 500.0);
  EXPECT_EQ(window_start(after, std::nullopt, std::nullopt), std::nullopt);
  EXPECT_EQ(window_start(*parse_log_window("boot"), 7200.0, 1.0), std::nullopt);
  EXPECT_EQ(describe(last, "1h"), "in the last 1h");
}

}  // namespace
}  // namespace rocm_doctor

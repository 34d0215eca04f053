// Small pure helpers for the text formats sysfs, /proc and /etc use.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocm_doctor {

std::string_view trim(std::string_view text);
// Splits on `separator`; keeps empty fields.
std::vector<std::string_view> split(std::string_view text, char separator);
// Splits on runs of spaces and tabs; never yields empty fields.
std::vector<std::string_view> split_words(std::string_view text);
std::vector<std::string_view> lines(std::string_view text);

std::optional<std::uint64_t> parse_uint(std::string_view text, int base = 10);
std::optional<std::int64_t> parse_int(std::string_view text);

// "KEY=value" / KEY="quoted value" files such as /etc/os-release.
std::map<std::string, std::string> parse_env_file(std::string_view text);
// "key value" lines such as KFD topology `properties`; unparseable lines are skipped.
std::map<std::string, std::string> parse_key_value_lines(std::string_view text);

// One "Name: value" line of a Debian control file (dpkg's status, deb822 .sources).
struct ControlField {
  std::string_view name;   // as written; Debian compares names case-insensitively
  std::string_view value;  // trimmed; continuation lines are not joined
  int line = 0;            // 1-based
};
// Calls on_field for each field and on_stanza_end at each blank line and at
// the end (so also for empty stanzas). Continuation lines (leading blank),
// '#' comments and lines without a colon are skipped.
void read_control_stanzas(std::string_view text, const std::function<void(const ControlField&)>& on_field,
                          const std::function<void()>& on_stanza_end);

std::string join(const std::vector<std::string>& parts, std::string_view separator);

// Machine text made safe to show in a report: control characters (all of them,
// or all but newline and tab with keep_newlines; C1 controls U+0080..U+009F
// too, byte by byte) become \xNN, so a hostile value
// cannot move a terminal's cursor or forge report lines, and text longer than
// max_bytes is cut on a UTF-8 boundary with "... (N bytes in all)".
std::string displayable(std::string_view text, std::size_t max_bytes, bool keep_newlines);

// Levenshtein distance, for "did you mean ...?" suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b);
// The closest candidate within `max_distance`, if any.
std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates,
                                         std::size_t max_distance);

}  // namespace rocm_doctor

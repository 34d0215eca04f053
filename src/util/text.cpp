#include "rocm_doctor/text.h"

#include <algorithm>
#include <charconv>
#include <numeric>

#include "rocm_doctor/text_case.h"

namespace rocm_doctor {

std::string_view trim(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n\v\f";
  const auto first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) {
    return {};
  }
  const auto last = text.find_last_not_of(kSpace);
  return text.substr(first, last - first + 1);
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const auto end = text.find(separator, start);
    fields.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) {
      return fields;
    }
    start = end + 1;
  }
}

std::vector<std::string_view> split_words(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) {
      ++pos;
    }
    const auto start = pos;
    while (pos < text.size() && text[pos] != ' ' && text[pos] != '\t') {
      ++pos;
    }
    if (pos > start) {
      words.push_back(text.substr(start, pos - start));
    }
  }
  return words;
}

std::vector<std::string_view> lines(std::string_view text) {
  auto result = split(text, '\n');
  if (!result.empty() && result.back().empty()) {
    result.pop_back();
  }
  return result;
}

std::optional<std::uint64_t> parse_uint(std::string_view text, int base) {
  text = trim(text);
  if (base == 16 && (text.starts_with("0x") || text.starts_with("0X"))) {
    text.remove_prefix(2);
  }
  std::uint64_t value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value, base);
  if (text.empty() || ec != std::errc{} || ptr != end) {
    return std::nullopt;
  }
  return value;
}

std::optional<std::int64_t> parse_int(std::string_view text) {
  text = trim(text);
  std::int64_t value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{} || ptr != end) {
    return std::nullopt;
  }
  return value;
}

namespace {
std::string unquote(std::string_view value) {
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
    value = value.substr(1, value.size() - 2);
  }
  std::string result;
  result.reserve(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '\\' && i + 1 < value.size()) {
      ++i;
    }
    result.push_back(value[i]);
  }
  return result;
}
}  // namespace

std::map<std::string, std::string> parse_env_file(std::string_view text) {
  std::map<std::string, std::string> values;
  for (auto line : lines(text)) {
    line = trim(line);
    if (line.empty() || line.front() == '#') {
      continue;
    }
    const auto equals = line.find('=');
    if (equals == std::string_view::npos || equals == 0) {
      continue;
    }
    values[std::string(trim(line.substr(0, equals)))] = unquote(trim(line.substr(equals + 1)));
  }
  return values;
}

std::map<std::string, std::string> parse_key_value_lines(std::string_view text) {
  std::map<std::string, std::string> values;
  for (auto line : lines(text)) {
    const auto words = split_words(line);
    if (words.size() == 2) {
      values[std::string(words[0])] = std::string(words[1]);
    }
  }
  return values;
}

void read_control_stanzas(std::string_view text, const std::function<void(const ControlField&)>& on_field,
                          const std::function<void()>& on_stanza_end) {
  int number = 0;
  for (const auto line : lines(text)) {
    ++number;
    if (trim(line).empty()) {
      on_stanza_end();
      continue;
    }
    if (line.starts_with('#') || line.starts_with(' ') || line.starts_with('\t')) continue;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    on_field(ControlField{trim(line.substr(0, colon)), trim(line.substr(colon + 1)), number});
  }
  on_stanza_end();
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string result;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) {
      result += separator;
    }
    result += parts[i];
  }
  return result;
}

std::string displayable(std::string_view text, std::size_t max_bytes, bool keep_newlines) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::size_t cut = text.size();
  if (cut > max_bytes) {
    cut = max_bytes;
    // Back off to the start of a UTF-8 sequence (continuation bytes are 10xxxxxx).
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0U) == 0x80U) --cut;
  }
  std::string out;
  out.reserve(cut + 32);
  const auto escape = [&out](unsigned char byte) {
    out += "\\x";
    out += kHex[byte >> 4U];
    out += kHex[byte & 0xfU];
  };
  for (std::size_t i = 0; i < cut; ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const bool control = byte < 0x20 || byte == 0x7f;
    // U+0080..U+009F (UTF-8 C2 80..C2 9F) are the C1 controls: U+009B is a
    // one-character ESC [ for terminals that honour it.
    const auto next = i + 1 < cut ? static_cast<unsigned char>(text[i + 1]) : 0U;
    if (byte == 0xc2 && next >= 0x80 && next <= 0x9f) {
      escape(byte);
      escape(static_cast<unsigned char>(next));
      ++i;
    } else if (!control || (keep_newlines && (byte == '\n' || byte == '\t'))) {
      out += static_cast<char>(byte);
    } else {
      escape(byte);
    }
  }
  if (cut < text.size()) out += "... (" + std::to_string(text.size()) + " bytes in all)";
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitution});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates,
                                         std::size_t max_distance) {
  std::optional<std::string> best;
  std::size_t best_distance = max_distance + 1;
  for (const auto& candidate : candidates) {
    const auto distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (auto& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string upper(std::string_view text) {
  std::string out(text);
  for (auto& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

}  // namespace rocm_doctor

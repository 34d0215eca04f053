// The text as it arrives (a terminal, a journal, a container's JSON log, a
// launcher that tags each rank) made plain once, so that the patterns of the
// data files need not know every way a message is wrapped. Each normalised
// line remembers the input line it came from, for the report's line numbers.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <nlohmann/json.hpp>

#include "rocm_doctor/symptom.h"

namespace rocm_doctor::symptom {

namespace {

using std::string_view;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Removes ANSI escape sequences: CSI (ESC [ ... final byte), OSC (ESC ] ... BEL
// or ESC \), and two-byte escapes.
std::string without_ansi(string_view line) {
  std::string out;
  out.reserve(line.size());
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '\x1b') {
      out += line[i];
      continue;
    }
    if (i + 1 >= line.size()) break;
    const char kind = line[i + 1];
    i += 2;
    if (kind == '[') {
      while (i < line.size() && !(line[i] >= '@' && line[i] <= '~')) ++i;
    } else if (kind == ']') {
      while (i < line.size() && line[i] != '\a' && !(line[i] == '\x1b' && i + 1 < line.size())) ++i;
      if (i < line.size() && line[i] == '\x1b') ++i;
    }
  }
  return out;
}

// Skips `count` digits at `at`; npos when they are not there.
std::size_t digits(string_view line, std::size_t at, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    if (at + i >= line.size() || !is_digit(line[at + i])) return string_view::npos;
  }
  return at + count;
}

std::size_t skip_blanks(string_view line, std::size_t at) {
  while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
  return at;
}

// HH:MM:SS with an optional fraction (. or ,); npos when absent.
std::size_t clock_time(string_view line, std::size_t at) {
  at = digits(line, at, 2);
  if (at == string_view::npos || at >= line.size() || line[at] != ':') return string_view::npos;
  at = digits(line, at + 1, 2);
  if (at == string_view::npos || at >= line.size() || line[at] != ':') return string_view::npos;
  at = digits(line, at + 1, 2);
  if (at == string_view::npos) return at;
  if (at < line.size() && (line[at] == '.' || line[at] == ',')) {
    ++at;
    while (at < line.size() && is_digit(line[at])) ++at;
  }
  return at;
}

// 2025-01-02T03:04:05.123Z, 2025-01-02 03:04:05,123 +01:00 and the like.
std::size_t iso_timestamp(string_view line) {
  auto at = digits(line, 0, 4);
  if (at == string_view::npos || at + 6 > line.size() || line[at] != '-') return 0;
  at = digits(line, at + 1, 2);
  if (at == string_view::npos || at >= line.size() || line[at] != '-') return 0;
  at = digits(line, at + 1, 2);
  if (at == string_view::npos || at >= line.size() || (line[at] != 'T' && line[at] != ' ')) return 0;
  at = clock_time(line, at + 1);
  if (at == string_view::npos) return 0;
  if (at < line.size() && line[at] == 'Z') ++at;
  if (at < line.size() && (line[at] == '+' || line[at] == '-') && digits(line, at + 1, 2) != string_view::npos) {
    at += 3;
    if (at < line.size() && line[at] == ':') ++at;
    while (at < line.size() && is_digit(line[at])) ++at;
  }
  return skip_blanks(line, at);
}

constexpr std::array<string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

// Syslog and journalctl's short format: "Jan  2 03:04:05 ".
std::size_t syslog_timestamp(string_view line) {
  if (line.size() < 16 || std::string_view("JFMASOND").find(line[0]) == string_view::npos ||
      std::find(kMonths.begin(), kMonths.end(), line.substr(0, 3)) == kMonths.end() || line[3] != ' ') {
    return 0;
  }
  auto at = skip_blanks(line, 4);
  while (at < line.size() && is_digit(line[at])) ++at;
  at = clock_time(line, skip_blanks(line, at));
  return at == string_view::npos ? 0 : skip_blanks(line, at);
}

// A host name or a syslog tag ("kernel", "ollama[123]"): letters, digits and
// "-._/", a "[pid]" at the end of a tag.
bool is_name(string_view word, bool tag) {
  if (tag && word.ends_with(']')) {
    const auto open = word.rfind('[');
    if (open == string_view::npos || open == 0) return false;
    const auto pid = word.substr(open + 1, word.size() - open - 2);
    if (pid.empty() || !std::all_of(pid.begin(), pid.end(), is_digit)) return false;
    word = word.substr(0, open);
  }
  return !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.' || c == '_' || c == '/';
  });
}

// After a syslog or journal timestamp: "host kernel: " or "host ollama[123]: "
// (a first word ending in ':' is the message itself: "amdgpu: ..."; words that
// are no host and tag are the message too: "[hipBLASLt] clang++: error: ...").
std::size_t host_and_tag(string_view line) {
  const auto host_end = line.find(' ');
  if (host_end == string_view::npos || host_end == 0 || line[host_end - 1] == ':') return 0;
  const auto tag_end = line.find(' ', host_end + 1);
  if (tag_end == string_view::npos || tag_end <= host_end + 1 || line[tag_end - 1] != ':') return 0;
  if (!is_name(line.substr(0, host_end), false) || !is_name(line.substr(host_end + 1, tag_end - host_end - 2), true)) {
    return 0;
  }
  return tag_end + 1;
}

// A leading [...] group that is a time or a rank: "[  12.345678]", "[T1234]",
// "[Mon Jan  6 10:00:00 2025]", "[rank3]:", "[default0]:", "[1,0]<stderr>:",
// "[pod/name/container]".
std::size_t bracket_tag(string_view line) {
  if (line.empty() || line[0] != '[') return 0;
  const auto close = line.find(']');
  if (close > 64) return 0;  // npos (no close) is larger too
  const auto inside = line.substr(1, close - 1);
  auto end = close + 1;
  const bool timeish = !inside.empty() && std::all_of(inside.begin(), inside.end(), [](char c) {
    return is_digit(c) || c == ' ' || c == '.' || c == ':' || c == '-' || c == '+' || c == ',';
  });
  const auto name = inside.substr(std::min(inside.size(), inside.find_first_not_of(' ')));
  const bool caller = name.size() > 1 && (name[0] == 'T' || name[0] == 'C') &&
                      std::all_of(name.begin() + 1, name.end(), [](char c) { return is_digit(c); });
  const bool date = inside.size() >= 20 && syslog_timestamp(inside.substr(4)) > 0;
  const bool rank = inside.starts_with("rank") || inside.starts_with("default") || inside.starts_with("pod/");
  if (!(timeish || caller || date || rank)) return 0;
  if (line.substr(end).starts_with("<stderr>") || line.substr(end).starts_with("<stdout>")) end += 8;
  if (end < line.size() && line[end] == ':') ++end;
  return skip_blanks(line, end);
}

// "(VllmWorker rank=1 pid=1234) ", "(RayWorkerWrapper pid=123, ip=10.0.0.1) ", "(pid=77) ".
std::size_t worker_tag(string_view line) {
  if (line.empty() || line[0] != '(') return 0;
  const auto close = line.find(')');
  if (close > 96 || line.substr(0, close).find("pid=") == string_view::npos) return 0;  // npos > 96
  return skip_blanks(line, close + 1);
}

// glog: "E0102 03:04:05.123456 12345 file.cc:12] ".
std::size_t glog_prefix(string_view line) {
  if (line.size() < 24 || std::string_view("IWEF").find(line[0]) == string_view::npos) return 0;
  auto at = digits(line, 1, 4);
  if (at == string_view::npos || line[at] != ' ') return 0;
  at = clock_time(line, at + 1);
  if (at == string_view::npos) return 0;
  const auto close = line.find("] ", at);
  return close == string_view::npos || close > at + 80 ? 0 : close + 2;
}

// The space after a Python logging level name that opens the line ("ERROR "),
// npos when the line opens with none.
std::size_t after_python_level(string_view line) {
  const auto space = line.find(' ');
  if (space > 8) return string_view::npos;  // npos (no space) is larger too
  const auto level = line.substr(0, space);
  const bool known =
      level == "INFO" || level == "WARNING" || level == "ERROR" || level == "DEBUG" || level == "CRITICAL";
  return known ? space : string_view::npos;
}

// vLLM and similar: "ERROR 01-02 03:04:05 [file.py:12] ".
std::size_t level_date_prefix(string_view line) {
  const auto space = after_python_level(line);
  if (space == string_view::npos) return 0;
  auto at = digits(line, space + 1, 2);
  if (at == string_view::npos || line[at] != '-' || digits(line, at + 1, 2) == string_view::npos) return 0;
  at = clock_time(line, at + 4);
  if (at == string_view::npos) return 0;
  at = skip_blanks(line, at);
  if (at < line.size() && line[at] == '[') {
    const auto close = line.find(']', at);
    if (close != string_view::npos) at = close + 1;
  }
  return skip_blanks(line, at);
}

// Python's logging in pytest's default format (log_format "%(levelname)-8s
// %(name)s:%(filename)s:%(lineno)d %(message)s"), as CI logs show captured logs:
// "ERROR    test_rocm_sanity:test_rocm_sanity.py:35 ".
std::size_t python_logging_prefix(string_view line) {
  const auto space = after_python_level(line);
  if (space == string_view::npos) return 0;
  const auto at = skip_blanks(line, space);
  const auto end = line.find(' ', at);
  if (end == string_view::npos || end - at > 160) return 0;
  const auto where = line.substr(at, end - at);  // name:file.py:12
  const auto py = where.rfind(".py:");
  if (py == string_view::npos || where.find(':') >= py || py + 4 >= where.size()) return 0;
  for (auto i = py + 4; i < where.size(); ++i) {
    if (!is_digit(where[i])) return 0;
  }
  return skip_blanks(line, end);
}

// CRI (containerd, CRI-O) after its timestamp: "stderr F ".
std::size_t cri_stream(string_view line) {
  if ((line.starts_with("stdout ") || line.starts_with("stderr ")) && line.size() > 9 &&
      (line[7] == 'F' || line[7] == 'P') && line[8] == ' ') {
    return 9;
  }
  return 0;
}

// Docker compose: "ollama-1  | ", srun -l: "  3: ".
std::size_t service_or_task(string_view line) {
  const auto begin = skip_blanks(line, 0);
  auto at = begin;
  while (at < line.size() && is_digit(line[at])) ++at;
  if (at > begin && at < line.size() - 1 && line[at] == ':' && line[at + 1] == ' ') return at + 2;
  const auto bar = line.substr(0, 52).find(" | ");
  if (bar > 48) return 0;  // npos (no bar) is larger too
  const auto name = line.substr(0, bar);
  const auto word_end = name.find_first_of(" \t");
  if (word_end == 0 || word_end == string_view::npos) return 0;
  return name.find_first_not_of(" \t", word_end) == string_view::npos ? bar + 3 : 0;
}

// One prefix off the front, the longest known kind; 0 when there is none.
std::size_t one_prefix(string_view line) {
  if (const auto n = iso_timestamp(line)) {
    const auto rest = line.substr(n);
    const auto stream = cri_stream(rest);
    return n + (stream > 0 ? stream : host_and_tag(rest));
  }
  if (const auto n = syslog_timestamp(line)) return n + host_and_tag(line.substr(n));
  for (auto* strip :
       {bracket_tag, worker_tag, glog_prefix, level_date_prefix, python_logging_prefix, service_or_task}) {
    if (const auto n = strip(line)) return n;
  }
  return 0;
}

// A prefix that names an informational level: "INFO 01-02 ...", "[WARNING] ",
// glog's "I0102 ..." / "W0102 ...". Its line is no failure, whatever its words.
bool informational_level(string_view prefix) {
  while (!prefix.empty() && (prefix.front() == '[' || prefix.front() == ' ')) prefix.remove_prefix(1);
  for (const string_view level : {"INFO", "WARN", "DEBUG", "NOTICE", "TRACE"}) {
    if (prefix.starts_with(level)) return true;
  }
  return prefix.size() > 1 && (prefix[0] == 'I' || prefix[0] == 'W') && is_digit(prefix[1]);
}

string_view without_prefixes(string_view line, bool& informational) {
  for (int round = 0; round < 8; ++round) {
    const auto n = one_prefix(line);
    if (n == 0 || n > line.size()) break;
    informational = informational || informational_level(line.substr(0, n));
    line.remove_prefix(n);
  }
  return line;
}

// Escaped line ends inside a quoted message (a Python repr, a JSON string that
// did not parse): "...\nRuntimeError: ..." becomes two lines.
std::string unescaped(string_view line) {
  std::string out;
  out.reserve(line.size());
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && (line[i + 1] == 'n' || line[i + 1] == 'r' || line[i + 1] == 't')) {
      out += line[i + 1] == 't' ? '\t' : '\n';
      ++i;
    } else {
      out += line[i];
    }
  }
  return out;
}

std::size_t escaped_line_ends(string_view line) {
  std::size_t count = 0;
  for (auto at = line.find("\\n"); at != string_view::npos; at = line.find("\\n", at + 2)) ++count;
  return count;
}

// The message of a JSON log line: docker's "log", journald's "MESSAGE" (a
// string, or its bytes as numbers), "message"/"msg" of structured loggers.
// Structured loggers (Go's zap, logr, logrus and slog; the Kubernetes device plugin and
// labeller log this way) put the failure in a field of its own beside the message:
// {"msg":"failed to read /sys/...","error":"open ...: no such file or directory"}.
std::string with_error_field(const nlohmann::json& document, std::string message) {
  for (const char* key : {"error", "err"}) {
    const auto it = document.find(key);
    if (it != document.end() && it->is_string()) return message + ": " + it->get<std::string>();
  }
  return message;
}

std::optional<std::string> json_message(string_view line) {
  const auto document = nlohmann::json::parse(line, nullptr, false);
  if (document.is_discarded() || !document.is_object()) return std::nullopt;
  for (const char* key : {"log", "MESSAGE", "message", "msg", "textPayload"}) {
    const auto it = document.find(key);
    if (it == document.end()) continue;
    if (it->is_string()) return with_error_field(document, it->get<std::string>());
    if (it->is_array()) {
      std::string bytes;
      for (const auto& byte : *it) {
        if (byte.is_number_unsigned()) bytes += static_cast<char>(byte.get<unsigned>());
      }
      return bytes;
    }
  }
  return std::nullopt;
}

// Widths terminals and consoles wrap at; a line exactly that long most likely
// went on in the next one.
bool wrapped_at_terminal_width(string_view line) {
  constexpr std::array<std::size_t, 12> kWidths = {80, 100, 120, 132, 140, 150, 160, 180, 200, 220, 240, 250};
  return std::find(kWidths.begin(), kWidths.end(), line.size()) != kWidths.end();
}

class Builder {
 public:
  explicit Builder(std::size_t size) { out_.text.reserve(size + size / 16); }

  // One line of the input (CR stripped, ANSI removed, wrapped parts joined).
  void add(string_view line, std::size_t origin) {
    const auto start = line.find_first_not_of(" \t");
    if (start != string_view::npos && line[start] == '{') {
      if (auto message = json_message(line.substr(start))) {
        add_message(*message, origin);
        return;
      }
    }
    if (escaped_line_ends(line) >= 2) {
      add_message(unescaped(line), origin);
      return;
    }
    bool informational = false;
    const auto plain = without_prefixes(line, informational);
    emit(plain, origin, informational);
  }

  Normalised finish() && { return std::move(out_); }

 private:
  // A message that may hold lines of its own, each with its own prefixes.
  void add_message(string_view message, std::size_t origin) {
    while (!message.empty() && (message.back() == '\n' || message.back() == '\r')) message.remove_suffix(1);
    std::size_t begin = 0;
    while (true) {
      const auto end = message.find_first_of("\r\n", begin);
      bool informational = false;
      const auto line = without_prefixes(
          message.substr(begin, end == string_view::npos ? string_view::npos : end - begin), informational);
      emit(line, origin, informational);
      if (end == string_view::npos) break;
      begin = end + 1;
    }
  }

  void emit(string_view line, std::size_t origin, bool informational) {
    out_.text.append(line);
    out_.text += '\n';
    out_.origin.push_back(origin);
    out_.informational.push_back(informational);
  }

  Normalised out_;
};

}  // namespace

Normalised normalise(string_view text) {
  Builder builder(text.size());
  std::size_t number = 0;
  std::string joined;  // a line a terminal wrapped, gathered until it ends
  std::size_t joined_origin = 0;
  std::size_t begin = 0;
  while (begin < text.size()) {
    auto end = text.find('\n', begin);
    if (end == string_view::npos) end = text.size();
    auto raw = text.substr(begin, end - begin);
    begin = end + 1;
    ++number;
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    const bool plain_already =
        std::memchr(raw.data(), '\x1b', raw.size()) == nullptr && std::memchr(raw.data(), '\r', raw.size()) == nullptr;
    if (plain_already && joined.empty() && !wrapped_at_terminal_width(raw)) {
      builder.add(raw, number);  // the common line: no copy
      continue;
    }
    // A lone CR (a progress bar redrawn) ends a line too: only the last state is kept whole.
    std::string plain = plain_already ? std::string(raw) : without_ansi(raw);
    for (std::size_t cr = plain.find('\r'); cr != std::string::npos; cr = plain.find('\r')) {
      builder.add(string_view(plain).substr(0, cr), number);
      plain.erase(0, cr + 1);
    }
    if (joined.empty()) joined_origin = number;
    joined += plain;
    if (wrapped_at_terminal_width(plain) && begin < text.size()) continue;
    builder.add(joined, joined_origin);
    joined.clear();
  }
  if (!joined.empty()) builder.add(joined, joined_origin);
  return std::move(builder).finish();
}

}  // namespace rocm_doctor::symptom

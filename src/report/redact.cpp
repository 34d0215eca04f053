#include "report/redact.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <set>

#include "rocm_doctor/shell.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

std::string_view kind_name(RedactKind kind) {
  switch (kind) {
    case RedactKind::host: return "host";
    case RedactKind::user: return "user";
    case RedactKind::home: return "home";
    case RedactKind::serial: return "serial";
    case RedactKind::ip: return "ip";
    case RedactKind::mac: return "mac";
    case RedactKind::uuid: return "uuid";
  }
  return "value";
}

bool is_word(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}
bool is_hex(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Length of a MAC address (aa:bb:cc:dd:ee:ff or with '-') at `at`, or 0.
std::size_t mac_at(std::string_view text, std::size_t at) {
  if (at + 17 > text.size()) return 0;
  const char separator = text[at + 2];
  if (separator != ':' && separator != '-') return 0;
  for (std::size_t i = 0; i < 17; ++i) {
    const char c = text[at + i];
    if (i % 3 == 2 ? c != separator : !is_hex(c)) return 0;
  }
  if (at + 17 < text.size() && (is_hex(text[at + 17]) || text[at + 17] == separator)) return 0;
  return 17;
}

// Length of a UUID (8-4-4-4-12 hex digits) at `at`, or 0.
std::size_t uuid_at(std::string_view text, std::size_t at) {
  if (at + 36 > text.size()) return 0;
  for (std::size_t i = 0; i < 36; ++i) {
    const char c = text[at + i];
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? c != '-' : !is_hex(c)) return 0;
  }
  if (at + 36 < text.size() && (is_hex(text[at + 36]) || text[at + 36] == '-')) return 0;
  return 36;
}

// Length of a dotted-quad IPv4 address at `at`, or 0.
std::size_t ipv4_at(std::string_view text, std::size_t at) {
  std::size_t i = at;
  for (int part = 0; part < 4; ++part) {
    if (part > 0) {
      if (i >= text.size() || text[i] != '.') return 0;
      ++i;
    }
    const std::size_t start = i;
    int value = 0;
    while (i < text.size() && is_digit(text[i]) && i - start < 4) value = value * 10 + (text[i++] - '0');
    if (i == start || i - start > 3 || value > 255) return 0;
  }
  if (i < text.size() && (is_digit(text[i]) || (text[i] == '.' && i + 1 < text.size() && is_digit(text[i + 1])))) {
    return 0;
  }
  return i - at;
}

// Length of an IPv6 address at `at`, or 0: hex groups of at most 4 digits,
// with "::" or eight groups, not glued to a word.
std::size_t ipv6_at(std::string_view text, std::size_t at) {
  std::size_t i = at;
  while (i < text.size() && (is_hex(text[i]) || text[i] == ':')) ++i;
  if (i < text.size() && (is_word(text[i]) || text[i] == '.')) return 0;
  const std::string_view token = text.substr(at, i - at);
  const auto colons = std::count(token.begin(), token.end(), ':');
  const bool compressed = token.find("::") != std::string_view::npos;
  if (colons < 2 || colons > 7 || (!compressed && colons != 7)) return 0;
  if (token.find(":::") != std::string_view::npos) return 0;
  std::size_t digits = 0;
  std::size_t run = 0;
  for (const char c : token) {
    run = c == ':' ? 0 : run + 1;
    if (run > 4) return 0;
    digits += c == ':' ? 0 : 1;
  }
  return digits == 0 ? 0 : token.size();
}

void add_with_other_base(Redactor& redactor, const std::string& value, int base) {
  redactor.add(RedactKind::serial, value);
  const std::string digits(trim(value.starts_with("0x") ? std::string_view(value).substr(2) : std::string_view(value)));
  if (const auto number = parse_uint(digits, base); number && *number > 0xffff) {
    redactor.add(RedactKind::serial, base == 16 ? std::to_string(*number) : fmt::format("{:x}", *number));
    redactor.add(RedactKind::serial, base == 16 ? value : fmt::format("0x{:x}", *number));
  }
}

}  // namespace

Redactor Redactor::from_host(const Host& host) {
  Redactor redactor;
  for (const auto* path : {"/proc/sys/kernel/hostname", "/etc/hostname"}) {
    if (const auto name = host.read_trimmed(path); name && !name->empty() && *name != "localhost") {
      redactor.add(RedactKind::host, *name);
      redactor.add(RedactKind::host, name->substr(0, name->find('.')));
    }
  }
  std::vector<std::string> users = {host.identity().user};
  for (const auto* variable : {"USER", "LOGNAME", "SUDO_USER"}) {
    if (auto value = host.env(variable)) users.push_back(*value);
  }
  if (auto home = host.env("HOME")) redactor.add(RedactKind::home, *home);
  for (const auto& user : users) {
    if (user.empty() || user == "root") continue;
    redactor.add(RedactKind::user, user);
    if (const auto entry = host.user_by_name(user)) redactor.add(RedactKind::home, entry->home);
  }
  // Every personal account of /etc/passwd (a capture holds only those looked up).
  if (const auto passwd = host.read_file("/etc/passwd")) {
    for (const auto line : lines(*passwd)) {
      const auto fields = split(line, ':');
      if (fields.size() < 7) continue;
      const auto uid = parse_uint(fields[2]);
      if (!uid || *uid < 1000 || *uid == 65534) continue;
      redactor.add(RedactKind::user, std::string(fields[0]));
      redactor.add(RedactKind::home, std::string(fields[5]));
    }
  }
  // GPU identities: DRM unique_id (hex) and serial_number, KFD unique_id (decimal).
  if (const auto cards = host.list_dir("/sys/class/drm")) {
    for (const auto& card : *cards) {
      if (!card.name.starts_with("card") || card.name.find('-') != std::string::npos) continue;
      const std::string device = "/sys/class/drm/" + card.name + "/device/";
      if (const auto id = host.read_trimmed(device + "unique_id"); id && !id->empty())
        add_with_other_base(redactor, *id, 16);
      if (const auto serial = host.read_trimmed(device + "serial_number"); serial && !serial->empty()) {
        redactor.add(RedactKind::serial, *serial);
      }
    }
  }
  if (const auto nodes = host.list_dir("/sys/class/kfd/kfd/topology/nodes")) {
    for (const auto& node : *nodes) {
      const auto properties = host.read_file("/sys/class/kfd/kfd/topology/nodes/" + node.name + "/properties");
      if (!properties) continue;
      const auto values = parse_key_value_lines(*properties);
      if (const auto it = values.find("unique_id"); it != values.end() && it->second != "0") {
        add_with_other_base(redactor, it->second, 10);
      }
    }
  }
  for (const auto* path : {"/sys/class/dmi/id/product_serial", "/sys/class/dmi/id/board_serial",
                           "/sys/class/dmi/id/chassis_serial", "/sys/class/dmi/id/product_uuid"}) {
    if (const auto serial = host.read_trimmed(path); serial && serial->size() > 2)
      redactor.add(RedactKind::serial, *serial);
  }
  return redactor;
}

void Redactor::add(RedactKind kind, std::string value) {
  if (value.size() < 2 || value == "/" || value == "0") return;
  const auto known = [&](const std::string& text) {
    return std::any_of(literals_.begin(), literals_.end(),
                       [&](const Literal& literal) { return literal.text == text; });
  };
  if (known(value)) return;
  if (kind == RedactKind::home) {
    // A home folder's last name is redacted wherever it appears (folder names
    // in a snapshot too), so the home's placeholder is built from it.
    const auto slash = value.find_last_of('/');
    if (slash == std::string::npos || slash + 1 >= value.size()) return;
    static const std::set<std::string, std::less<>> kSystem = {
        "root", "nonexistent", "home", "tmp", "var", "usr", "opt", "bin", "sbin", "dev", "proc", "sys", "etc", "run"};
    if (kSystem.contains(value.substr(slash + 1))) return;
    add(RedactKind::user, value.substr(slash + 1));
  }
  literals_.push_back({value, value, kind});
  // Fix commands carry names shell-quoted ('o'\''neil admin').
  if (const auto quoted = shell_quote(value); quoted != value && !known(quoted))
    literals_.push_back({quoted, value, kind});
  std::stable_sort(literals_.begin(), literals_.end(),
                   [](const Literal& a, const Literal& b) { return a.text.size() > b.text.size(); });
}

std::vector<std::string> Redactor::known_values() const {
  std::vector<std::string> values;
  for (const auto& literal : literals_) {
    if (literal.text == literal.canonical) values.push_back(literal.text);
  }
  return values;
}

std::string Redactor::placeholder(RedactKind kind, const std::string& value) {
  const auto it = assigned_.find(value);
  if (it != assigned_.end()) return it->second;
  std::string text;
  if (kind == RedactKind::home) {
    const auto slash = value.find_last_of('/');
    text = value.substr(0, slash + 1) + placeholder(RedactKind::user, value.substr(slash + 1));
  } else {
    text = fmt::format("redacted-{}-{}", kind_name(kind), ++counters_[kind]);
  }
  assigned_.emplace(value, text);
  return text;
}

std::string Redactor::replace_literals(std::string_view text) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    bool replaced = false;
    const bool boundary_before = i == 0 || !is_word(text[i - 1]);
    for (const auto& literal : literals_) {
      if (text.compare(i, literal.text.size(), literal.text) != 0) continue;
      const std::size_t end = i + literal.text.size();
      const bool word_start = is_word(literal.text.front());
      const bool word_end = is_word(literal.text.back());
      if ((word_start && !boundary_before) || (word_end && end < text.size() && is_word(text[end]))) continue;
      out += placeholder(literal.kind, literal.canonical);
      i = end;
      replaced = true;
      break;
    }
    if (!replaced) out += text[i++];
  }
  return out;
}

std::string Redactor::replace_shapes(std::string_view text) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const bool boundary =
        i == 0 || !(is_word(text[i - 1]) || text[i - 1] == '.' || text[i - 1] == ':' || text[i - 1] == '-');
    if (boundary) {
      std::size_t length = 0;
      RedactKind kind = RedactKind::ip;
      if ((length = uuid_at(text, i)) != 0) {
        kind = RedactKind::uuid;
      } else if ((length = mac_at(text, i)) != 0) {
        kind = RedactKind::mac;
      } else if ((length = ipv4_at(text, i)) != 0 || (length = ipv6_at(text, i)) != 0) {
        kind = RedactKind::ip;
      }
      if (length != 0) {
        out += placeholder(kind, std::string(text.substr(i, length)));
        i += length;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

std::string Redactor::apply(std::string_view text) {
  return replace_shapes(replace_literals(text));
}

namespace {
template <typename Json>
void apply_json(Redactor& redactor, Json& value) {
  if (value.is_string()) {
    value = redactor.apply(value.template get<std::string>());
  } else if (value.is_array()) {
    for (auto& item : value) apply_json(redactor, item);
  } else if (value.is_object()) {
    Json result = Json::object();
    for (auto it = value.begin(); it != value.end(); ++it) {
      Json item = it.value();
      apply_json(redactor, item);
      result[redactor.apply(it.key())] = std::move(item);
    }
    value = std::move(result);
  }
}
}  // namespace

void Redactor::apply(nlohmann::json& value) {
  apply_json(*this, value);
}
void Redactor::apply(nlohmann::ordered_json& value) {
  apply_json(*this, value);
}

void Redactor::apply(Report& report) {
  const auto fix = [this](std::string& text) { text = apply(text); };
  fix(report.host.hostname);
  fix(report.host.os);
  fix(report.host.kernel);
  for (auto& [key, value] : report.versions) fix(value);  // rocm_prefix may be under a home folder
  for (auto& check : report.checks) {
    fix(check.skipped_reason);
    fix(check.internal_error);
    for (auto& finding : check.findings) {
      fix(finding.summary);
      fix(finding.detail);
      for (auto& evidence : finding.evidence) {
        fix(evidence.source);
        fix(evidence.value);
      }
      for (auto& item : finding.fixes) {
        fix(item.description);
        fix(item.verify);
        for (auto& command : item.commands) fix(command);
      }
    }
  }
  for (auto& [name, section] : report.sections) apply(section);
}

}  // namespace rocm_doctor

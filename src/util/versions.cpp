#include "rocm_doctor/versions.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "rocm_doctor/text.h"
#include "rocm_doctor/text_case.h"

namespace rocm_doctor::versions {

namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_separator(char c) {
  return c == '.' || c == '-' || c == '_' || c == '~';
}

// Reads a run of digits at `pos`; nullopt when there is none or it overflows.
std::optional<std::uint64_t> read_number(std::string_view text, std::size_t& pos) {
  const auto start = pos;
  while (pos < text.size() && is_digit(text[pos])) ++pos;
  if (pos == start) return std::nullopt;
  return parse_uint(text.substr(start, pos - start));
}

std::optional<std::vector<std::uint64_t>> read_release(std::string_view text, std::size_t& pos) {
  std::vector<std::uint64_t> numbers;
  while (true) {
    const auto number = read_number(text, pos);
    if (!number) return std::nullopt;
    numbers.push_back(*number);
    // A '.' continues the release only when a digit follows ("2.6.0.dev1" stops before ".dev").
    if (pos + 1 < text.size() && text[pos] == '.' && is_digit(text[pos + 1])) {
      ++pos;
      continue;
    }
    return numbers;
  }
}

struct Keyword {
  std::string_view word;
  enum { pre, post, dev } what;
  PreKind kind;
};

// Longest words first so "alpha" is not read as "a".
constexpr std::array<Keyword, 10> kKeywords = {{
    {"preview", Keyword::pre, PreKind::rc},
    {"alpha", Keyword::pre, PreKind::alpha},
    {"beta", Keyword::pre, PreKind::beta},
    {"post", Keyword::post, PreKind::rc},
    {"pre", Keyword::pre, PreKind::rc},
    {"dev", Keyword::dev, PreKind::dev},
    {"rc", Keyword::pre, PreKind::rc},
    {"a", Keyword::pre, PreKind::alpha},
    {"b", Keyword::pre, PreKind::beta},
    {"c", Keyword::pre, PreKind::rc},
}};

// One "rc1" / ".dev20241112" / "-post2" segment at `pos`; false (pos unchanged) when it is not one.
bool read_segment(std::string_view text, std::size_t& pos, Version& version) {
  std::size_t cursor = pos;
  if (cursor < text.size() && is_separator(text[cursor])) ++cursor;
  const auto rest = lower(text.substr(cursor));
  for (const auto& keyword : kKeywords) {
    if (!rest.starts_with(keyword.word)) continue;
    std::size_t end = cursor + keyword.word.size();
    const auto number = read_number(text, end);
    // The segment must end here, or at the next separator: "-beef12" is a build id, not beta "eef12".
    if (end < text.size() && !is_separator(text[end])) return false;
    const auto value = number.value_or(0);
    if (keyword.what == Keyword::pre) {
      if (version.pre || version.post || version.dev) return false;
      version.pre = PreRelease{keyword.kind, value};
    } else if (keyword.what == Keyword::post) {
      if (version.post || version.dev) return false;
      version.post = value;
    } else {
      if (version.dev) return false;
      version.dev = value;
    }
    pos = end;
    return true;
  }
  return false;
}

bool is_build_text(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '.' || c == '-' || c == '_' || c == '~';
  });
}

// Pre-release phase: a dev release of the final version first, then a < b < rc, then the final.
int phase(const Version& version) {
  if (version.pre) return 1 + static_cast<int>(version.pre->kind);
  if (version.dev && !version.post) return 0;
  return 5;
}

template <typename T>
int three_way(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

bool has_prefix(const Version& version, const std::vector<std::uint64_t>& prefix) {
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    const auto component = i < version.release.size() ? version.release[i] : 0;
    if (component != prefix[i]) return false;
  }
  return true;
}

bool equal(const Version& version, const Version& wanted) {
  if (compare(version, wanted) != 0) return false;
  return wanted.local.empty() || lower(version.local) == lower(wanted.local);
}

bool holds(const Comparator& comparator, const Version& version) {
  const auto& bound = comparator.version;
  const int order = compare(version, bound);
  switch (comparator.op) {
    case Op::eq: return equal(version, bound);
    case Op::ne: return !equal(version, bound);
    case Op::le: return order <= 0;
    case Op::ge: return order >= 0;
    case Op::gt: return order > 0;
    case Op::lt:
      // "<7.0" means "before 7.0": 7.0.0rc1 is 7.0 already, not an older release.
      if (version.is_prerelease() && !bound.is_prerelease() && compare_release(version.release, bound.release) == 0) {
        return false;
      }
      return order < 0;
    case Op::prefix: return has_prefix(version, bound.release);
    case Op::not_prefix: return !has_prefix(version, bound.release);
    case Op::compatible: {
      const std::vector<std::uint64_t> head(bound.release.begin(), bound.release.end() - 1);
      return order >= 0 && has_prefix(version, head);
    }
  }
  return false;
}

struct OpSpelling {
  std::string_view text;
  std::optional<Op> op;  // nullopt: none written (a bare version)
};

constexpr std::array<OpSpelling, 8> kOps = {{
    {"~=", Op::compatible},
    {"==", Op::eq},
    {"!=", Op::ne},
    {">=", Op::ge},
    {"<=", Op::le},
    {">", Op::gt},
    {"<", Op::lt},
    {"=", Op::eq},
}};

tl::expected<Comparator, std::string> parse_comparator(std::string_view clause) {
  std::optional<Op> op;
  for (const auto& spelling : kOps) {
    if (clause.starts_with(spelling.text)) {
      op = spelling.op;
      clause = trim(clause.substr(spelling.text.size()));
      break;
    }
  }
  bool wildcard = false;
  for (const std::string_view suffix : {".x", ".X", ".*"}) {
    if (clause.ends_with(suffix)) {
      wildcard = true;
      clause.remove_suffix(suffix.size());
      break;
    }
  }
  auto version = parse(clause);
  if (!version) return tl::unexpected(version.error());
  const bool plain = !version->is_prerelease() && !version->post && version->local.empty();
  if (wildcard) {
    if (!plain) return tl::unexpected(fmt::format("'{}.x': a wildcard follows release numbers only", clause));
    if (op && *op != Op::eq && *op != Op::ne) {
      return tl::unexpected(std::string("a wildcard ('.x' or '.*') works only with == or != (or none)"));
    }
    return Comparator{op == Op::ne ? Op::not_prefix : Op::prefix, std::move(*version)};
  }
  if (op == Op::compatible && version->release.size() < 2) {
    return tl::unexpected(std::string("'~=' needs at least two numbers ('~=6.2' or '~=6.2.1')"));
  }
  // A bare release ("6.2") is a prefix: 6.2.0, 6.2.4 and 6.2.41134 all match.
  if (!op) return Comparator{plain ? Op::prefix : Op::eq, std::move(*version)};
  return Comparator{*op, std::move(*version)};
}

}  // namespace

std::string Version::to_string() const {
  std::vector<std::string> parts;
  for (const auto number : release) parts.push_back(std::to_string(number));
  std::string out = join(parts, ".");
  if (pre) {
    constexpr std::array<std::string_view, 4> kNames = {"dev", "a", "b", "rc"};
    out += std::string(kNames[static_cast<std::size_t>(pre->kind)]) + std::to_string(pre->number);
  }
  if (post) out += ".post" + std::to_string(*post);
  if (dev) out += ".dev" + std::to_string(*dev);
  return out;
}

tl::expected<Version, std::string> parse(std::string_view text) {
  const std::string original(trim(text));
  std::string_view rest = original;
  if (rest.empty()) return tl::unexpected(std::string("empty version"));
  if (rest.size() > 1 && (rest[0] == 'v' || rest[0] == 'V') && is_digit(rest[1])) rest.remove_prefix(1);
  Version version;
  if (const auto plus = rest.find('+'); plus != std::string_view::npos) {
    version.local = std::string(rest.substr(plus + 1));
    rest = rest.substr(0, plus);
    if (!is_build_text(version.local)) {
      return tl::unexpected("'" + original + "': the part after '+' must be letters, digits and dots");
    }
  }
  std::size_t pos = 0;
  auto release = read_release(rest, pos);
  if (!release) return tl::unexpected("'" + original + "' does not start with a release number such as 6.2.4");
  version.release = std::move(*release);
  while (pos < rest.size()) {
    if (read_segment(rest, pos, version)) continue;
    // ROCm's "-120" (.info/version) and HIP's "-8c743ae5d" are build ids.
    if (rest[pos] == '-' && is_build_text(rest.substr(pos + 1))) {
      version.build = std::string(rest.substr(pos + 1));
      break;
    }
    return tl::unexpected("'" + original + "': unexpected '" + std::string(rest.substr(pos)) + "' after " +
                          version.to_string());
  }
  return version;
}

int compare_release(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  const auto size = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < size; ++i) {
    const auto x = i < a.size() ? a[i] : 0;
    const auto y = i < b.size() ? b[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

int compare(const Version& a, const Version& b) {
  if (const int order = compare_release(a.release, b.release); order != 0) return order;
  if (const int order = three_way(phase(a), phase(b)); order != 0) return order;
  if (a.pre && b.pre) {
    if (const int order = three_way(a.pre->number, b.pre->number); order != 0) return order;
  }
  // No post-release sorts first; no dev segment sorts last.
  if (const int order = three_way(a.post.has_value(), b.post.has_value()); order != 0) return order;
  if (a.post && b.post) {
    if (const int order = three_way(*a.post, *b.post); order != 0) return order;
  }
  if (const int order = three_way(!a.dev.has_value(), !b.dev.has_value()); order != 0) return order;
  if (a.dev && b.dev) return three_way(*a.dev, *b.dev);
  return 0;
}

bool Range::contains(const Version& version) const {
  return std::all_of(comparators.begin(), comparators.end(),
                     [&](const Comparator& comparator) { return holds(comparator, version); });
}

tl::expected<Range, std::string> parse_range(std::string_view text) {
  Range range;
  range.text = std::string(trim(text));
  if (range.text.empty()) return tl::unexpected(std::string("empty version range"));
  for (const auto clause : split(range.text, ',')) {
    const auto trimmed = trim(clause);
    if (trimmed.empty()) return tl::unexpected("'" + range.text + "': empty comparator between commas");
    auto comparator = parse_comparator(trimmed);
    if (!comparator) return tl::unexpected("'" + range.text + "': " + comparator.error());
    range.comparators.push_back(std::move(*comparator));
  }
  return range;
}

bool satisfies(std::string_view version, const Range& range) {
  const auto parsed = parse(version);
  return parsed && range.contains(*parsed);
}

}  // namespace rocm_doctor::versions

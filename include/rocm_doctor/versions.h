// Release versions as ROCm and PyTorch spell them, and ranges of them.
//
//   ROCm      6.2.4   6.2.4-120 (.info/version)   6.2.41134-8c743ae5d (HIP)   7.0.0rc1
//   PyTorch   2.5.1+rocm6.2   2.6.0.dev20241112+rocm6.2   2.5.0a0+git1b2c3d
//
// Pure and small: every other version comparison in the project goes through
// compare_release() so there is one notion of "newer".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <vector>

namespace rocm_doctor::versions {

// Pre-releases sort before their release: dev < a (alpha) < b (beta) < rc < final.
enum class PreKind { dev = 0, alpha = 1, beta = 2, rc = 3 };

struct PreRelease {
  PreKind kind = PreKind::rc;
  std::uint64_t number = 0;
  friend bool operator==(const PreRelease&, const PreRelease&) = default;
};

struct Version {
  std::vector<std::uint64_t> release;  // 6.2.41134 -> {6, 2, 41134}; never empty once parsed
  std::optional<PreRelease> pre;       // rc1, a0, b2
  std::optional<std::uint64_t> dev;    // .dev20241112 (may follow a pre-release: 2.6.0rc1.dev3)
  std::optional<std::uint64_t> post;   // .post1
  std::string local;                   // "rocm6.2" of "2.5.1+rocm6.2"; ignored when comparing
  std::string build;                   // "120" of "6.2.4-120", "8c743ae5d"; ignored when comparing

  [[nodiscard]] bool is_prerelease() const { return pre.has_value() || dev.has_value(); }
  // "6.2.4", "7.0.0rc1", "2.6.0.dev20241112" (without local and build parts).
  [[nodiscard]] std::string to_string() const;
};

// Parses one version; the error says what is wrong ("'6.x.2': ...").
tl::expected<Version, std::string> parse(std::string_view text);

// Numeric components, shorter padded with zeros: {6, 2} == {6, 2, 0}; <0, 0, >0.
int compare_release(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b);
// Release, then pre-release/dev/post; local and build parts are ignored. <0, 0, >0.
int compare(const Version& a, const Version& b);

// One comparator of a range.
enum class Op { eq, ne, lt, le, gt, ge, prefix, not_prefix, compatible };

struct Comparator {
  Op op = Op::eq;
  Version version;  // for prefix ops: the fixed leading components (6.2 of "6.2.x")
};

// Comma-separated comparators that must all hold: ">=6.2,<6.3", "6.2.x", "~=2.5.1", "!=6.2.1".
// A bare version is a prefix: "6.2" means 6.2.anything. "==6.2" is exact (6.2 == 6.2.0).
struct Range {
  std::string text;  // as written, for messages
  std::vector<Comparator> comparators;
  [[nodiscard]] bool contains(const Version& version) const;
};

tl::expected<Range, std::string> parse_range(std::string_view text);

// Convenience: does `version` (unparsed) satisfy `range`? An unparsable version never does.
bool satisfies(std::string_view version, const Range& range);

}  // namespace rocm_doctor::versions

// gfx version arithmetic: KFD numbers, gfx names and override strings.
#include <fmt/format.h>

#include "rocm_doctor/kb.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

std::optional<GfxVersion> decode_gfx_target_version(std::uint64_t value) {
  if (value == 0 || value > 999999) return std::nullopt;
  return GfxVersion{static_cast<unsigned>((value / 10000) % 100), static_cast<unsigned>((value / 100) % 100),
                    static_cast<unsigned>(value % 100)};
}

std::string gfx_name(const GfxVersion& version) {
  return fmt::format("gfx{}{:x}{:x}", version.major, version.minor, version.stepping);
}

std::string override_string(const GfxVersion& version) {
  return fmt::format("{}.{}.{}", version.major, version.minor, version.stepping);
}

std::optional<GfxVersion> parse_override_value(std::string_view text) {
  const auto parts = split(text, '.');
  if (parts.size() != 3) return std::nullopt;
  unsigned numbers[3] = {};
  for (std::size_t i = 0; i < 3; ++i) {
    const auto part = parts[i];
    if (part.empty() || part.size() > 3) return std::nullopt;
    for (const char c : part) {
      if (c < '0' || c > '9') return std::nullopt;
    }
    numbers[i] = static_cast<unsigned>(*parse_uint(part));
  }
  if (numbers[0] == 0 || numbers[0] > 63 || numbers[1] > 255 || numbers[2] > 255) return std::nullopt;
  return GfxVersion{numbers[0], numbers[1], numbers[2]};
}

std::optional<GfxVersion> parse_gfx_name(std::string_view name) {
  if (!name.starts_with("gfx") || name.size() < 6 || name.size() > 8) return std::nullopt;
  const auto digits = name.substr(3);
  const auto major = parse_uint(digits.substr(0, digits.size() - 2), 10);
  const auto minor = parse_uint(digits.substr(digits.size() - 2, 1), 16);
  const auto stepping = parse_uint(digits.substr(digits.size() - 1, 1), 16);
  if (!major || !minor || !stepping || *major == 0) return std::nullopt;
  return GfxVersion{static_cast<unsigned>(*major), static_cast<unsigned>(*minor), static_cast<unsigned>(*stepping)};
}

}  // namespace rocm_doctor

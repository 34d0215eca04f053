// Shared by the fuzz targets: the input as text, and a check that aborts
// (so libFuzzer records a crash) when a parser breaks its own contract.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <utility>

namespace rocm_doctor::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Splits the input at its first newline: for parsers that take two values.
inline std::pair<std::string_view, std::string_view> split_once(std::string_view text) {
  const auto newline = text.find('\n');
  if (newline == std::string_view::npos) return {text, {}};
  return {text.substr(0, newline), text.substr(newline + 1)};
}

inline void require(bool condition, const char* what) {
  if (condition) return;
  std::fprintf(stderr, "fuzz contract broken: %s\n", what);
  std::abort();
}

}  // namespace rocm_doctor::fuzz

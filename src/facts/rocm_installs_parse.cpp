// The pure parts of the ROCm inventory (rocm_doctor/facts/rocm_installs.h): TheRock's dist info
// files, its families (checks/data/rocm_installs.json), and the version strings bundles carry.
#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "facts/rocm_installs_detail.h"
#include "rocm_doctor/facts/rocm_installs.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::string ascii_lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// The value of `NAME ... = <literal>` on a line of _dist_info.py, without its quotes.
std::optional<std::string_view> assignment(std::string_view line, std::string_view name) {
  line = trim(line);
  if (!line.starts_with(name)) return std::nullopt;
  auto rest = line.substr(name.size());
  if (!rest.empty() && rest.front() != ' ' && rest.front() != ':' && rest.front() != '=') return std::nullopt;
  const auto equals = rest.find('=');
  if (equals == std::string_view::npos) return std::nullopt;
  return trim(rest.substr(equals + 1));
}

std::string unquoted_value(std::string_view value) {
  value = trim(value);
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
    return std::string(value.substr(1, value.size() - 2));
  return "";
}

}  // namespace

std::vector<std::string> parse_therock_dist_info(std::string_view json_text) {
  const auto json = nlohmann::json::parse(json_text, nullptr, false);
  std::vector<std::string> targets;
  if (!json.is_object() || !json.contains("dist_amdgpu_targets") || !json["dist_amdgpu_targets"].is_string())
    return targets;
  // Nightly tarballs write cmake's ';' list; local builds the list as given (',' or spaces).
  std::string list = json["dist_amdgpu_targets"].get<std::string>();
  std::replace(list.begin(), list.end(), ';', ' ');
  std::replace(list.begin(), list.end(), ',', ' ');
  for (const auto word : split_words(list)) {
    if (word.starts_with("gfx")) targets.emplace_back(word);
  }
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  return targets;
}

SdkDistInfo parse_sdk_dist_info(std::string_view python_text) {
  SdkDistInfo info;
  for (const auto line : lines(python_text)) {
    if (const auto value = assignment(line, "__version__")) info.version = unquoted_value(*value);
    if (const auto value = assignment(line, "DEFAULT_TARGET_FAMILY")) info.default_family = unquoted_value(*value);
    if (const auto value = assignment(line, "AVAILABLE_TARGET_FAMILIES")) {
      auto list = *value;
      if (!list.starts_with('[')) continue;
      list.remove_prefix(1);
      list = list.substr(0, list.find(']'));
      for (const auto item : split(list, ',')) {
        auto family = unquoted_value(item);
        if (!family.empty()) info.available.push_back(std::move(family));
      }
    }
  }
  return info;
}

std::vector<std::string> family_targets(std::string_view family) {
  const auto& families = installs_detail::install_data().families;
  if (const auto it = families.find(std::string(family)); it != families.end()) return it->second;
  // Every target is also a family of its own (therock_add_amdgpu_target).
  const auto name = std::string(family);
  if (name.starts_with("gfx") && name.find('-') == std::string::npos && name.size() <= 8) {
    for (const auto& [_, targets] : families) {
      if (std::find(targets.begin(), targets.end(), name) != targets.end()) return {name};
    }
  }
  return {};
}

std::string family_of_package(std::string_view package, std::string_view stem) {
  if (!package.starts_with(stem)) return "";
  const auto rest = ascii_lower(package.substr(stem.size()));
  // The longest known family whose underscored, lower-cased name starts the rest: a
  // PY_PACKAGE_SUFFIX_NONCE may follow it.
  std::string best;
  const auto consider = [&](const std::string& family) {
    auto underscored = ascii_lower(family);
    std::replace(underscored.begin(), underscored.end(), '-', '_');
    const bool starts =
        rest.starts_with(underscored) && (rest.size() == underscored.size() || rest[underscored.size()] == '_');
    if (starts && family.size() > best.size()) best = family;
  };
  for (const auto& [family, targets] : installs_detail::install_data().families) {
    consider(family);
    for (const auto& target : targets) consider(target);
  }
  return best;
}

std::string family_for_arch(std::string_view arch, const std::vector<std::string>& available) {
  if (arch.size() < 4) return "";
  const auto has = [&](const std::string& family) {
    return std::find(available.begin(), available.end(), family) != available.end();
  };
  const auto stem = std::string(arch.substr(0, arch.size() - 1)) + "X";
  for (const auto& suffix : installs_detail::install_data().suffixes) {
    if (has(stem + suffix)) return stem + suffix;
  }
  if (has(std::string(arch))) return std::string(arch);
  return "";
}

std::string gfx_of_library_file(std::string_view name) {
  for (const auto& pattern : installs_detail::install_data().rocblas_patterns) {
    if (!name.starts_with(pattern)) continue;
    auto rest = name.substr(pattern.size());
    if (!rest.starts_with("gfx")) continue;
    std::size_t end = 3;
    while (end < rest.size() && std::isalnum(static_cast<unsigned char>(rest[end]))) ++end;
    if (end == 3) continue;
    return std::string(rest.substr(0, end));
  }
  return "";
}

std::string version_of_bundle_folder(std::string_view name) {
  // ollama: rocm_v7_2 (rocm_v6 in older releases: a major only).
  if (name.starts_with("rocm_v")) {
    std::vector<std::string> parts;
    for (const auto part : split(name.substr(6), '_')) {
      if (!all_digits(part)) return "";
      parts.emplace_back(part);
    }
    if (parts.empty()) return "";
    return join(parts, ".");
  }
  // lemonade: <family or gfx>-<version> ("gfx1151-7.13.0").
  // (An application's own version after a dash, as in LM Studio's backend folders, is not ROCm's.)
  const auto dash = name.rfind('-');
  if (dash == std::string_view::npos || family_targets(name.substr(0, dash)).empty()) return "";
  const auto version = name.substr(dash + 1);
  const auto parts = split(version, '.');
  if (parts.size() < 2 || !std::all_of(parts.begin(), parts.end(), all_digits)) return "";
  return std::string(version);
}

std::string rocm_of_library_version(std::string_view version) {
  const auto parts = split(version, '.');
  if (parts.size() != 3 || !all_digits(parts[2]) || parts[2].size() < 5 || parts[2].size() > 6) return "";
  const auto value = parse_uint(parts[2]).value_or(0);
  const auto major = value / 10000;
  const auto minor = (value / 100) % 100;
  const auto patch = value % 100;
  if (major == 0) return "";
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace rocm_doctor

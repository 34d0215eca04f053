#include "rocm_doctor/facts/amdgpu_driver.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "rocm_doctor/data_table.h"
#include "rocm_doctor/facts/dpkg_database.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::amdgpu_driver {

InstalledDriver InstalledDriver::collect(const CheckContext& ctx) {
  InstalledDriver driver;
  if (auto version = ctx.host().read_trimmed("/sys/module/amdgpu/version"); version && !version->empty()) {
    driver.module_version = std::move(*version);
  }
  driver.dkms_package_version = ctx.fact<DpkgDatabase>().installed_version("amdgpu-dkms");
  return driver;
}

std::optional<std::string> rocm_release_from_package_version(std::string_view version) {
  auto upstream = trim(version);
  if (const auto colon = upstream.find(':'); colon != std::string_view::npos) upstream = upstream.substr(colon + 1);
  upstream = upstream.substr(0, upstream.find('-'));
  const auto dot = upstream.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const auto code = upstream.substr(dot + 1);
  if (code.size() != 5 ||
      !std::all_of(code.begin(), code.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) {
    return std::nullopt;
  }
  const auto number = parse_uint(code).value_or(0);
  return std::to_string(number / 10000) + "." + std::to_string(number / 100 % 100) + "." + std::to_string(number % 100);
}

std::string major_minor(std::string_view version) {
  const auto parts = split(version.substr(0, version.find('-')), '.');
  if (parts.size() < 2) return std::string(parts.empty() ? "" : parts[0]);
  return std::string(parts[0]) + "." + std::string(parts[1]);
}

namespace {

constexpr std::string_view kAmdgpuDriverFile = "amdgpu_driver.json";

// Throws on a missing key (std::invalid_argument naming file and key) or a mistyped row.
DriverRules driver_rules_from(data_table::TableReader& reader) {
  const auto top = [&](std::string_view key) -> const nlohmann::json& {
    auto value = reader.at(key);
    if (!value) throw std::invalid_argument(value.error());
    return value->get();
  };
  DriverRules rules;
  const auto& kmd_tested = top("kmd_tested_userspace");
  for (const auto& row : kmd_tested) {
    rules.kmd_tested.push_back({row.at("kmd").get<std::string>(), row.at("userspace").get<std::vector<std::string>>()});
  }
  const auto& userspace_kmd = top("userspace_supported_kmd");
  for (const auto& row : userspace_kmd) {
    rules.userspace_kmd.push_back({row.at("rocm").get<std::string>(), row.at("kmd").get<std::vector<std::string>>()});
  }
  const auto& driver_versions = top("driver_versions");
  for (const auto& row : driver_versions) {
    rules.driver_versions.push_back({row.at("amdgpu").get<std::string>(), {row.at("rocm").get<std::string>()}});
  }
  const auto& line_table = reader.optional("release_driver_lines");
  for (const auto& [release, line] : line_table.items()) {
    if (!release.starts_with('_') && line.is_string())
      rules.driver_lines.push_back({release, {line.get<std::string>()}});
  }
  const auto& window = reader.optional("window_releases");
  rules.window = window.is_number_unsigned() ? window.get<std::size_t>() : 2U;
  rules.year_window_since = reader.text_or("year_window_since", "").value_or("");
  rules.rule = reader.text_or("compatibility_rule", "").value_or("");
  const auto& firmware = reader.optional("firmware_packages");
  for (const auto& [key, package] : firmware.items()) {
    if (package.is_string()) rules.firmware_packages[key] = package.get<std::string>();
  }
  const auto& sources = top("_sources");
  rules.sources = sources.get<std::vector<std::string>>();
  return rules;
}

tl::expected<DriverRules, std::string> read_amdgpu_driver_table(data_table::TableReader& reader) {
  return data_table::read_catching(reader, driver_rules_from);
}

[[maybe_unused]] const bool kAmdgpuDriverLoaderRegistered =
    data_table::register_table_loader<DriverRules, &read_amdgpu_driver_table>(kAmdgpuDriverFile);

}  // namespace

DriverRules parse_driver_rules(std::string_view json_text) {
  return data_table::read_text_or_throw<DriverRules, &read_amdgpu_driver_table>(kAmdgpuDriverFile, json_text);
}

const DriverRules& driver_rules() {
  return data_table::require(data_table::load<DriverRules, &read_amdgpu_driver_table>(kAmdgpuDriverFile));
}

std::optional<std::string> rocm_release_of_driver(const DriverRules& rules, std::string_view amdgpu_version) {
  // /sys/module/amdgpu/version may carry a build suffix: match on major.minor.patch.
  const auto numbers = kb::version_numbers(amdgpu_version);
  if (numbers.size() < 3) return std::nullopt;
  for (const auto& row : rules.driver_versions) {
    const auto want = kb::version_numbers(row.key);
    if (want.size() >= 3 && std::equal(want.begin(), want.begin() + 3, numbers.begin())) return row.values.front();
  }
  return std::nullopt;
}

Compatibility judge_skew(const DriverRules& rules, std::string_view kmd, std::string_view userspace,
                         const std::vector<std::string>& releases) {
  const auto k = major_minor(kmd);
  const auto u = major_minor(userspace);
  // A release and its own point release are one release line, never skew.
  if (k == u) return Compatibility::supported;
  const auto lists = [](const std::vector<std::string>& values, const std::string& value) {
    return std::find(values.begin(), values.end(), value) != values.end();
  };
  // The driver line a ROCm release's amdgpu-dkms ships ("7.1" -> "30.20"), in the terms of userspace_kmd.
  std::string line = k;
  for (const auto& row : rules.driver_lines) {
    if (row.key == k) line = row.values.front();
  }
  for (const auto& row : rules.userspace_kmd) {
    if (row.key == u)
      return lists(row.values, k) || lists(row.values, line) ? Compatibility::supported : Compatibility::unsupported;
  }
  for (const auto& row : rules.kmd_tested) {
    if (row.key == k) return lists(row.values, u) ? Compatibility::supported : Compatibility::unsupported;
  }
  const auto ki = std::find(releases.begin(), releases.end(), k);
  const auto ui = std::find(releases.begin(), releases.end(), u);
  if (ki == releases.end() || ui == releases.end()) return Compatibility::unknown;
  const auto distance = static_cast<std::size_t>(std::abs(std::distance(ki, ui)));
  return distance <= rules.window ? Compatibility::supported : Compatibility::unsupported;
}

}  // namespace rocm_doctor::amdgpu_driver

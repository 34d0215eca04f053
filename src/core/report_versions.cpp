#include "core/report_versions.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "rocm_doctor/facts/amdgpu_driver.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/facts/torch_view.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

// Version strings come from machine files and probes: bounded and printable
// like evidence, and dropped when nothing is left.
constexpr std::size_t kMaxVersionBytes = 120;

void add(VersionList& list, std::string key, std::string_view value) {
  auto text = displayable(trim(value), kMaxVersionBytes, false);
  if (!text.empty()) list.emplace_back(std::move(key), std::move(text));
}

void add_rocm(VersionList& list, const RocmInstallation* install) {
  if (install == nullptr || !install->active) return;
  const auto& active = *install->active;
  add(list, "rocm", active.version);
  add(list, "rocm_packaging",
      active.distro_packaged                ? "distribution"
      : active.layout == RocmLayout::python ? "pip"
                                            : "amd");
  add(list, "rocm_prefix", active.prefix);
  add(list, "hip", active.hip_version);
}

// A probe outcome's result object when it finished, else nullopt.
std::optional<nlohmann::json> ok_result(const nlohmann::json& outcome) {
  if (outcome.value("status", std::string()) != "ok") return std::nullopt;
  const auto result = outcome.find("result");
  if (result == outcome.end() || !result->is_object()) return std::nullopt;
  return *result;
}

// A probe's result object when it ran and finished, else nullopt.
std::optional<nlohmann::json> probe_result(const Host& host, std::string_view name) {
  auto outcome = host.probe(name);
  if (!outcome) return std::nullopt;
  return ok_result(*outcome);
}

void add_string(VersionList& list, std::string key, const nlohmann::json& object, std::string_view field) {
  const auto value = object.find(field);
  if (value != object.end() && value->is_string()) add(list, std::move(key), value->get<std::string>());
}

// The runtime a probe loaded, which may not be the active release's (a shadowing library).
void add_hip_runtime(VersionList& list, const Host& host) {
  if (const auto result = probe_result(host, "hip")) add_string(list, "hip_runtime", *result, "runtime_version_text");
}

void add_driver(VersionList& list, const amdgpu_driver::InstalledDriver* driver) {
  if (driver == nullptr) return;
  using namespace amdgpu_driver;  // NOLINT: the driver rules' vocabulary
  if (driver->module_version) {
    add(list, "amdgpu", *driver->module_version);
    add(list, "amdgpu_source", "module");
    add(list, "amdgpu_rocm", rocm_release_of_driver(driver_rules(), *driver->module_version).value_or(""));
  } else if (driver->dkms_package_version) {
    add(list, "amdgpu", driver_version_of_package(upstream_version(*driver->dkms_package_version)));
    add(list, "amdgpu_source", "amdgpu-dkms");
    add(list, "amdgpu_rocm", rocm_release_from_package_version(*driver->dkms_package_version).value_or(""));
  }
}

// From the torch check's view (its files or its import), when the check ran.
void add_torch(VersionList& list, const TorchView* view) {
  if (view == nullptr || !view->outcome) return;
  const auto result = ok_result(*view->outcome);
  if (!result) return;
  const auto torch = result->find("torch");
  if (torch == result->end() || !torch->is_object()) return;
  add_string(list, "torch", *torch, "version");
  add_string(list, "torch_hip", *torch, "hip");
}

}  // namespace

const std::vector<std::string_view>& version_keys() {
  static const std::vector<std::string_view> keys = {"rocm",   "rocm_packaging", "rocm_prefix", "hip",   "hip_runtime",
                                                     "amdgpu", "amdgpu_source",  "amdgpu_rocm", "torch", "torch_hip"};
  return keys;
}

std::string driver_version_of_package(std::string_view package_version) {
  const auto parts = split(package_version, '.');
  if (parts.size() < 4) return std::string(package_version);
  return std::string(parts[0]) + "." + std::string(parts[1]) + "." + std::string(parts[2]);
}

VersionList collect_versions(const CheckContext& ctx, const std::vector<const Check*>& checks) {
  const auto reads_probe = [&checks](std::string_view name) {
    return std::any_of(checks.begin(), checks.end(), [name](const Check* check) {
      const auto probes = check->probes();
      return std::find(probes.begin(), probes.end(), name) != probes.end();
    });
  };
  VersionList list;
  add_rocm(list, ctx.computed_fact<RocmInstallation>());
  if (reads_probe("hip")) add_hip_runtime(list, ctx.host());
  // An image build runs on some build machine: its driver is not the image's.
  if (!ctx.options().image_mode) add_driver(list, ctx.computed_fact<amdgpu_driver::InstalledDriver>());
  // The torch check's view (computed once per run: the same the check judged).
  add_torch(list, reads_probe("python") ? &ctx.fact<TorchView>() : ctx.computed_fact<TorchView>());
  return list;
}

}  // namespace rocm_doctor

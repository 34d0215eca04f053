// Version files: /opt/rocm/.info/version, share/hip/version, the amdgpu(-dkms)
// module version (/sys/module/amdgpu/version), Debian package versions and
// dpkg's status database.
#include "../../checks/packages.h"
#include "fuzz_input.h"
#include "rocm_doctor/facts/amdgpu_driver.h"
#include "rocm_doctor/facts/dpkg_database.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/kb.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocm_doctor;
  const auto text = fuzz::as_text(data, size);
  (void)parse_rocm_version_file(text);
  (void)parse_hip_version_file(text);
  for (const auto& package : parse_dpkg_status(text)) fuzz::require(!package.name.empty(), "a stanza has a name");
  const auto [first, second] = fuzz::split_once(text);
  (void)parse_versioned_folder(first);
  (void)hip_version_from_library_name(first);
  (void)upstream_version(first);
  (void)compare_versions(first, second);
  fuzz::require(compare_versions(first, first) == 0, "a version equals itself");
  (void)packages::rocm_release_from_package_version(first);
  (void)amdgpu_driver::major_minor(first);
  if (const auto release = amdgpu_driver::rocm_release_of_driver(amdgpu_driver::driver_rules(), first)) {
    (void)amdgpu_driver::judge_skew(amdgpu_driver::driver_rules(), *release, second,
                                    {"6.0", "6.1", "6.2", "6.3", "6.4"});
  }
  (void)amdgpu_driver::judge_skew(amdgpu_driver::driver_rules(), first, second, {"6.0", "6.1", "6.2"});
  return 0;
}

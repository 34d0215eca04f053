// /proc/cmdline (and GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub).
#include "../../checks/driver.h"
#include "../../checks/topology.h"
#include "fuzz_input.h"
#include "rocm_doctor/kernel_cmdline_fix.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocm_doctor;
  const auto text = fuzz::as_text(data, size);
  const auto cmdline = driver::parse_kernel_cmdline(text);
  (void)cmdline.disables_modeset();
  (void)topology::cmdline_iommu_arg(text, {"iommu=pt", "amd_iommu=off", "iommu=off"});
  (void)grub_variable(text, "GRUB_CMDLINE_LINUX_DEFAULT");
  return 0;
}

// /proc/cmdline (and GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub).
#include "../../checks/driver.h"
#include "../../checks/topology.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocm_doctor;
  const auto text = fuzz::as_text(data, size);
  const auto cmdline = driver::parse_kernel_cmdline(text);
  (void)cmdline.disables_modeset();
  (void)topology::cmdline_iommu_arg(text, {"iommu=pt", "amd_iommu=off", "iommu=off"});
  (void)topology::grub_default_cmdline(text);
  return 0;
}

// /etc/os-release (KEY=value, KEY="quoted value"), and its VERSION_ID and the
// kernel release as the platform check matches them against the support list.
#include "../../checks/platform.h"
#include "fuzz_input.h"
#include "rocm_doctor/text.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocm_doctor;
  const auto text = fuzz::as_text(data, size);
  const auto values = parse_env_file(text);
  if (const auto it = values.find("VERSION_ID"); it != values.end()) {
    for (const auto listed : {"22.04.5", "9.4", "15 SP5", "12"}) (void)platform::version_matches(it->second, listed);
  }
  static const auto kernels = platform::listed_kernels("5.15 GA, 6.8 HWE, 6.4.0/6.5.0+ ; 5.14.21");
  (void)platform::kernel_matches(fuzz::split_once(text).first, kernels);
  return 0;
}

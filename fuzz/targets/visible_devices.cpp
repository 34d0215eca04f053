// HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES values, and the
// architecture lists (PYTORCH_ROCM_ARCH, AMDGPU_TARGETS) and variable names the env check reads.
#include "../../checks/env_lint.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocm_doctor;
  const auto text = fuzz::as_text(data, size);
  for (const bool allow_uuid : {false, true}) {
    const auto list = env_lint::parse_device_list(text, allow_uuid);
    if (list.hides_all) fuzz::require(list.error.empty(), "a list that hides every GPU is well formed");
  }
  for (const auto& arch : env_lint::parse_arch_list(text)) (void)env_lint::base_target(arch);
  (void)env_lint::judge_variable(fuzz::split_once(text).first);
  return 0;
}

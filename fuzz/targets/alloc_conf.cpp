// PYTORCH_HIP_ALLOC_CONF / PYTORCH_CUDA_ALLOC_CONF values.
#include "../../checks/env_lint.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocm_doctor;
  if (const auto error = env_lint::check_alloc_conf(fuzz::as_text(data, size))) {
    fuzz::require(!error->reason.empty(), "a rejected allocator setting says why");
  }
  return 0;
}

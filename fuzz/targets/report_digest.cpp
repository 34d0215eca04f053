// A JSON report as `rocm-doctor diff` and `fleet` read it (docs/report-format.md).
#include "report/report_digest.h"

#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocm_doctor;
  const auto digest = parse_report_digest(fuzz::as_text(data, size));
  if (digest) {
    fuzz::require(!digest->worst.empty(), "a digest always has a worst severity");
    (void)severity_rank(digest->worst);
  }
  return 0;
}

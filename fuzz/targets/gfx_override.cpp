// HSA_OVERRIDE_GFX_VERSION values and gfx target names.
#include "fuzz_input.h"
#include "rocm_doctor/kb.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocm_doctor;
  const auto text = fuzz::as_text(data, size);
  if (const auto version = parse_override_value(text)) {
    fuzz::require(parse_override_value(override_string(*version)) == version, "an override value round-trips");
  }
  if (const auto version = parse_gfx_name(text)) (void)gfx_name(*version);
  (void)kb::version_numbers(text);
  return 0;
}

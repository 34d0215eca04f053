// KFD topology nodes/<n>/properties and io_links/<n>/properties ("key value" lines).
#include "../../checks/topology.h"
#include "fuzz_input.h"
#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/kb.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocm_doctor;
  const auto text = fuzz::as_text(data, size);
  if (const auto node = parse_kfd_properties(0, text)) {
    fuzz::require(!node->values.empty(), "a parsed node has values");
    (void)node->is_gpu();
    if (const auto version = decode_gfx_target_version(node->get("gfx_target_version").value_or(0))) {
      (void)gfx_name(*version);
    }
    (void)bdf_from_location(node->get("location_id").value_or(0), node->get("domain").value_or(0));
  }
  (void)topology::parse_io_link(text);
  return 0;
}

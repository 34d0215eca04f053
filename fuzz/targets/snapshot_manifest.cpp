// snapshot.json of a snapshot folder (docs/snapshot-format.md).
#include "host/snapshot_manifest.h"

#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocm_doctor;
  const auto manifest = parse_snapshot_manifest(fuzz::as_text(data, size));
  if (!manifest) {
    fuzz::require(!manifest.error().empty(), "a rejected manifest says why");
    return 0;
  }
  // What was accepted writes back out as a manifest that is accepted again.
  const auto again = parse_snapshot_manifest(to_json(*manifest).dump());
  fuzz::require(again.has_value(), "an accepted manifest round-trips");
  fuzz::require(again->env == manifest->env && again->unreadable == manifest->unreadable,
                "a round-tripped manifest keeps its environment and unreadable paths");
  fuzz::require(again->nodes.size() == manifest->nodes.size() && again->stat.size() == manifest->stat.size(),
                "a round-tripped manifest keeps its device nodes and recorded owners");
  return 0;
}

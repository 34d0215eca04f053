// Synthetic healthy nodes with N GPUs (tests/scenarios/gen_synthetic_node.py),
// shared by the scaling test and the benchmarks (bench/).
#pragma once

#include <filesystem>
#include <string>
#include <tl/expected.hpp>

namespace rocm_doctor::testing {

// Writes a snapshot folder of a node with `gpus` MI300X GPUs and `groups`
// extra /etc/group entries to `folder` (replaced); the error is the generator's stderr.
tl::expected<void, std::string> write_synthetic_node(const std::filesystem::path& folder, int gpus, int groups = 0);

}  // namespace rocm_doctor::testing

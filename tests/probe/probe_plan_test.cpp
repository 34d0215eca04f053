// Which runtime probes a run starts: those its selected checks read, and at
// --level standard the GPU runtimes only where a GPU driver is.
#include <gtest/gtest.h>

#include "probe/probe_runner.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor::testing {
namespace {

using probe::planned_probes;
using probe::ProbeLevel;
using Names = std::vector<std::string>;

std::vector<const Check*> checks(const std::vector<std::string>& ids) {
  std::vector<const Check*> selected;
  for (const auto& id : ids) selected.push_back(find_check(id));
  return selected;
}

// A machine whose only GPU trace is `marker` (none when empty); the builder owns its folder.
struct Machine {
  explicit Machine(const std::string& marker) {
    builder.os_release("debian", "12", "Debian GNU/Linux 12 (bookworm)");
    if (marker == "kfd") builder.node("/dev/kfd", Node::chr("0660", 0, 110));
    if (marker == "dxg") builder.node("/dev/dxg", Node::chr("0666", 0, 0));
    if (marker == "amdgpu") builder.file("/sys/module/amdgpu/initstate", "live\n");
    host = builder.open();
  }
  const SnapshotHost& operator*() const { return *host; }
  SnapshotBuilder builder;
  std::unique_ptr<SnapshotHost> host;
};

TEST(ProbePlan, StartsOnlyTheProbesTheSelectedChecksRead) {
  const Machine host("kfd");
  const auto& all = registered_checks();
  EXPECT_EQ(planned_probes(ProbeLevel::standard, all, *host, false), (Names{"hip", "smi", "python"}));
  EXPECT_EQ(planned_probes(ProbeLevel::standard, checks({"torch"}), *host, false), (Names{"python"}));
  EXPECT_EQ(planned_probes(ProbeLevel::standard, checks({"hip", "os"}), *host, false), (Names{"hip"}));
  EXPECT_EQ(planned_probes(ProbeLevel::standard, checks({"probe"}), *host, false), (Names{"hip", "smi"}));
  EXPECT_TRUE(planned_probes(ProbeLevel::standard, checks({"os", "driver", "access"}), *host, false).empty());
  EXPECT_TRUE(planned_probes(ProbeLevel::quick, all, *host, false).empty());
}

TEST(ProbePlan, SkippingTorchAndMiopenStartsNoPython) {
  const Machine host("kfd");
  std::vector<const Check*> selected;
  for (const Check* check : registered_checks()) {
    if (check->id() != "torch" && check->id() != "miopen") selected.push_back(check);
  }
  EXPECT_EQ(planned_probes(ProbeLevel::standard, selected, *host, false), (Names{"hip", "smi"}));
}

TEST(ProbePlan, WithoutAGpuDriverStandardLoadsNoGpuRuntime) {
  const Machine none("");
  EXPECT_FALSE(probe::has_gpu_driver_interface(*none));
  const auto& all = registered_checks();
  EXPECT_EQ(planned_probes(ProbeLevel::standard, all, *none, false), (Names{"python"}));
  // --level full and image builds (where the runtime loading is the point) still load it.
  EXPECT_EQ(planned_probes(ProbeLevel::full, all, *none, false), (Names{"hip", "smi", "python"}));
  EXPECT_EQ(planned_probes(ProbeLevel::standard, all, *none, true), (Names{"hip", "smi", "python"}));
}

TEST(ProbePlan, AnyGpuDriverInterfaceCounts) {
  for (const auto* marker : {"kfd", "dxg", "amdgpu"}) {
    const Machine host(marker);
    EXPECT_TRUE(probe::has_gpu_driver_interface(*host)) << marker;
    EXPECT_EQ(planned_probes(ProbeLevel::standard, checks({"hip", "smi"}), *host, false), (Names{"hip", "smi"}))
        << marker;
  }
}

// Under WSL2 the Windows side: dxcore where /dev/dxg is, wsl-interop only while interop is on,
// neither for an image build.
TEST(ProbePlan, TheWindowsSideOnlyUnderWsl2) {
  const auto wsl = [](const char* interop) {
    auto machine = std::make_unique<Machine>("dxg");
    if (interop != nullptr) {
      machine->builder.file("/proc/sys/fs/binfmt_misc/WSLInterop", std::string(interop) + "\ninterpreter /init\n");
    }
    machine->host = machine->builder.open();
    return machine;
  };
  const auto on = wsl("enabled");
  EXPECT_EQ(planned_probes(ProbeLevel::standard, checks({"wsl"}), **on, false),
            (Names{"hip", "dxcore", "wsl-interop"}));
  EXPECT_EQ(planned_probes(ProbeLevel::standard, checks({"wsl"}), **on, true), (Names{"hip"}));
  EXPECT_TRUE(planned_probes(ProbeLevel::quick, checks({"wsl"}), **on, false).empty());
  const auto off = wsl("disabled");
  EXPECT_EQ(planned_probes(ProbeLevel::standard, checks({"wsl"}), **off, false), (Names{"hip", "dxcore"}));
  const auto absent = wsl(nullptr);
  EXPECT_EQ(planned_probes(ProbeLevel::standard, checks({"wsl"}), **absent, false), (Names{"hip", "dxcore"}));
  const Machine native("kfd");
  EXPECT_EQ(planned_probes(ProbeLevel::standard, checks({"wsl"}), *native, false), (Names{"hip"}));
}

}  // namespace
}  // namespace rocm_doctor::testing

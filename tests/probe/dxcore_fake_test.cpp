// The dxcore probe against the fake libdxcore.so (tests/fake_runtime/fake_dxcore.cpp)
// first on LD_LIBRARY_PATH: its child reads the adapters through the DXCore vtables,
// and a crash or a hang inside libdxcore stays in the child, like the HIP probe's.
#include <gtest/gtest.h>

#include <chrono>

#include "probe/dxcore_probe.h"
#include "probe/probe_runner.h"
#include "rocm_doctor/facts/wsl_adapters.h"

namespace rocm_doctor::testing {
namespace {

#ifdef ROCM_DOCTOR_SANITIZED
constexpr bool kSanitizedBuild = true;
#else
constexpr bool kSanitizedBuild = false;
#endif

using namespace std::chrono_literals;

// The child's time limit: an instrumented (ASan) doctor starts more slowly.
constexpr std::chrono::seconds kTimeout{kSanitizedBuild ? 10 : 2};

nlohmann::json run_dxcore(const std::string& behaviour) {
  probe::ProbeRunnerOptions options;
  options.names = std::vector<std::string>{"dxcore"};
  options.timeout = kTimeout;
  options.executable = ROCM_DOCTOR_BINARY;
  options.extra_env = {std::string("LD_LIBRARY_PATH=") + ROCM_DOCTOR_FAKE_RUNTIME_DIR,
                       "ROCM_DOCTOR_FAKE_DXCORE=" + behaviour};
  const auto start = std::chrono::steady_clock::now();
  probe::ProbeRunner runner(options);
  auto outcome = runner.result("dxcore");
  // A correctness bound, not a benchmark: the probe never holds the run past its timeout.
  EXPECT_LT(std::chrono::steady_clock::now() - start, kTimeout + 1s) << behaviour;
  return outcome.value_or(nlohmann::json());
}

TEST(FakeDxcore, TheAdaptersComeBackThroughTheVtables) {
  const auto outcome = run_dxcore("rx9070");
  ASSERT_EQ(outcome.value("status", ""), "ok") << outcome.dump();
  const auto& result = outcome["result"];
  EXPECT_EQ(result["library"]["status"], "loaded");
  ASSERT_EQ(result["adapter_count"], 2);
  const auto& gpu = result["adapters"][0];
  EXPECT_EQ(gpu["vendor_id"], "0x1002");
  EXPECT_EQ(gpu["device_id"], "0x7550");
  EXPECT_EQ(gpu["revision_id"], "0xc0");
  EXPECT_EQ(gpu["subsystem_vendor_id"], "0x1002");
  EXPECT_EQ(gpu["subsystem_device_id"], "0x2410");
  EXPECT_EQ(gpu["description"], "AMD Radeon RX 9070 XT");
  EXPECT_EQ(gpu["driver_version"], "32.0.21013.1000");
  EXPECT_EQ(gpu["dedicated_adapter_memory"], (16ULL << 30) - (80ULL << 20));
  EXPECT_EQ(gpu["shared_system_memory"], 16ULL << 30);
  EXPECT_EQ(gpu["is_hardware"], true);
  EXPECT_EQ(result["adapters"][1]["is_hardware"], false);
  // And the fact the check and gpus[] use: named and targeted through the PCI id table.
  const auto adapters = parse_wsl_adapters(outcome);
  ASSERT_EQ(adapters.adapters.size(), 2U);
  EXPECT_EQ(adapters.adapters[0].gfx, "gfx1201");
  EXPECT_EQ(adapters.adapters[0].name, "AMD Radeon RX 9070 XT");
  EXPECT_EQ(adapters.gpu_rows().size(), 1U);  // Microsoft's software adapter is no AMD GPU
}

TEST(FakeDxcore, NoAdapterIsAnEmptyList) {
  const auto outcome = run_dxcore("none");
  ASSERT_EQ(outcome.value("status", ""), "ok");
  EXPECT_EQ(outcome["result"]["adapter_count"], 0);
  const auto adapters = parse_wsl_adapters(outcome);
  EXPECT_TRUE(adapters.unavailable.empty());
  EXPECT_TRUE(adapters.adapters.empty());
}

TEST(FakeDxcore, AFailingFactoryIsNamed) {
  const auto outcome = run_dxcore("factory-fails");
  ASSERT_EQ(outcome.value("status", ""), "ok");
  EXPECT_EQ(outcome["result"]["factory_status"], "0x80004005");
  EXPECT_NE(parse_wsl_adapters(outcome).unavailable.find("0x80004005"), std::string::npos);
}

TEST(FakeDxcore, ASegfaultInsideLibdxcoreIsAProbeCrash) {
  const auto outcome = run_dxcore("segv");
  EXPECT_EQ(outcome.value("status", ""), "crashed") << outcome.dump();
  EXPECT_EQ(outcome.value("signal_name", ""), "SIGSEGV");
  EXPECT_EQ(outcome.value("last_step", ""), "IDXCoreAdapterList::GetAdapterCount");
  EXPECT_NE(parse_wsl_adapters(outcome).unavailable.find("crashed"), std::string::npos);
}

TEST(FakeDxcore, AHangIsKilledAtTheTimeout) {
  const auto start = std::chrono::steady_clock::now();
  const auto outcome = run_dxcore("hang");
  EXPECT_GE(std::chrono::steady_clock::now() - start, kTimeout);
  EXPECT_EQ(outcome.value("status", ""), "timeout") << outcome.dump();
  EXPECT_EQ(outcome.value("last_step", ""), "IDXCoreAdapterFactory::CreateAdapterList");
}

TEST(FakeDxcore, WithoutLibdxcoreTheLibraryIsNotFound) {
  probe::ProbeRunnerOptions options;
  options.names = std::vector<std::string>{"dxcore"};
  options.timeout = kTimeout;
  options.executable = ROCM_DOCTOR_BINARY;
  probe::ProbeRunner runner(options);
  const auto outcome = runner.result("dxcore").value_or(nlohmann::json());
  ASSERT_EQ(outcome.value("status", ""), "ok");
  EXPECT_NE(outcome["result"]["library"]["status"], "loaded");
  EXPECT_EQ(parse_wsl_adapters(outcome).unavailable, "libdxcore.so did not load");
}

TEST(DxcoreProbe, DriverVersionParts) {
  EXPECT_EQ(probe::windows_driver_version_text((32ULL << 48) | (21013ULL << 16) | 1000ULL), "32.0.21013.1000");
  EXPECT_EQ(probe::windows_driver_version_text(0), "0.0.0.0");
}

}  // namespace
}  // namespace rocm_doctor::testing

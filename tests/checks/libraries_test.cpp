// libraries: kernel-file naming (tables of real file names) and the findings on scenario machines.
#include <gtest/gtest.h>

#include "rocm_doctor/facts/math_libraries.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

TEST(LibraryKernels, FindsGfxTokensInRealFileNames) {
  const std::vector<std::pair<std::string, std::set<std::string>>> cases = {
      {"TensileLibrary_lazy_gfx1100.dat", {"gfx1100"}},
      {"Kernels.so-000-gfx90a-xnack+.hsaco", {"gfx90a"}},
      {"TensileLibrary_Type_HH_Contraction_l_Ailk_Bjlk_Cijk_Dijk_gfx1030.co", {"gfx1030"}},
      {"extop_gfx942.co", {"gfx942"}},
      {"TensileManifest.txt", {}},
      {"gfx", {}}};
  for (const auto& [name, tokens] : cases) EXPECT_EQ(gfx_tokens(name), tokens) << name;
}

TEST(LibraryKernels, ReadsSonameVersions) {
  EXPECT_EQ(soname_version("librocblas.so.4.0.60002", "librocblas.so"), "4.0.60002");
  EXPECT_EQ(soname_version("librocblas.so", "librocblas.so"), "");
  EXPECT_FALSE(soname_version("librocblas.so.4.0.60002.bak-x", "librocblas.so"));
  EXPECT_FALSE(soname_version("librocblaslt.so.1", "librocblas.so"));
}

TEST(LibraryKernels, MIOpenMatchesByPrefix) {
  InstalledLibrary miopen;
  miopen.layout = kb::KernelLayout{"prefix", {"share/miopen/db"}, "prefix", "lib.miopen-arch-missing", ""};
  miopen.kernel_dir = "/opt/rocm/share/miopen/db";
  miopen.kernel_files = {"gfx90a6e.kdb", "gfx1030_36.kdb", "gfx1030_36.HIP.fdb.txt"};
  EXPECT_EQ(miopen.carries("gfx90a"), true);
  EXPECT_EQ(miopen.carries("gfx1030"), true);
  EXPECT_EQ(miopen.carries("gfx1031"), false);
  InstalledLibrary none;
  EXPECT_FALSE(none.carries("gfx1030").has_value());
}

Report run_scenario(const std::string& name) {
  auto host = SnapshotHost::open(std::string(ROCM_DOCTOR_SCENARIOS_DIR) + "/" + name);
  if (!host) throw std::runtime_error(host.error());
  return testing::run_on(**host, {"libraries"});
}

TEST(Libraries, MissingTensileFilesNameTheGfxAndTheOverride) {
  const auto report = run_scenario("gpu-rx6700xt-no-override");
  const auto* finding = testing::find_finding(report, "lib.rocblas-arch-missing");
  ASSERT_NE(finding, nullptr);
  EXPECT_NE(finding->summary.find("gfx1031"), std::string::npos);
  ASSERT_FALSE(finding->fixes.empty());
  EXPECT_EQ(finding->fixes[0].commands.front(), "export HSA_OVERRIDE_GFX_VERSION=10.3.0");
}

TEST(Libraries, OverrideTargetIsWhatIsLookedUp) {
  const auto report = run_scenario("gpu-rx6700xt-override-10.3.0");
  EXPECT_EQ(testing::find_finding(report, "lib.rocblas-arch-missing"), nullptr);
  const auto* covered = testing::find_finding(report, "lib.arch-covered");
  ASSERT_NE(covered, nullptr);
  EXPECT_NE(covered->summary.find("gfx1030"), std::string::npos);
}

TEST(Libraries, HipblasltNotBuiltForTheFamilyIsOnlyInfo) {
  const auto report = run_scenario("gpu-rx7900xtx-needless-override");
  const auto* finding = testing::find_finding(report, "lib.hipblaslt-arch-missing");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::info);
}

}  // namespace
}  // namespace rocm_doctor

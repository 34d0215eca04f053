// The ROCm inventory's parsers (rocm_doctor/facts/rocm_installs.h), the rocm-installs check's
// judgements (GPU visibility, rocm_sdk's family pick, systemd Environment= lines), the Core SDK
// repository hosts, and the knowledge base's age; tables of real file contents and edge cases.
#include "../../checks/rocm_installs.h"

#include <gtest/gtest.h>

#include "../../checks/packages.h"
#include "rocm_doctor/facts/rocm_installs.h"
#include "rocm_doctor/knowledge.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using Strings = std::vector<std::string>;

TEST(RocmInstallsParse, TheRockDistInfoTargetsInEverySpelling) {
  EXPECT_EQ(parse_therock_dist_info(R"({"dist_amdgpu_targets": "gfx1100;gfx1101;gfx1102;gfx1103"})"),
            (Strings{"gfx1100", "gfx1101", "gfx1102", "gfx1103"}));
  // A local build writes the list as given to cmake: commas or spaces.
  EXPECT_EQ(parse_therock_dist_info(R"({"dist_amdgpu_targets": "gfx942, gfx90a gfx942"})"),
            (Strings{"gfx90a", "gfx942"}));
  EXPECT_TRUE(parse_therock_dist_info(R"({"dist_amdgpu_targets": ""})").empty());
  EXPECT_TRUE(parse_therock_dist_info(R"({"dist_amdgpu_targets": 7})").empty());
  EXPECT_TRUE(parse_therock_dist_info("not json {").empty());
  EXPECT_TRUE(parse_therock_dist_info("").empty());
}

TEST(RocmInstallsParse, SdkDistInfoAsTheTemplateWritesIt) {
  const auto info = parse_sdk_dist_info(
      "# comment\n__version__ = \"7.13.0\"\nPY_PACKAGE_SUFFIX_NONCE: str = \"\"\n"
      "DEFAULT_TARGET_FAMILY: str = \"gfx110X-all\"\n"
      "AVAILABLE_TARGET_FAMILIES: list[str] = [\"gfx103X-all\", 'gfx120X-all', \"gfx1151\"]\n");
  EXPECT_EQ(info.version, "7.13.0");
  EXPECT_EQ(info.default_family, "gfx110X-all");
  EXPECT_EQ(info.available, (Strings{"gfx103X-all", "gfx120X-all", "gfx1151"}));
  // The bootstrapping template before the build fills it in.
  const auto bare = parse_sdk_dist_info(
      "__version__ = \"DEFAULT\"\nDEFAULT_TARGET_FAMILY: str = \"DEFAULT\"\nAVAILABLE_TARGET_FAMILIES: list[str] = "
      "[]\n");
  EXPECT_TRUE(bare.available.empty());
  EXPECT_EQ(bare.default_family, "DEFAULT");
  EXPECT_TRUE(parse_sdk_dist_info("AVAILABLE_TARGET_FAMILIES = [\"unterminated\n").available.empty());
}

TEST(RocmInstallsParse, FamiliesFromTheRocksTargetTable) {
  EXPECT_EQ(family_targets("gfx110X-all"), (Strings{"gfx1100", "gfx1101", "gfx1102", "gfx1103"}));
  EXPECT_EQ(family_targets("gfx120X-all"), (Strings{"gfx1200", "gfx1201"}));
  EXPECT_EQ(family_targets("gfx103X-igpu"), (Strings{"gfx1035", "gfx1036"}));
  EXPECT_EQ(family_targets("gfx1151"), (Strings{"gfx1151"}));  // every target is a family of its own
  EXPECT_TRUE(family_targets("gfx9999").empty());
  EXPECT_TRUE(family_targets("").empty());
}

TEST(RocmInstallsParse, FamilyOfAnImportablePackage) {
  EXPECT_EQ(family_of_package("_rocm_sdk_libraries_gfx110X_all", "_rocm_sdk_libraries_"), "gfx110X-all");
  EXPECT_EQ(family_of_package("_rocm_sdk_libraries_gfx1151", "_rocm_sdk_libraries_"), "gfx1151");
  EXPECT_EQ(family_of_package("_rocm_sdk_device_gfx120x_all", "_rocm_sdk_device_"), "gfx120X-all");
  // A PY_PACKAGE_SUFFIX_NONCE after the family.
  EXPECT_EQ(family_of_package("_rocm_sdk_libraries_gfx94X_dcgpu_7_13", "_rocm_sdk_libraries_"), "gfx94X-dcgpu");
  EXPECT_EQ(family_of_package("_rocm_sdk_core", "_rocm_sdk_libraries_"), "");
  EXPECT_EQ(family_of_package("_rocm_sdk_libraries_", "_rocm_sdk_libraries_"), "");
  EXPECT_EQ(family_of_package("_rocm_sdk_libraries_gfx110Xall", "_rocm_sdk_libraries_"), "");
}

TEST(RocmInstallsParse, RocmSdksPickForAnOffloadArchLine) {
  const Strings available = {"gfx103X-all", "gfx110X-all", "gfx1151", "gfx120X-all", "gfx94X-dcgpu"};
  EXPECT_EQ(family_for_arch("gfx1036", available), "gfx103X-all");
  EXPECT_EQ(family_for_arch("gfx1201", available), "gfx120X-all");
  EXPECT_EQ(family_for_arch("gfx1151", available), "gfx1151");  // no gfx115X-* available: the arch itself
  EXPECT_EQ(family_for_arch("gfx942", available), "gfx94X-dcgpu");
  EXPECT_EQ(family_for_arch("gfx90a", available), "");
  EXPECT_EQ(family_for_arch("gfx", available), "");
  EXPECT_EQ(family_for_arch("gfx1100", {}), "");
}

TEST(RocmInstallsParse, TargetsInRocblasFileNames) {
  EXPECT_EQ(gfx_of_library_file("TensileLibrary_lazy_gfx1151.dat"), "gfx1151");
  EXPECT_EQ(gfx_of_library_file("Kernels.so-000-gfx90a-xnack-.hsaco"), "gfx90a");
  EXPECT_EQ(gfx_of_library_file("TensileLibrary_gfx1030.co"), "gfx1030");
  EXPECT_EQ(gfx_of_library_file("TensileLibrary_Type_HH_Contraction_l_Ailk_Bjlk_Cijk_Dijk_gfx1100.co"), "");
  EXPECT_EQ(gfx_of_library_file("TensileManifest.txt"), "");
  EXPECT_EQ(gfx_of_library_file("TensileLibrary_lazy_gfx.dat"), "");
}

TEST(RocmInstallsParse, VersionsBundlesCarry) {
  EXPECT_EQ(version_of_bundle_folder("rocm_v7_2"), "7.2");
  EXPECT_EQ(version_of_bundle_folder("rocm_v6"), "6");
  EXPECT_EQ(version_of_bundle_folder("rocm_v7_x"), "");
  EXPECT_EQ(version_of_bundle_folder("gfx1151-7.13.0"), "7.13.0");
  EXPECT_EQ(version_of_bundle_folder("gfx110X-all-7.13.0"), "7.13.0");
  EXPECT_EQ(version_of_bundle_folder("rocm"), "");
  EXPECT_EQ(version_of_bundle_folder("llama.cpp-linux-x86_64-amd-rocm-avx2-1.40.0"), "");  // LM Studio's own
  EXPECT_EQ(version_of_bundle_folder("nightly-7.13.0"), "");
  EXPECT_EQ(rocm_of_library_version("5.2.70201"), "7.2.1");
  EXPECT_EQ(rocm_of_library_version("4.2.60204"), "6.2.4");
  EXPECT_EQ(rocm_of_library_version("5.8.100200"), "10.2.0");
  EXPECT_EQ(rocm_of_library_version("5.2"), "");
  EXPECT_EQ(rocm_of_library_version("5.2.7"), "");
  EXPECT_EQ(rocm_of_library_version("5.2.abcde"), "");
}

using rocm_installs_check::Environment;
using rocm_installs_check::SeenGpu;

std::vector<SeenGpu> igpu_and_dgpu() {
  return {{0, "gfx1036", "gfx1036", "GPU 0 iGPU"}, {1, "gfx1201", "gfx1201", "GPU 1 R9700"}};
}

Strings indices(const std::vector<SeenGpu>& gpus) {
  Strings out;
  for (const auto& gpu : gpus) out.push_back(std::to_string(gpu.index));
  return out;
}

TEST(RocmInstallsJudge, VisibilityComposesRocrThenHip) {
  const auto all = igpu_and_dgpu();
  EXPECT_EQ(indices(rocm_installs_check::visible(all, {}, true)), (Strings{"0", "1"}));
  EXPECT_EQ(indices(rocm_installs_check::visible(all, {{"HIP_VISIBLE_DEVICES", "1"}}, true)), (Strings{"1"}));
  // HIP_VISIBLE_DEVICES does not reach the HSA level offload-arch lists from.
  EXPECT_EQ(indices(rocm_installs_check::visible(all, {{"HIP_VISIBLE_DEVICES", "1"}}, false)), (Strings{"0", "1"}));
  EXPECT_EQ(indices(rocm_installs_check::visible(all, {{"ROCR_VISIBLE_DEVICES", "1"}}, false)), (Strings{"1"}));
  // HIP numbers within what ROCR left: ROCR=1 then HIP=0 is the machine's GPU 1.
  EXPECT_EQ(
      indices(rocm_installs_check::visible(all, {{"ROCR_VISIBLE_DEVICES", "1"}, {"HIP_VISIBLE_DEVICES", "0"}}, true)),
      (Strings{"1"}));
  EXPECT_EQ(indices(rocm_installs_check::visible(all, {{"CUDA_VISIBLE_DEVICES", "1"}}, true)), (Strings{"1"}));
  EXPECT_TRUE(rocm_installs_check::visible(all, {{"HIP_VISIBLE_DEVICES", "-1"}}, true).empty());
  EXPECT_TRUE(rocm_installs_check::visible(all, {{"HIP_VISIBLE_DEVICES", "5"}}, true).empty());
  // A UUID or a malformed list: the doctor cannot tell, so it keeps every GPU.
  EXPECT_EQ(indices(rocm_installs_check::visible(all, {{"ROCR_VISIBLE_DEVICES", "GPU-4b2c1a9f00000000"}}, true)),
            (Strings{"0", "1"}));
  EXPECT_EQ(indices(rocm_installs_check::visible(all, {{"HIP_VISIBLE_DEVICES", "one"}}, true)), (Strings{"0", "1"}));
}

TEST(RocmInstallsJudge, FamilyPickLikeDetermineTargetFamily) {
  TheRockFamilies sdk;
  sdk.available = {"gfx103X-all", "gfx110X-all", "gfx120X-all"};
  sdk.default_family = "gfx110X-all";
  const auto all = igpu_and_dgpu();
  auto pick = rocm_installs_check::pick_family(sdk, all, {});
  EXPECT_EQ(pick.reason, "offload-arch");
  EXPECT_EQ(pick.candidates, (Strings{"gfx103X-all", "gfx120X-all"}));  // an unordered set: either may win
  pick = rocm_installs_check::pick_family(sdk, all, {{"ROCM_SDK_TARGET_FAMILY", "gfx120X-all"}});
  EXPECT_EQ(pick.reason, "ROCM_SDK_TARGET_FAMILY");
  EXPECT_EQ(pick.candidates, (Strings{"gfx120X-all"}));
  pick = rocm_installs_check::pick_family(sdk, {{0, "gfx90a", "gfx90a", "GPU 0"}}, {});
  EXPECT_EQ(pick.reason, "DEFAULT_TARGET_FAMILY");
  EXPECT_EQ(pick.candidates, (Strings{"gfx110X-all"}));
  // An override changes what HIP runs, not what offload-arch lists.
  pick = rocm_installs_check::pick_family(sdk, {{0, "gfx1036", "gfx1100", "GPU 0"}}, {});
  EXPECT_EQ(pick.candidates, (Strings{"gfx103X-all"}));
  EXPECT_TRUE(rocm_installs_check::pick_family({}, {}, {}).candidates.empty());
}

TEST(RocmInstallsJudge, SystemdEnvironmentLines) {
  const auto env = rocm_installs_check::parse_unit_environment(
      "[Service]\nExecStart=/usr/local/bin/ollama serve\nEnvironment=\"PATH=/usr/bin:/bin\"\n"
      "Environment=\"HSA_OVERRIDE_GFX_VERSION=11.0.0\" OLLAMA_HOST=0.0.0.0\n"
      "Environment=\"SPACED=a b\"\nEnvironment==broken \"unterminated=1\n#Environment=COMMENTED=1\n");
  EXPECT_EQ(env.at("PATH"), "/usr/bin:/bin");
  EXPECT_EQ(env.at("HSA_OVERRIDE_GFX_VERSION"), "11.0.0");
  EXPECT_EQ(env.at("OLLAMA_HOST"), "0.0.0.0");
  EXPECT_EQ(env.at("SPACED"), "a b");
  EXPECT_EQ(env.at("unterminated"), "1");
  EXPECT_FALSE(env.contains("COMMENTED"));
  EXPECT_TRUE(rocm_installs_check::parse_unit_environment("").empty());
}

const RocmInstall* install_at(const RocmInstalls& installs, std::string_view prefix) {
  return installs.find(prefix);
}

TEST(RocmInstallsCollect, EveryPlaceFromItsOwnFiles) {
  testing::SnapshotBuilder machine;
  machine.env("HOME", "/home/alice")
      .env("ROCM_PATH", "/home/alice/rocm/7.13.0")
      // ollama's payload: the version in the folder's name, rocBLAS's targets by file name.
      .file("/usr/lib/ollama/rocm_v7_2/libamdhip64.so.7", "")
      .file("/usr/lib/ollama/rocm_v7_2/rocblas/library/TensileLibrary_lazy_gfx1151.dat", "")
      .file("/usr/lib/ollama/rocm_v7_2/rocblas/library/TensileLibrary_lazy_gfx1100.dat", "")
      .file("/usr/bin/ollama", "")
      // An older bundle without its version in the name: rocBLAS's soname says 6.2.4.
      .file("/usr/local/lib/ollama/rocm/libamdhip64.so.6", "")
      .file("/usr/local/lib/ollama/rocm/librocblas.so.4.2.60204", "")
      // A TheRock tarball named by ROCM_PATH.
      .file("/home/alice/rocm/7.13.0/.info/version", "7.13.0\n")
      .file("/home/alice/rocm/7.13.0/lib/libamdhip64.so.7", "")
      .file("/home/alice/rocm/7.13.0/share/therock/dist_info.json", R"({"dist_amdgpu_targets": "gfx1100;gfx1101"})")
      // TheRock's pip packages in a venv.
      .file("/home/alice/.venv/bin/python3", "")
      .file("/home/alice/.venv/lib/python3.12/site-packages/_rocm_sdk_core/lib/libamdhip64.so.7", "")
      .file("/home/alice/.venv/lib/python3.12/site-packages/rocm_sdk_core-7.13.0.dist-info/METADATA", "")
      .file("/home/alice/.venv/lib/python3.12/site-packages/_rocm_sdk_libraries_gfx120X_all/__init__.py", "")
      // lemonade's TheRock download, its family in the folder's name.
      .file("/home/alice/.cache/lemonade/bin/therock/gfx103X-all-7.13.0/lib/libamdhip64.so.7", "")
      // LM Studio's ROCm backend: its own version is not ROCm's.
      .file("/home/alice/.lmstudio/extensions/backends/llama.cpp-linux-x86_64-amd-rocm-avx2-1.40.0/libggml-hip.so",
            "not an ELF");
  const auto host = machine.open();
  const RunOptions options;
  const CheckContext ctx(*host, options);
  const auto& installs = ctx.fact<RocmInstalls>();

  const auto* ollama = install_at(installs, "/usr/lib/ollama/rocm_v7_2");
  ASSERT_NE(ollama, nullptr);
  EXPECT_EQ(ollama->kind, InstallKind::ollama);
  EXPECT_EQ(ollama->version, "7.2");
  EXPECT_EQ(ollama->gfx, (Strings{"gfx1100", "gfx1151"}));
  EXPECT_EQ(ollama->used_by, (Strings{"ollama (/usr/bin/ollama)"}));
  const auto* older = install_at(installs, "/usr/local/lib/ollama/rocm");
  ASSERT_NE(older, nullptr);
  EXPECT_EQ(older->version, "6.2.4");
  const auto* tarball = install_at(installs, "/home/alice/rocm/7.13.0");
  ASSERT_NE(tarball, nullptr);
  EXPECT_EQ(tarball->kind, InstallKind::standalone);
  EXPECT_EQ(tarball->version, "7.13.0");
  EXPECT_EQ(tarball->gfx, (Strings{"gfx1100", "gfx1101"}));
  EXPECT_EQ(tarball->selected_by, "ROCM_PATH");
  EXPECT_EQ(installs.root_source, "ROCM_PATH");
  EXPECT_FALSE(installs.root_missing);
  const auto* wheel = install_at(installs, "/home/alice/.venv/lib/python3.12/site-packages/_rocm_sdk_core");
  ASSERT_NE(wheel, nullptr);
  EXPECT_EQ(wheel->kind, InstallKind::python_wheel);
  EXPECT_EQ(wheel->version, "7.13.0");
  EXPECT_EQ(wheel->families, (Strings{"gfx120X-all"}));
  EXPECT_EQ(wheel->gfx, (Strings{"gfx1200", "gfx1201"}));
  EXPECT_EQ(wheel->python, "/home/alice/.venv/bin/python3");
  ASSERT_EQ(installs.therock.size(), 1U);
  EXPECT_EQ(installs.therock.front().available, (Strings{"gfx120X-all"}));  // no _dist_info.py: what is installed
  const auto* lemonade = install_at(installs, "/home/alice/.cache/lemonade/bin/therock/gfx103X-all-7.13.0");
  ASSERT_NE(lemonade, nullptr);
  EXPECT_EQ(lemonade->version, "7.13.0");
  EXPECT_EQ(lemonade->families, (Strings{"gfx103X-all"}));
  EXPECT_EQ(lemonade->gfx, (Strings{"gfx1030", "gfx1032", "gfx1035", "gfx1036"}));
  const auto* studio =
      install_at(installs, "/home/alice/.lmstudio/extensions/backends/llama.cpp-linux-x86_64-amd-rocm-avx2-1.40.0");
  ASSERT_NE(studio, nullptr);
  EXPECT_EQ(studio->version, "");
  EXPECT_FALSE(studio->brings_hip());
  EXPECT_TRUE(studio->gfx.empty());  // a file that is not an ELF carries nothing known
  EXPECT_TRUE(installs.any_hip_runtime());
  const auto json = installs.to_json();
  EXPECT_EQ(json["root"]["source"], "ROCM_PATH");
  EXPECT_EQ(json["installs"].size(), installs.installs.size());
}

TEST(RocmInstallsCollect, ARootThatHoldsNoRocmIsSaid) {
  testing::SnapshotBuilder machine;
  machine.env("HOME", "/home/alice").env("HIP_PATH", "/opt/rocm/hip").dir("/home/alice");
  const auto host = machine.open();
  const RunOptions options;
  const CheckContext ctx(*host, options);
  const auto& installs = ctx.fact<RocmInstalls>();
  EXPECT_TRUE(installs.installs.empty());
  EXPECT_EQ(installs.root, "/opt/rocm/hip");
  EXPECT_EQ(installs.root_source, "HIP_PATH");
  EXPECT_TRUE(installs.root_missing);
  EXPECT_FALSE(installs.any_hip_runtime());
}

TEST(PackagesParse, CoreSdkChannelsAreAmdRepositories) {
  const auto hosts = packages::repo_hosts();
  ASSERT_FALSE(hosts.core_sdk.empty()) << "rocm_packages.json core_sdk_channels.hosts";
  const auto core = packages::parse_amd_repo_url("https://stable.repo.amd.com/rocm/core/packages/ubuntu2404/", hosts);
  ASSERT_TRUE(core);
  EXPECT_EQ(core->kind, "core-sdk");
  EXPECT_FALSE(core->release);
  const auto nightly = packages::parse_amd_repo_url("https://rocm.nightlies.amd.com/deb/10.3.0/ubuntu2404", hosts);
  ASSERT_TRUE(nightly);
  EXPECT_EQ(nightly->release.value_or(""), "10.3.0");
  const auto legacy = packages::parse_amd_repo_url("https://repo.radeon.com/rocm/apt/6.2.4", hosts);
  ASSERT_TRUE(legacy);
  EXPECT_EQ(legacy->kind, "rocm");
  EXPECT_FALSE(packages::parse_amd_repo_url("http://archive.ubuntu.com/ubuntu", hosts));
  // The legacy parser stays the legacy repository's: the repo-suite rules are about it.
  EXPECT_FALSE(packages::parse_radeon_url("https://stable.repo.amd.com/rocm/core/packages/ubuntu2404/"));
  EXPECT_TRUE(packages::parse_radeon_url("https://REPO.RADEON.COM/amdgpu/6.1/ubuntu"));
}

TEST(KnowledgeAge, DaysBetweenCivilDates) {
  EXPECT_EQ(knowledge::days_between("2026-11-23", "2026-12-01"), 8);
  EXPECT_EQ(knowledge::days_between("2024-02-28", "2024-03-01"), 2);  // a leap year
  EXPECT_EQ(knowledge::days_between("2026-12-01", "2026-11-30"), -1);
  EXPECT_EQ(knowledge::days_between("2025-12-31", "2026-01-01"), 1);
  EXPECT_FALSE(knowledge::days_between("", "2026-12-01"));
  EXPECT_FALSE(knowledge::days_between("2026-13-01", "2026-12-01"));
  EXPECT_FALSE(knowledge::days_between("2026-11", "2026-12-01"));
  EXPECT_FALSE(knowledge::days_between("26-11-23", "2026-12-01"));
}

TEST(KnowledgeAge, TheNewestReleaseRowIsTenTwoAndItsAgeIsSaid) {
  const auto data = knowledge::describe_json({}, "2026-12-01");
  EXPECT_EQ(data["as_of"]["newest_release"], "10.2.0");
  EXPECT_EQ(data["as_of"]["newest_release_age_days"], 8);
  const auto text = knowledge::describe({}, "2026-12-01");
  EXPECT_NE(text.find("newest release ROCm 10.2.0 (released 2026-11-23, 8 days ago)"), std::string::npos) << text;
  EXPECT_FALSE(knowledge::describe_json({}).at("as_of").contains("newest_release_age_days"));
}

}  // namespace
}  // namespace rocm_doctor

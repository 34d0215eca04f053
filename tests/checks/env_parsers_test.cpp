// Tables for the env check's pure parsers: visibility lists (indices and
// UUIDs), the PyTorch allocator config, target lists and variable names.
#include <gtest/gtest.h>

#include "../../checks/env_lint.h"
#include "../../checks/torch_wheels.h"

namespace rocm_doctor::env_lint {
namespace {

TEST(DeviceList, AcceptsIndicesAndRocrUuids) {
  auto list = parse_device_list("0,2", false);
  EXPECT_TRUE(list.error.empty());
  ASSERT_EQ(list.tokens.size(), 2U);
  EXPECT_EQ(list.tokens[1].index, 2U);
  list = parse_device_list(" 1 , GPU-DEADBEEFdeadbeef ", true);
  EXPECT_TRUE(list.error.empty()) << list.error;
  ASSERT_EQ(list.tokens.size(), 2U);
  EXPECT_EQ(list.tokens[1].uuid, "deadbeefdeadbeef");
  list = parse_device_list("GPU-4b2c1a9f-8d3e-6f7a-b5c9-2e4d8a1f6c3b", true);
  EXPECT_EQ(list.tokens.at(0).uuid, "4b2c1a9f8d3e6f7ab5c92e4d8a1f6c3b");
}

TEST(DeviceList, RejectsWhatUsersMistype) {
  struct Case {
    const char* value;
    bool uuid_ok;
    const char* bad;
  };
  for (const auto& c : std::vector<Case>{{"0 1", false, "0 1"},
                                         {"gpu0", false, "gpu0"},
                                         {"cuda:0", false, "cuda:0"},
                                         {"[0,1]", false, "[0"},
                                         {"0,,1", false, "0,,1"},
                                         {"0,1,", false, "0,1,"},
                                         {"1,1", false, "1"},
                                         {"-2", false, "-2"},
                                         {"GPU-deadbeefdeadbeef", false, "GPU-deadbeefdeadbeef"},
                                         {"GPU-xyz", true, "GPU-xyz"}}) {
    const auto list = parse_device_list(c.value, c.uuid_ok);
    EXPECT_FALSE(list.error.empty()) << c.value;
    EXPECT_EQ(list.bad_token, c.bad) << c.value;
  }
  EXPECT_TRUE(parse_device_list("", false).hides_all);
  EXPECT_TRUE(parse_device_list("-1", false).hides_all);
}

TEST(AllocConf, AcceptsRealConfigs) {
  for (const char* value :
       {"garbage_collection_threshold:0.8", "max_split_size_mb:512", "expandable_segments:True",
        "garbage_collection_threshold:0.6, max_split_size_mb:128", "roundup_power2_divisions:4",
        "roundup_power2_divisions:[256:1,512:2,1024:4,>:8]", "backend:native", "backend:cudaMallocAsync",
        "pinned_use_hip_host_register:True,pinned_num_register_threads:8", "release_lock_on_hipmalloc:False",
        "per_process_memory_fraction:0.5"}) {
    EXPECT_FALSE(check_alloc_conf(value).has_value()) << value << ": " << check_alloc_conf(value)->reason;
  }
}

TEST(AllocConf, NamesTheBadToken) {
  struct Case {
    const char* value;
    const char* token;
  };
  for (const auto& c : std::vector<Case>{{"garbage_collection_threshold:1.2", "garbage_collection_threshold:1.2"},
                                         {"garbage_collection_threshold:0", "garbage_collection_threshold:0"},
                                         {"garbage_collection_threshold:80%", "garbage_collection_threshold:80%"},
                                         {"max_split_size_mb:16", "max_split_size_mb:16"},
                                         {"max_split_size_mb:512MB", "max_split_size_mb:512MB"},
                                         {"expandable_segments:true", "expandable_segments:true"},
                                         {"expandable_segments:1", "expandable_segments:1"},
                                         {"max_split_size_mb=512", "max_split_size_mb=512"},
                                         {"garbage_collect_threshold:0.8", "garbage_collect_threshold"},
                                         {"max_split_size_mb:512,", "max_split_size_mb:512,"},
                                         {"roundup_power2_divisions:3", "roundup_power2_divisions:3"},
                                         {"roundup_power2_divisions:[256:3]", "256:3"},
                                         {"pinned_num_register_threads:6", "pinned_num_register_threads:6"},
                                         {"backend:async", "backend:async"}}) {
    const auto error = check_alloc_conf(c.value);
    ASSERT_TRUE(error.has_value()) << c.value;
    EXPECT_EQ(error->token, c.token) << c.value;
  }
  EXPECT_NE(check_alloc_conf("garbage_collect_threshold:0.8")->reason.find("garbage_collection_threshold"),
            std::string::npos);
}

TEST(ArchList, SplitsOnEverySeparatorUsersType) {
  EXPECT_EQ(parse_arch_list("gfx90a;gfx1100"), (std::vector<std::string>{"gfx90a", "gfx1100"}));
  EXPECT_EQ(parse_arch_list(" gfx90a, gfx1030 gfx1100; "), (std::vector<std::string>{"gfx90a", "gfx1030", "gfx1100"}));
  EXPECT_EQ(base_target("gfx90a:xnack-"), "gfx90a");
}

TEST(VariableNames, KnowsRealOnesAndCatchesTypos) {
  for (const char* name : {"HSA_OVERRIDE_GFX_VERSION", "HSA_OVERRIDE_GFX_VERSION_1", "HSA_ENABLE_SDMA",
                           "HIP_VISIBLE_DEVICES", "AMD_LOG_LEVEL", "ROCM_PATH", "ROCR_VISIBLE_DEVICES",
                           "MIOPEN_USER_DB_PATH", "MIOPEN_DEBUG_CONV_DIRECT", "NCCL_DEBUG", "NCCL_IB_HCA",
                           "NCCL_SOCKET_IFNAME", "RCCL_MSCCL_ENABLE", "AMD_COMGR_SAVE_TEMPS", "HIP_PLATFORM"}) {
    EXPECT_EQ(judge_variable(name).verdict, NameVerdict::known) << name;
  }
  EXPECT_EQ(judge_variable("PATH").verdict, NameVerdict::not_rocm);
  EXPECT_EQ(judge_variable("CUDA_VISIBLE_DEVICES").verdict, NameVerdict::not_rocm);
  EXPECT_EQ(judge_variable("NCCL_GROUP_SIZE").verdict, NameVerdict::invented);
  EXPECT_EQ(judge_variable("HSA_AMD_SDMA_SIZE_MB").verdict, NameVerdict::invented);
  struct Case {
    const char* name;
    const char* suggestion;
  };
  for (const auto& c : std::vector<Case>{{"HSA_OVERIDE_GFX_VERSION", "HSA_OVERRIDE_GFX_VERSION"},
                                         {"hsa_override_gfx_version", "HSA_OVERRIDE_GFX_VERSION"},
                                         {"HSA_OVERRIDE_GFX_VERISON", "HSA_OVERRIDE_GFX_VERSION"},
                                         {"HSA_GFX_OVERRIDE_VERSION", "HSA_OVERRIDE_GFX_VERSION"},
                                         {"ROCM_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"},
                                         {"HIP_VISIBLE_DEVICE", "HIP_VISIBLE_DEVICES"},
                                         {"HIP_LAUNCH_BLOKING", "HIP_LAUNCH_BLOCKING"},
                                         {"NCCL_DEBG", "NCCL_DEBUG"}}) {
    const auto judgement = judge_variable(c.name);
    EXPECT_EQ(judgement.verdict, NameVerdict::misspelled) << c.name;
    EXPECT_EQ(judgement.suggestion, c.suggestion) << c.name;
  }
  EXPECT_EQ(judge_variable("HSA_OVERRIDE_GFX_VERSION_GPU0").verdict, NameVerdict::misspelled);
  EXPECT_EQ(judge_variable("NCCL_SOME_NEW_KNOB").verdict, NameVerdict::unknown);
}

TEST(Switches, OffSpellings) {
  for (const char* off : {"0", "", "false", "FALSE", "no", "off"}) EXPECT_FALSE(switch_on(off)) << off;
  for (const char* on : {"1", "true", "yes", "2"}) EXPECT_TRUE(switch_on(on)) << on;
}

TEST(TorchWheels, MatchesTheInstalledReleaseOrTheNearest) {
  EXPECT_EQ(major_minor_of("5.6.31061-8c743ae5d"), "5.6");
  EXPECT_EQ(major_minor_of("6.2.4"), "6.2");
  EXPECT_EQ(major_minor_of("garbage"), "");
  auto choice = torch_wheels::choose_wheel("6.2.4");
  EXPECT_TRUE(choice.exact);
  EXPECT_EQ(choice.wheel.index, "rocm6.2.4");
  EXPECT_EQ(choice.wheel.torch, "2.6.0");
  choice = torch_wheels::choose_wheel("5.7.1");
  EXPECT_TRUE(choice.exact);
  EXPECT_EQ(choice.wheel.url, "https://download.pytorch.org/whl/rocm5.7");
  choice = torch_wheels::choose_wheel("5.5.0");
  EXPECT_FALSE(choice.exact);
  EXPECT_EQ(choice.wheel.index, "rocm5.4.2");  // 5.4 and 5.6 tie: the older
  choice = torch_wheels::choose_wheel("7.0.2");
  EXPECT_FALSE(choice.exact);
  EXPECT_EQ(choice.wheel.index, "rocm7.1");
}

}  // namespace
}  // namespace rocm_doctor::env_lint

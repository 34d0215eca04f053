// The `job` check and the JobGpus fact: the scheduler's variables, the GPUs a
// device cgroup leaves to the process, and the report's `job` section.
#include <gtest/gtest.h>

#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/facts/job_gpus.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using testing::find_finding;
using testing::run_on;

std::unique_ptr<SnapshotHost> scenario(const std::string& name) {
  auto host = SnapshotHost::open(std::string(ROCM_DOCTOR_SCENARIOS_DIR) + "/" + name);
  if (!host) throw std::runtime_error(host.error());
  return std::move(*host);
}

struct IdListCase {
  const char* name;
  const char* value;
  std::vector<std::string> ids;
};

void PrintTo(const IdListCase& c, std::ostream* os) {
  *os << c.name;
}

class GpuIdList : public ::testing::TestWithParam<IdListCase> {};

TEST_P(GpuIdList, SplitsWhatSlurmWrites) {
  EXPECT_EQ(parse_gpu_id_list(GetParam().value), GetParam().ids);
}

INSTANTIATE_TEST_SUITE_P(Table, GpuIdList,
                         ::testing::Values(IdListCase{"two", "4,5", {"4", "5"}}, IdListCase{"one", "0", {"0"}},
                                           IdListCase{"empty", "", {}}, IdListCase{"spaces", " 1 , 3 ", {"1", "3"}},
                                           IdListCase{"no_device_files", "NoDevFiles", {}},
                                           IdListCase{"trailing_comma", "2,", {"2"}}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(SchedulerJob, SlurmStepGpusWinOverJobGpus) {
  const auto job = scheduler_job({{"SLURM_JOB_ID", "4242"},
                                  {"SLURM_STEP_ID", "0"},
                                  {"SLURM_JOB_GPUS", "4,5,6,7"},
                                  {"SLURM_STEP_GPUS", "4,5"},
                                  {"HOME", "/home/alice"}});
  ASSERT_TRUE(job);
  EXPECT_EQ(job->scheduler, "slurm");
  EXPECT_EQ(job->id, "4242");
  EXPECT_EQ(job->step, "0");
  EXPECT_EQ(job->allocated, (std::vector<std::string>{"4", "5"}));
  EXPECT_EQ(job->gpu_variables.size(), 2U) << "only the scheduler's GPU variables are kept";
}

TEST(SchedulerJob, FluxAndNoScheduler) {
  const auto flux = scheduler_job({{"FLUX_JOB_ID", "f2Q7b"}, {"FLUX_EXEC_CONSTRAINED_RESOURCES", "1"}});
  ASSERT_TRUE(flux);
  EXPECT_EQ(flux->scheduler, "flux");
  EXPECT_EQ(flux->gpu_variables.at("FLUX_EXEC_CONSTRAINED_RESOURCES"), "1");
  EXPECT_FALSE(scheduler_job({{"SLURM_JOB_GPUS", "0"}})) << "GPU variables without a job id are not a job";
}

TEST(JobGpus, AConfinedSlurmJobSeesItsTwoGpusNumberedFromZero) {
  const auto host = scenario("slurm-confined-2-of-8");
  const RunOptions options;
  const CheckContext ctx(*host, options);
  const auto& inventory = ctx.fact<GpuInventory>();
  EXPECT_EQ(inventory.kfd_gpus().size(), 2U);
  EXPECT_EQ(inventory.closed_kfd_nodes, (std::vector<int>{2, 3, 4, 5, 8, 9}));
  EXPECT_TRUE(inventory.issues.empty()) << inventory.issues.front().summary;
  EXPECT_TRUE(inventory.kfd_problems.empty()) << inventory.kfd_problems.front().summary;
  const auto& gpus = ctx.fact<JobGpus>();
  ASSERT_TRUE(gpus.confined());
  EXPECT_EQ(gpus.machine_gpus, 8);
  ASSERT_EQ(gpus.usable.size(), 2U);
  EXPECT_EQ(gpus.usable[0].index, 0);
  EXPECT_EQ(gpus.usable[0].node_index, 4) << "KFD node 6 is the machine's fifth GPU";
  EXPECT_EQ(gpus.usable[1].node_index, 5);
  EXPECT_EQ(gpus.closed_pci.size(), 6U);
  EXPECT_EQ(gpus.closed_render_nodes.size(), 6U);
  const auto json = gpus.to_json();
  EXPECT_EQ(json["scheduler"], "slurm");
  EXPECT_EQ(json["allocated"], nlohmann::json::array({"4", "5"}));
  EXPECT_EQ(json["usable"][1]["machine_index"], 5);
}

TEST(JobCheck, SaysWhichGpusTheJobMayUseAndTheReportCarriesIt) {
  const auto host = scenario("slurm-confined-2-of-8");
  const auto report = run_on(*host, {"access", "job", "gpu-arch"});
  const auto* finding = find_finding(report, "job.gpus");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::info);
  EXPECT_EQ(finding->summary, "Slurm job 4242 (step 0) may use GPUs 0, 1 (2 of 8)");
  ASSERT_TRUE(report.sections.contains("job"));
  EXPECT_EQ(report.sections.at("job")["machine_gpus"], 8);
  EXPECT_EQ(report.sections.at("job")["closed_kfd_nodes"].size(), 6U);
  const auto* ok = find_finding(report, "access.ok");
  ASSERT_NE(ok, nullptr);
  EXPECT_NE(ok->summary.find("2 render nodes"), std::string::npos) << ok->summary;
  EXPECT_NE(ok->summary.find("6 more are closed by its device cgroup"), std::string::npos) << ok->summary;
  for (const auto& gpu : report.sections.at("gpus")) {
    if (gpu["index"].is_null()) {
      EXPECT_TRUE(gpu["closed"].get<bool>()) << gpu.dump();
    }
  }
}

TEST(JobCheck, AJobGivenNoGpuIsToldHowToAskForOne) {
  const auto host = scenario("slurm-confined-no-gpus");
  const auto report = run_on(*host, {"job", "gpu-arch"});
  const auto* finding = find_finding(report, "job.no-gpus");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::warning);
  ASSERT_FALSE(finding->fixes.empty());
  EXPECT_TRUE(finding->fixes[0].commands.empty()) << "a new job is started by its owner, never by rocm-doctor fix";
  EXPECT_NE(finding->fixes[0].description.find("srun --gpus=1 rocm-doctor"), std::string::npos);
  EXPECT_EQ(find_finding(report, "gpu.none-visible"), nullptr);
}

TEST(JobCheck, OutsideAJobWithEveryGpuOpenItIsSkipped) {
  const auto host = scenario("gpu-mi300x-x8");
  const auto report = run_on(*host, {"job"});
  ASSERT_EQ(report.checks.size(), 1U);
  EXPECT_EQ(report.checks[0].status, CheckStatus::skipped);
  EXPECT_FALSE(report.sections.contains("job"));
}

TEST(JobCheck, AnUnconfinedJobNotesThatItMustKeepToItsGpus) {
  const auto host = scenario("slurm-unconfined-2-of-8");
  const auto report = run_on(*host, {"job"});
  const auto* finding = find_finding(report, "job.gpus");
  ASSERT_NE(finding, nullptr);
  EXPECT_NE(finding->summary.find("all 8 GPU(s)"), std::string::npos) << finding->summary;
  EXPECT_NE(finding->detail.find("ConstrainDevices=no"), std::string::npos) << finding->detail;
}

// The flux-core PR 7806 bug seen from Slurm: a script copies the global ids of
// SLURM_JOB_GPUS into ROCR_VISIBLE_DEVICES, which counts the job's GPUs.
TEST(JobCheck, GlobalIdsInAVisibleDevicesListNameGpusOutsideTheJob) {
  const auto host = scenario("slurm-confined-global-visible-devices");
  const auto report = run_on(*host, {"job", "env"});
  const auto* finding = find_finding(report, "env.visible-devices-invalid");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->summary,
            "ROCR_VISIBLE_DEVICES=4,5 is invalid: index 4 names a GPU this job cannot use: its device cgroup leaves "
            "it 2 of the machine's 8 GPUs, which ROCm numbers 0 to 1");
  EXPECT_NE(finding->detail.find("the scheduler's global GPU ids (SLURM_STEP_GPUS=4,5)"), std::string::npos)
      << finding->detail;
  ASSERT_FALSE(finding->fixes.empty());
  EXPECT_EQ(finding->fixes[0].commands,
            (std::vector<std::string>{"unset ROCR_VISIBLE_DEVICES", "export ROCR_VISIBLE_DEVICES=0,1"}));
  EXPECT_NE(find_finding(report, "job.gpus"), nullptr);
}

// What Slurm itself sets under ConstrainDevices=yes (0,1) is right and raises nothing.
TEST(JobCheck, TheIndicesSlurmSetsInAConfinedJobAreValid) {
  const auto host = scenario("slurm-confined-2-of-8");
  const auto report = run_on(*host, {"job", "env"});
  EXPECT_EQ(find_finding(report, "env.visible-devices-invalid"), nullptr);
  EXPECT_EQ(find_finding(report, "env.visible-devices-conflict"), nullptr);
}

// A GPU on PCI but missing from KFD whose render node this process CAN open is
// not another job's: it stays a gpu.kfd-mismatch even inside a confined job.
TEST(JobGpus, AnOpenRenderNodeMissingFromKfdIsStillAMismatch) {
  testing::SnapshotBuilder builder;
  builder.pci_device("0000:03:00.0", "0x1002", "0x744c", "0x030000", "amdgpu");
  builder.pci_device("0000:04:00.0", "0x1002", "0x744c", "0x030000", "amdgpu");
  builder.dir("/sys/bus/pci/devices/0000:04:00.0/drm/renderD129");
  builder.file("/sys/class/kfd/kfd/topology/nodes/0/properties", "cpu_cores_count 16\nsimd_count 0\n");
  builder.file("/sys/class/kfd/kfd/topology/nodes/1/properties",
               "simd_count 192\nsimd_per_cu 2\nlocation_id 768\ndomain 0\ndevice_id 29772\nvendor_id 4098\n"
               "gfx_target_version 110000\ndrm_render_minor 128\n");
  builder.dir("/sys/class/kfd/kfd/topology/nodes/2");
  builder.manifest_key("unreadable", nlohmann::json::array({"/sys/class/kfd/kfd/topology/nodes/2/properties"}));
  builder.node("/dev/dri/renderD128", testing::Node::chr("0660", 0, 110).with_access("rw"));
  builder.node("/dev/dri/renderD129", testing::Node::chr("0660", 0, 110).with_access("rw"));
  auto host = builder.open();
  const auto inventory = GpuInventory::collect(*host);
  EXPECT_EQ(inventory.closed_kfd_nodes, (std::vector<int>{2}));
  ASSERT_EQ(inventory.issues.size(), 1U);
  EXPECT_NE(inventory.issues[0].summary.find("0000:04:00.0"), std::string::npos);
}

}  // namespace
}  // namespace rocm_doctor

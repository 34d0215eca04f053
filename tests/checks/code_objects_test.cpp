// The code-object reader (rocm_doctor/code_objects.h) and the code-objects
// check: Debian's real librocrand1 (ROCm 5.3), bundles and compressed bundles
// built here from the format's documentation (ClangOffloadBundler.rst and the
// CCOB header of OffloadBundler.h), and hostile files of every kind.
#include "rocm_doctor/code_objects.h"

#include <elf.h>
#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "host/live_host.h"
#include "host/recording_host.h"
#include "host/snapshot_host.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor::testing {
namespace {

namespace co = code_objects;
using Targets = std::vector<std::string>;

constexpr const char* kRocrand = "/usr/lib/x86_64-linux-gnu/librocrand.so.1.1";

void put(std::string& out, std::uint64_t value, int width) {
  for (int i = 0; i < width; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

// An uncompressed bundle: magic, count, then (offset, size, id length, id) per entry, then the code.
std::string bundle(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::size_t header = 24 + 8;
  for (const auto& [id, code] : entries) header += 24 + id.size();
  std::string out(co::kBundleMagic);
  put(out, entries.size(), 8);
  std::uint64_t offset = header;
  for (const auto& [id, code] : entries) {
    put(out, offset, 8);
    put(out, code.size(), 8);
    put(out, id.size(), 8);
    out += id;
    offset += code.size();
  }
  for (const auto& [id, code] : entries) out += code;
  return out;
}

std::string rocm_bundle(const Targets& targets) {
  std::vector<std::pair<std::string, std::string>> entries = {{"host-x86_64-unknown-linux-gnu-", ""}};
  for (const auto& target : targets) entries.emplace_back("hipv4-amdgcn-amd-amdhsa--" + target, std::string(300, 'k'));
  return bundle(entries);
}

std::string zlib_bytes(const std::string& data) {
  uLongf size = compressBound(data.size());
  std::string out(size, '\0');
  compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(data.data()), data.size(), 9);
  out.resize(size);
  return out;
}

std::string zstd_bytes(const std::string& data) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  out.resize(ZSTD_compress(out.data(), out.size(), data.data(), data.size(), 3));
  return out;
}

// "CCOB", version, method (0 zlib, 1 zstd), sizes as the version lays them out, a hash, the data.
std::string compressed(const std::string& plain, unsigned method, unsigned version) {
  const auto data = method == 0 ? zlib_bytes(plain) : zstd_bytes(plain);
  const std::size_t header = version == 1 ? 20 : version == 2 ? 24 : 32;
  std::string out(co::kCompressedMagic);
  put(out, version, 2);
  put(out, method, 2);
  if (version == 2) put(out, header + data.size(), 4);
  if (version == 3) put(out, header + data.size(), 8);
  put(out, plain.size(), version == 3 ? 8 : 4);
  put(out, 0x1234abcd5678ef00ULL, 8);
  return out + data;
}

// A 64-bit little-endian ELF with a section-name table and one `.hip_fatbin` holding `fatbin`.
std::string elf_with_fatbin(const std::string& fatbin, std::size_t align = 4096) {
  const std::string names = std::string("\0.shstrtab\0.hip_fatbin\0", 23);
  Elf64_Ehdr header{};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_ident[EI_VERSION] = EV_CURRENT;
  header.e_type = ET_DYN;
  header.e_machine = EM_X86_64;
  header.e_ehsize = sizeof(Elf64_Ehdr);
  header.e_shentsize = sizeof(Elf64_Shdr);
  header.e_shnum = 3;
  header.e_shstrndx = 1;
  std::string out(sizeof header, '\0');
  const std::size_t names_at = out.size();
  out += names;
  const std::size_t fatbin_at = (out.size() + align - 1) / align * align;
  out.resize(fatbin_at, '\0');
  out += fatbin;
  out.resize((out.size() + 7) / 8 * 8, '\0');
  header.e_shoff = out.size();
  std::memcpy(out.data(), &header, sizeof header);
  Elf64_Shdr sections[3]{};
  sections[1].sh_name = 1;
  sections[1].sh_type = SHT_STRTAB;
  sections[1].sh_offset = names_at;
  sections[1].sh_size = names.size();
  sections[2].sh_name = 11;
  sections[2].sh_type = SHT_PROGBITS;
  sections[2].sh_offset = fatbin_at;
  sections[2].sh_size = fatbin.size();
  sections[2].sh_addralign = align;
  out.append(reinterpret_cast<const char*>(sections), sizeof sections);
  return out;
}

std::unique_ptr<SnapshotHost> host_with(SnapshotBuilder& builder, const std::string& path, const std::string& bytes) {
  builder.file(path, bytes);
  return builder.open();
}

co::Scan scan_of(const std::string& bytes) {
  SnapshotBuilder builder;
  auto host = host_with(builder, "/opt/lib/libx.so", bytes);
  auto scan = co::scan_file(*host, "/opt/lib/libx.so");
  EXPECT_TRUE(scan.has_value());
  return scan.value_or(co::Scan{});
}

TEST(CodeObjectIds, TargetsOfEveryEntryKind) {
  EXPECT_EQ(co::target_of_entry("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"), "gfx90a:xnack-");
  EXPECT_EQ(co::target_of_entry("hip-amdgcn-amd-amdhsa-gfx906"), "gfx906");
  EXPECT_EQ(co::target_of_entry("openmp-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"), "gfx942:sramecc+:xnack-");
  EXPECT_EQ(co::target_of_entry("host-x86_64-unknown-linux-gnu-"), "");
  EXPECT_EQ(co::target_of_entry("hipv4-nvptx64-nvidia-cuda--sm_80"), "");
  EXPECT_EQ(co::processor_of("gfx90a:xnack-"), "gfx90a");
}

TEST(CodeObjects, DebiansLibrocrandCarriesGfx803ToGfx1030) {
  if (!std::filesystem::exists(kRocrand)) GTEST_SKIP() << "apt-get install librocrand1 (packaging/test-deps.txt)";
  const LiveHost live;
  const auto scan = co::scan_file(live, kRocrand);
  ASSERT_TRUE(scan) << scan.error().message;
  EXPECT_TRUE(scan->problem.empty()) << scan->problem;
  EXPECT_EQ(scan->container, "ELF .hip_fatbin");
  EXPECT_EQ(scan->targets, (Targets{"gfx1030", "gfx803", "gfx900:xnack-", "gfx906:xnack-", "gfx908:xnack-",
                                    "gfx90a:xnack+", "gfx90a:xnack-"}));
  EXPECT_EQ(scan->bundles, 1U);
  // Headers and section tables only: a few hundred KiB of a 25 MB library.
  EXPECT_LT(scan->bytes_read, 1U << 20) << scan->bytes_read;
  EXPECT_TRUE(scan->carries("gfx90a"));
  EXPECT_FALSE(scan->carries("gfx1100"));
}

TEST(CodeObjects, ACaptureRecordsOnlyTheRangesItReadAndReplaysThem) {
  if (!std::filesystem::exists(kRocrand)) GTEST_SKIP() << "apt-get install librocrand1 (packaging/test-deps.txt)";
  TempDir dir;
  const LiveHost live;
  {
    RecordingHost recorder(live, dir.path());
    ASSERT_TRUE(co::scan_file(recorder, kRocrand));
    ASSERT_TRUE(recorder.finish("2026-12-01T10:00:00Z", "test"));
  }
  const auto copy = dir.path() / "root" / std::string(kRocrand).substr(1);
  ASSERT_TRUE(std::filesystem::exists(copy));
  EXPECT_EQ(std::filesystem::file_size(copy), std::filesystem::file_size(kRocrand)) << "the sparse copy keeps the size";
  auto replay = SnapshotHost::open(dir.path());
  ASSERT_TRUE(replay) << replay.error();
  const auto again = co::scan_file(**replay, kRocrand);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->targets.size(), 7U);
  EXPECT_TRUE(again->problem.empty()) << again->problem;
}

TEST(CodeObjects, AnElfWithSeveralPlainBundles) {
  const auto fatbin =
      rocm_bundle({"gfx90a:xnack-", "gfx942"}) + std::string(4096 - 700, '\0') + rocm_bundle({"gfx1100"});
  const auto scan = scan_of(elf_with_fatbin(fatbin));
  EXPECT_TRUE(scan.problem.empty()) << scan.problem;
  EXPECT_EQ(scan.bundles, 2U);
  EXPECT_EQ(scan.targets, (Targets{"gfx1100", "gfx90a:xnack-", "gfx942"}));
}

struct CompressedCase {
  const char* name;
  unsigned method;
  unsigned version;
};

void PrintTo(const CompressedCase& c, std::ostream* os) {
  *os << c.name;
}

class CompressedBundles : public ::testing::TestWithParam<CompressedCase> {};

TEST_P(CompressedBundles, NameTheirTargets) {
  const auto& param = GetParam();
  const auto fatbin = compressed(rocm_bundle({"gfx1100", "gfx1201"}), param.method, param.version) +
                      std::string(64, '\0') + compressed(rocm_bundle({"gfx942"}), param.method, param.version);
  const auto scan = scan_of(elf_with_fatbin(fatbin));
  EXPECT_TRUE(scan.problem.empty()) << scan.problem;
  EXPECT_EQ(scan.compressed_bundles, 2U);
  EXPECT_EQ(scan.targets, (Targets{"gfx1100", "gfx1201", "gfx942"}));
}

INSTANTIATE_TEST_SUITE_P(ZlibAndZstd, CompressedBundles,
                         ::testing::Values(CompressedCase{"zlib_v2", 0, 2}, CompressedCase{"zstd_v2", 1, 2},
                                           CompressedCase{"zlib_v3", 0, 3}, CompressedCase{"zstd_v3", 1, 3},
                                           CompressedCase{"zstd_v1", 1, 1}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(CodeObjects, ABundleFileOfItsOwn) {
  EXPECT_EQ(scan_of(rocm_bundle({"gfx90a"})).targets, Targets{"gfx90a"});
  EXPECT_EQ(scan_of(compressed(rocm_bundle({"gfx908"}), 1, 3)).container, "compressed offload bundle");
}

TEST(CodeObjects, AHostOnlyLibraryCarriesNothing) {
  const auto scan = scan_of(elf_with_fatbin("").substr(0) /* a .hip_fatbin of 0 bytes */);
  EXPECT_TRUE(scan.targets.empty());
  EXPECT_TRUE(scan.problem.empty()) << scan.problem;
}

// Every hostile file is a problem (a finding), never a crash, a hang or a silent pass.
struct HostileCase {
  const char* name;
  std::string bytes;
};

void PrintTo(const HostileCase& c, std::ostream* os) {
  *os << c.name;
}

std::string with_u64_at(std::string bytes, std::size_t at, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) bytes[at + i] = static_cast<char>((value >> (8 * i)) & 0xff);
  return bytes;
}

std::vector<HostileCase> hostile_cases() {
  const auto good = elf_with_fatbin(rocm_bundle({"gfx90a"}));
  Elf64_Ehdr header{};
  std::memcpy(&header, good.data(), sizeof header);
  const auto fatbin_at = std::size_t{4096};
  auto cut_zstd = compressed(rocm_bundle({"gfx1100"}), 1, 3);
  cut_zstd.resize(40);
  auto garbage_zlib = compressed(rocm_bundle({"gfx1100"}), 0, 2);
  for (std::size_t i = 26; i < garbage_zlib.size(); ++i) garbage_zlib[i] = static_cast<char>(i * 7);
  return {
      {"truncated_elf_header", good.substr(0, 40)},
      {"section_table_past_the_end", good.substr(0, good.size() - 100)},
      {"section_count_huge", with_u64_at(good, offsetof(Elf64_Ehdr, e_shoff), 1ULL << 62)},
      {"fatbin_past_the_end", elf_with_fatbin(rocm_bundle({"gfx90a"})).substr(0, fatbin_at + 40) +
                                  good.substr(good.size() - 3 * sizeof(Elf64_Shdr))},
      {"entry_count_huge", with_u64_at(good, fatbin_at + 24, 1ULL << 40)},
      {"entry_offset_past_the_end", with_u64_at(good, fatbin_at + 32 + 24 + 30, 1ULL << 50)},
      {"id_length_huge", with_u64_at(good, fatbin_at + 32 + 16, 1ULL << 33)},
      {"ccob_total_size_past_the_end", with_u64_at(compressed(rocm_bundle({"gfx1100"}), 1, 3), 8, 1ULL << 40)},
      {"ccob_cut_off", cut_zstd},
      {"ccob_garbage", garbage_zlib},
      {"ccob_unknown_version", std::string("CCOB\x09\x00\x01\x00", 8) + std::string(40, 'x')},
      {"not_a_binary", "#!/bin/sh\necho hello\n"},
  };
}

class HostileFiles : public ::testing::TestWithParam<HostileCase> {};

TEST_P(HostileFiles, AreAProblemNeverACrash) {
  const auto scan = scan_of(GetParam().bytes);
  EXPECT_FALSE(scan.problem.empty()) << "no problem named for " << GetParam().name;
  EXPECT_LT(scan.bytes_read, 8U << 20);
}

INSTANTIATE_TEST_SUITE_P(Elf, HostileFiles, ::testing::ValuesIn(hostile_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(CodeObjects, AMissingFileIsAHostError) {
  SnapshotBuilder builder;
  auto host = builder.open();
  EXPECT_FALSE(co::scan_file(*host, "/nope/libx.so"));
}

// ---- the check ----

Report judge(const std::string& bytes, std::vector<std::string> target_gfx, bool image = true) {
  SnapshotBuilder builder;
  auto host = host_with(builder, "/opt/app/libkernels.so", bytes);
  RunOptions options;
  options.image_mode = image;
  options.target_gfx = std::move(target_gfx);
  options.binaries = {"/opt/app/libkernels.so"};
  return run_on(*host, {"code-objects"}, options);
}

const Finding* finding(const Report& report, std::string_view id) {
  for (const auto& check : report.checks) {
    for (const auto& found : check.findings) {
      if (found.id == id) return &found;
    }
  }
  return nullptr;
}

TEST(CodeObjectsCheck, AWheelWithoutGfx1201IsAnErrorForThatTarget) {
  const auto report = judge(elf_with_fatbin(compressed(rocm_bundle({"gfx1100", "gfx942"}), 1, 3)), {"gfx1201"});
  const auto* missing = finding(report, "code-objects.no-kernel");
  ASSERT_NE(missing, nullptr);
  EXPECT_EQ(missing->severity, Severity::error);
  EXPECT_NE(missing->summary.find("gfx1201"), std::string::npos) << missing->summary;
  EXPECT_EQ(finding(report, "code-objects.carries"), nullptr);
}

TEST(CodeObjectsCheck, TheOverrideThatMakesItRunIsTheFix) {
  // gfx1031 runs gfx1030 code with HSA_OVERRIDE_GFX_VERSION=10.3.0 (checks/data/gfx_targets.json).
  const auto report = judge(elf_with_fatbin(rocm_bundle({"gfx1030"})), {"gfx1031"});
  const auto* missing = finding(report, "code-objects.no-kernel");
  ASSERT_NE(missing, nullptr);
  ASSERT_FALSE(missing->fixes.empty());
  EXPECT_EQ(missing->fixes[0].commands, (std::vector<std::string>{"export HSA_OVERRIDE_GFX_VERSION=10.3.0"}));
}

TEST(CodeObjectsCheck, EveryTargetCarriedIsOk) {
  const auto report = judge(elf_with_fatbin(rocm_bundle({"gfx1100", "gfx942"})), {"gfx942", "gfx1100"});
  const auto* carries = finding(report, "code-objects.carries");
  ASSERT_NE(carries, nullptr);
  EXPECT_EQ(carries->severity, Severity::ok);
  EXPECT_EQ(finding(report, "code-objects.no-kernel"), nullptr);
}

TEST(CodeObjectsCheck, AHostileFileIsMalformed) {
  const auto report = judge(elf_with_fatbin(rocm_bundle({"gfx90a"})).substr(0, 100), {"gfx90a"});
  const auto* malformed = finding(report, "code-objects.malformed");
  ASSERT_NE(malformed, nullptr);
  EXPECT_EQ(malformed->severity, Severity::error);
}

TEST(CodeObjectsCheck, AHostOnlyFileIsInfo) {
  const auto report = judge(elf_with_fatbin(""), {"gfx90a"});
  ASSERT_NE(finding(report, "code-objects.none"), nullptr);
}

TEST(CodeObjectsCheck, AMissingFileIsUnreadable) {
  SnapshotBuilder builder;
  auto host = builder.open();
  RunOptions options;
  options.binaries = {"/opt/none.so"};
  const auto report = run_on(*host, {"code-objects"}, options);
  ASSERT_NE(finding(report, "code-objects.unreadable"), nullptr);
}

TEST(CodeObjectsCheck, NoFileNamedIsSkipped) {
  SnapshotBuilder builder;
  auto host = builder.open();
  const auto report = run_on(*host, {"code-objects"});
  ASSERT_EQ(report.checks.size(), 1U);
  EXPECT_EQ(report.checks[0].status, CheckStatus::skipped);
}

}  // namespace
}  // namespace rocm_doctor::testing

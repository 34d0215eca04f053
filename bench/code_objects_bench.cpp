// The code-object scan (rocm_doctor/code_objects.h) of a large library: a
// sparse 1 GiB ELF whose .hip_fatbin holds N uncompressed offload bundles of
// 8 GPU entries each, read through the live Host as `rocm-doctor targets` does.
#include <benchmark/benchmark.h>
#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "host/live_host.h"
#include "rocm_doctor/code_objects.h"

namespace rocm_doctor {
namespace {

void put(std::string& out, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

// The bundle header for 8 device entries and the host entry, sized to fill `stride` bytes.
std::string bundle_header(std::uint64_t stride) {
  const char* targets[] = {"gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1101"};
  std::vector<std::string> ids = {"host-x86_64-unknown-linux-gnu-"};
  for (const char* target : targets) ids.push_back(std::string("hipv4-amdgcn-amd-amdhsa--") + target);
  std::uint64_t header = 24 + 8;
  for (const auto& id : ids) header += 24 + id.size();
  const std::uint64_t code = (stride - header) / ids.size();
  std::string out(code_objects::kBundleMagic);
  put(out, ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    put(out, header + i * code);
    put(out, code);
    put(out, ids[i].size());
    out += ids[i];
  }
  return out;
}

// Writes the sparse library once per process; returns its path.
std::string large_library(std::uint64_t size, std::uint64_t bundles) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("rocm-doctor-bench-lib-" + std::to_string(bundles) + "-" + std::to_string(::getpid()) + ".so");
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(size)) != 0) return {};
  const std::uint64_t fat_at = 4096;
  const std::uint64_t fat_size = size - 2 * 4096;
  const std::uint64_t stride = fat_size / bundles / 4096 * 4096;
  const auto header = bundle_header(stride);
  for (std::uint64_t i = 0; i < bundles; ++i) {
    if (::pwrite(fd, header.data(), header.size(), static_cast<off_t>(fat_at + i * stride)) < 0) return {};
  }
  const std::string names("\0.shstrtab\0.hip_fatbin\0", 23);
  Elf64_Ehdr elf{};
  std::memcpy(elf.e_ident, ELFMAG, SELFMAG);
  elf.e_ident[EI_CLASS] = ELFCLASS64;
  elf.e_ident[EI_DATA] = ELFDATA2LSB;
  elf.e_shoff = size - 4096;
  elf.e_shentsize = sizeof(Elf64_Shdr);
  elf.e_shnum = 3;
  elf.e_shstrndx = 1;
  Elf64_Shdr sections[3]{};
  sections[1] = Elf64_Shdr{1, SHT_STRTAB, 0, 0, 64, names.size(), 0, 0, 1, 0};
  sections[2] = Elf64_Shdr{11, SHT_PROGBITS, SHF_ALLOC, 0, fat_at, fat_size, 0, 0, 4096, 0};
  const bool written = ::pwrite(fd, &elf, sizeof elf, 0) == sizeof elf &&
                       ::pwrite(fd, names.data(), names.size(), 64) == static_cast<ssize_t>(names.size()) &&
                       ::pwrite(fd, sections, sizeof sections, static_cast<off_t>(elf.e_shoff)) == sizeof sections;
  ::close(fd);
  return written ? path.string() : std::string();
}

void BM_ScanLargeLibrary(benchmark::State& state) {
  const auto bundles = static_cast<std::uint64_t>(state.range(0));
  const auto path = large_library(1ULL << 30, bundles);
  if (path.empty()) {
    state.SkipWithError("cannot write the synthetic library");
    return;
  }
  const LiveHost live;
  std::uint64_t read = 0;
  for (auto _ : state) {
    auto scan = code_objects::scan_file(live, path);
    if (!scan || !scan->problem.empty() || scan->bundles != bundles) {
      state.SkipWithError("the scan did not find every bundle");
      break;
    }
    read = scan->bytes_read;
    benchmark::DoNotOptimize(scan);
  }
  state.counters["bundles"] = static_cast<double>(bundles);
  state.counters["MiB_read"] = static_cast<double>(read) / (1 << 20);
  std::filesystem::remove(path);
}
BENCHMARK(BM_ScanLargeLibrary)->Arg(1)->Arg(512)->Arg(4096)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace rocm_doctor

// A fake HIP runtime for tests only: exports the C entry points the hip probe
// uses, and misbehaves as ROCM_DOCTOR_FAKE_HIP asks:
//   two-gpus (default), smoke-fail, segv, hang, noisy, no-device, not-initialized,
//   hang-with-child and segv-with-child (a helper process that outlives the
//   call, as a runtime's worker might: it must not outlive the probe).
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace {

std::string_view mode() {
  const char* value = std::getenv("ROCM_DOCTOR_FAKE_HIP");
  return value != nullptr ? value : "two-gpus";
}

struct FakeGpu {
  const char* name;
  const char* bus;
  int compute_units;
  std::size_t memory;
};
constexpr FakeGpu kGpus[] = {{"AMD Radeon RX 7900 XTX", "0000:03:00.0", 96, 24ULL << 30},
                             {"AMD Instinct MI210", "0000:83:00.0", 104, 64ULL << 30}};
int g_device = 0;

}  // namespace

extern "C" {

int hipRuntimeGetVersion(int* version) {
  if (mode() == "noisy") {
    // 1 MiB of vendor noise on stderr: the doctor must drain it and not block.
    static char line[1024];
    std::memset(line, 'x', sizeof line - 1);
    line[sizeof line - 1] = '\n';
    for (int i = 0; i < 1024; ++i) {
      if (::write(STDERR_FILENO, line, sizeof line) < 0) break;
    }
  }
  *version = 60241133;  // 6.2.41133
  return 0;
}

int hipDriverGetVersion(int* version) {
  *version = 60241133;
  return 0;
}

int hipGetDeviceCount(int* count) {
  const auto behaviour = mode();
  if (behaviour == "hang-with-child" || behaviour == "segv-with-child") {
    if (::fork() == 0) {
      for (;;) ::pause();
    }
  }
  if (behaviour == "segv" || behaviour == "segv-with-child") std::raise(SIGSEGV);
  if (behaviour == "hang" || behaviour == "hang-with-child") {
    for (;;) ::pause();
  }
  if (behaviour == "no-device") return 100;      // hipErrorNoDevice
  if (behaviour == "not-initialized") return 3;  // hipErrorNotInitialized
  *count = 2;
  return 0;
}

int hipSetDevice(int device) {
  if (device < 0 || device > 1) return 101;  // hipErrorInvalidDevice
  g_device = device;
  return 0;
}

int hipDeviceGetAttribute(int* value, int attribute, int device) {
  if (attribute != 63 || device < 0 || device > 1) return 1;  // hipErrorInvalidValue
  *value = kGpus[device].compute_units;
  return 0;
}

int hipDeviceGetName(char* name, int length, int device) {
  if (device < 0 || device > 1 || length <= 0) return 101;
  std::snprintf(name, static_cast<std::size_t>(length), "%s", kGpus[device].name);
  return 0;
}

int hipDeviceGetPCIBusId(char* bus, int length, int device) {
  if (device < 0 || device > 1 || length <= 0) return 101;
  std::snprintf(bus, static_cast<std::size_t>(length), "%s", kGpus[device].bus);
  return 0;
}

const char* hipGetErrorName(int code) {
  switch (code) {
    case 0: return "hipSuccess";
    case 1: return "hipErrorInvalidValue";
    case 3: return "hipErrorNotInitialized";
    case 100: return "hipErrorNoDevice";
    case 101: return "hipErrorInvalidDevice";
    default: return "hipErrorUnknown";
  }
}

const char* hipGetErrorString(int code) {
  return hipGetErrorName(code);
}

int hipMemGetInfo(std::size_t* free_bytes, std::size_t* total) {
  *total = kGpus[g_device].memory;
  *free_bytes = kGpus[g_device].memory - (512ULL << 20);
  return 0;
}

int hipMalloc(void** pointer, std::size_t size) {
  *pointer = std::malloc(size);
  return *pointer != nullptr ? 0 : 2;  // hipErrorOutOfMemory
}

int hipMemcpy(void* destination, const void* source, std::size_t size, int kind) {
  std::memcpy(destination, source, size);
  if (kind == 2 && mode() == "smoke-fail" && size > 4096) static_cast<unsigned char*>(destination)[4096] ^= 0xff;
  return 0;
}

int hipFree(void* pointer) {
  std::free(pointer);
  return 0;
}

}  // extern "C"

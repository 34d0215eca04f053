// rocm-doctor: the thin executable around the engine library.
#include <cstdio>
#include <exception>

#include "cli/cli.h"

int main(int argc, char** argv) {
  try {
    return rocm_doctor::cli_main(argc, argv);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "rocm-doctor: internal error: %s\n", error.what());
  } catch (...) {
    std::fprintf(stderr, "rocm-doctor: internal error\n");
  }
  return static_cast<int>(rocm_doctor::ExitCode::internal);
}

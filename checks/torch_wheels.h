// The PyTorch ROCm wheel indexes (checks/data/torch_wheels.json) and the
// choice of one for an installed ROCm release.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/check.h"
#include "rocm_doctor/kb.h"

namespace rocm_doctor {

// "6.2" of "6.2.41134-8c743ae5d" or "6.2.4"; "" when there are no two leading numbers.
inline std::string major_minor_of(std::string_view version) {
  std::string out;
  int dots = 0;
  for (char c : version) {
    if (c >= '0' && c <= '9') {
      out.push_back(c);
    } else if (c == '.' && !out.empty() && out.back() != '.' && dots == 0) {
      out.push_back(c);
      ++dots;
    } else {
      break;
    }
  }
  if (dots == 0 || out.back() == '.') return {};
  return out;
}

namespace torch_wheels {

struct Wheel {
  std::string torch;  // "2.5.1"
  std::string index;  // "rocm6.2"
  std::string rocm;   // "6.2"
  std::string url;    // "https://download.pytorch.org/whl/rocm6.2"
};

// Every (torch, index) pair, oldest first.
std::vector<Wheel> table();

struct WheelChoice {
  Wheel wheel;
  bool exact = false;  // a wheel exists for that major.minor
};

// The newest wheel for the release's major.minor, else the nearest release;
// with no release, the newest wheel.
WheelChoice choose_wheel(std::string_view rocm_release);

// The exact commands that replace the torch of `python` by the ROCm wheel for this machine's ROCm.
Fix wheel_fix(const CheckContext& ctx, const std::string& python);

}  // namespace torch_wheels
}  // namespace rocm_doctor

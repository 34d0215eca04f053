// Judging one policy rule on the run's facts.
#pragma once

#include <string>
#include <vector>

#include "rocm_doctor/finding.h"
#include "rocm_doctor/policy.h"

namespace rocm_doctor {
class CheckContext;
}

namespace rocm_doctor::policy {

enum class Verdict { pass, fail, unknown };

struct Judgement {
  Verdict verdict = Verdict::unknown;
  std::string text;  // pass: what meets the rule; fail: what breaks it; unknown: why it cannot be judged
  std::vector<Evidence> evidence;
  std::string to_evaluate;  // unknown: how to make the rule judgeable
};

Judgement judge(const Rule& rule, const CheckContext& ctx);

}  // namespace rocm_doctor::policy

#include "cli/cli.h"
#include "rocm_doctor/policy.h"

namespace rocm_doctor {

tl::expected<std::shared_ptr<const policy::PolicySet>, std::string> load_run_policies(const RunCommandOptions& options,
                                                                                      bool live) {
  const auto system_dir = live ? std::optional<std::string>(policy::kSystemPolicyDir) : std::nullopt;
  auto set = policy::load_policies(options.policy_files, system_dir);
  if (!set) return tl::unexpected(set.error());
  std::vector<std::string> check_ids;
  std::vector<std::string> finding_ids;
  for (const Check* check : registered_checks()) {
    check_ids.emplace_back(check->id());
    for (const auto id : check->finding_ids()) finding_ids.emplace_back(id);
  }
  if (auto valid = policy::validate_references(*set, check_ids, finding_ids); !valid)
    return tl::unexpected(valid.error());
  return std::make_shared<const policy::PolicySet>(std::move(*set));
}

}  // namespace rocm_doctor

#include <algorithm>
#include <stdexcept>

#include "rocm_doctor/check.h"

namespace rocm_doctor {

namespace {

struct Registry {
  std::vector<std::unique_ptr<Check>> owned;
  std::vector<const Check*> sorted;
  bool frozen = false;
};

// Function-local static: safe to use from other translation units' static initialisers.
Registry& registry() {
  static Registry instance;
  return instance;
}

}  // namespace

bool register_check(std::unique_ptr<Check> check) {
  auto& reg = registry();
  if (reg.frozen) throw std::logic_error("check registered after start-up: " + std::string(check->id()));
  reg.owned.push_back(std::move(check));
  return true;
}

const std::vector<const Check*>& registered_checks() {
  auto& reg = registry();
  if (!reg.frozen) {
    for (const auto& check : reg.owned) reg.sorted.push_back(check.get());
    std::sort(reg.sorted.begin(), reg.sorted.end(), [](const Check* a, const Check* b) {
      return a->order() != b->order() ? a->order() < b->order() : a->id() < b->id();
    });
    reg.frozen = true;
  }
  return reg.sorted;
}

const Check* find_check(std::string_view id) {
  for (const Check* check : registered_checks()) {
    if (check->id() == id) return check;
  }
  return nullptr;
}

std::string verify_command(std::string_view check_id) {
  return "rocm-doctor --only " + std::string(check_id);
}

Fix make_fix(std::string_view check_id, std::string description, std::vector<std::string> commands, FixNeeds needs) {
  Fix fix;
  fix.description = std::move(description);
  fix.commands = std::move(commands);
  fix.needs_root = needs.root;
  fix.needs_reboot = needs.reboot;
  fix.needs_relogin = needs.relogin;
  fix.verify = verify_command(check_id);
  return fix;
}

}  // namespace rocm_doctor

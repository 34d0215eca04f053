// A check module: one file under checks/, registered with one line.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <typeindex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rocm_doctor/finding.h"
#include "rocm_doctor/host.h"

namespace rocm_doctor {

namespace policy {
struct PolicySet;
}

// Options every check may consult.
struct RunOptions {
  // Building a container image: no GPU and no driver are expected.
  bool image_mode = false;
  // The gfx targets the image is meant for (--target-gfx), used when no GPU is present.
  std::vector<std::string> target_gfx;
  // Site policies (--policy): judged after the checks, on the same facts
  // (rocm_doctor/policy.h). Null or empty: none.
  std::shared_ptr<const policy::PolicySet> policies;
  // The interpreter whose PyTorch to check (--python, made absolute; "" = python3
  // on PATH). Its files are read first (rocm_doctor/facts/python_env.h).
  std::string python;
  // When the python probe's `import torch` answers (rocm_doctor/facts/torch_view.h):
  // never (--level quick), only when torch's files cannot decide (standard),
  // always when there is one (--level full, and replays: a capture's answer;
  // the default, so a snapshot's recorded answer is used). The CLI sets it from --level.
  enum class PythonImport { never, when_undecided, always };
  PythonImport python_import = PythonImport::always;
  // Binaries and libraries whose GPU code objects to judge (`rocm-doctor targets FILE...`,
  // the code-objects check; absolute paths). Empty: that check is skipped.
  std::vector<std::string> binaries;
};

// Facts several checks need (the GPU inventory, the installed ROCm release)
// are computed once per run and shared. A fact type T provides
//   static T collect(const CheckContext&);
class CheckContext;

class FactCache {
 public:
  template <typename T>
  const T& get(const CheckContext& ctx) const {
    std::lock_guard lock(mutex_);
    auto key = std::type_index(typeid(T));
    auto it = facts_.find(key);
    if (it == facts_.end()) {
      auto value = std::make_shared<T>(T::collect(ctx));
      it = facts_.emplace(key, std::move(value)).first;
    }
    return *static_cast<const T*>(it->second.get());
  }

  // The fact when a check already computed it, else null: for the report's
  // summaries, which must not read anything the checks did not.
  template <typename T>
  const T* find() const {
    std::lock_guard lock(mutex_);
    auto it = facts_.find(std::type_index(typeid(T)));
    return it == facts_.end() ? nullptr : static_cast<const T*>(it->second.get());
  }

 private:
  mutable std::recursive_mutex mutex_;
  mutable std::unordered_map<std::type_index, std::shared_ptr<void>> facts_;
};

class CheckContext {
 public:
  CheckContext(const Host& host, const RunOptions& options) : host_(host), options_(options) {}
  // The context keeps a reference to its options: a temporary would dangle.
  CheckContext(const Host& host, RunOptions&& options) = delete;

  [[nodiscard]] const Host& host() const { return host_; }
  [[nodiscard]] const RunOptions& options() const { return options_; }

  template <typename T>
  [[nodiscard]] const T& fact() const {
    return facts_.get<T>(*this);
  }

  // Null unless some check (or policy) already asked for fact<T>().
  template <typename T>
  [[nodiscard]] const T* computed_fact() const {
    return facts_.find<T>();
  }

 private:
  const Host& host_;
  const RunOptions& options_;
  FactCache facts_;
};

// What a check returns: its findings, or the reason it did not apply.
struct CheckOutcome {
  std::vector<Finding> findings;
  std::optional<std::string> skipped_reason;

  CheckOutcome() = default;
  CheckOutcome(std::vector<Finding> list) : findings(std::move(list)) {}  // NOLINT: implicit on purpose

  static CheckOutcome skipped(std::string reason) {
    CheckOutcome outcome;
    outcome.skipped_reason = std::move(reason);
    return outcome;
  }
};

class Check {
 public:
  virtual ~Check() = default;
  // Stable id used by --only/--skip. It is not always its finding ids' prefix:
  // `rocm-install` emits `rocm.*`, `gpu-arch` emits `gpu.*`, `topology` emits
  // `pcie.*`, `iommu.*` and `rccl.*`; the table atop docs/checks.md lists them
  // all, and a test holds finding_ids() to it. Ids are a contract:
  // they never change to match the check id.
  [[nodiscard]] virtual std::string_view id() const = 0;
  [[nodiscard]] virtual std::string_view title() const = 0;
  // Report order: lower runs and prints first (system < driver < access < software).
  [[nodiscard]] virtual int order() const { return 100; }
  // Every finding id this check can emit (tests hold docs/checks.md to it).
  [[nodiscard]] virtual std::vector<std::string_view> finding_ids() const = 0;
  [[nodiscard]] virtual CheckOutcome run(const CheckContext& ctx) const = 0;
  // The runtime probes ("hip", "smi", "python") whose results run() reads: a
  // live run starts only the probes its selected checks read.
  [[nodiscard]] virtual std::vector<std::string_view> probes() const { return {}; }
};

// Adds a check to the process-wide registry; used by ROCM_DOCTOR_REGISTER_CHECK.
bool register_check(std::unique_ptr<Check> check);
// Every registered check, sorted by order() then id(). Freezes the registry.
const std::vector<const Check*>& registered_checks();
const Check* find_check(std::string_view id);

// The verify line a fix should carry for a check.
std::string verify_command(std::string_view check_id);

// What applying a fix takes beyond pasting its commands.
struct FixNeeds {
  bool root = false;
  bool reboot = false;
  bool relogin = false;
};

// A fix of `check_id`'s findings: its verify line re-runs that check.
Fix make_fix(std::string_view check_id, std::string description, std::vector<std::string> commands = {},
             FixNeeds needs = {});

}  // namespace rocm_doctor

#define ROCM_DOCTOR_CONCAT_INNER(a, b) a##b
#define ROCM_DOCTOR_CONCAT(a, b) ROCM_DOCTOR_CONCAT_INNER(a, b)
// One line at the end of a check file registers it; the engine never changes. The
// variable is named by __COUNTER__, not __LINE__: a unity build (ROCM_DOCTOR_UNITY) puts
// several check files in one translation unit, where two may register on the same line.
#define ROCM_DOCTOR_REGISTER_CHECK(Type)                                           \
  namespace {                                                                      \
  [[maybe_unused]] const bool ROCM_DOCTOR_CONCAT(registered_check_, __COUNTER__) = \
      ::rocm_doctor::register_check(std::make_unique<Type>());                     \
  }

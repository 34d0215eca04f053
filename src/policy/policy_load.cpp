// Reading policy files: plain file IO (a policy is operator input, not machine
// state, so it does not go through the Host), errors naming file and position.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "policy/policy_internal.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::policy {

namespace {

namespace fs = std::filesystem;

// Policies are a few KiB; anything this large is the wrong file.
constexpr std::uintmax_t kMaxPolicyBytes = 1024 * 1024;

struct Position {
  std::size_t line = 1;
  std::size_t column = 1;
};

// nlohmann counts `byte` from 1 at the character it stopped on.
Position position_of(std::string_view text, std::size_t byte) {
  Position position;
  const auto end = std::min(text.size(), byte == 0 ? 0 : byte - 1);
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++position.line;
      position.column = 1;
    } else {
      ++position.column;
    }
  }
  return position;
}

// "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error ..." -> "syntax error ...".
std::string parse_problem(std::string_view what) {
  const auto column = what.find(", column ");
  if (column != std::string_view::npos) {
    const auto colon = what.find(": ", column);
    if (colon != std::string_view::npos) return std::string(what.substr(colon + 2));
  }
  const auto bracket = what.find("] ");
  return std::string(bracket == std::string_view::npos ? what : what.substr(bracket + 2));
}

std::string located(std::string_view label, const PathError& error) {
  return std::string(label) + ": " + (error.path.empty() ? std::string() : error.path + ": ") + error.problem;
}

tl::expected<std::string, std::string> read_text(const fs::path& path) {
  std::error_code code;
  const auto status = fs::status(path, code);
  if (code || !fs::exists(status)) return tl::unexpected("cannot read policy " + path.string() + ": no such file");
  if (!fs::is_regular_file(status))
    return tl::unexpected("cannot read policy " + path.string() + ": not a regular file");
  const auto size = fs::file_size(path, code);
  if (!code && size > kMaxPolicyBytes) {
    return tl::unexpected("cannot read policy " + path.string() + ": larger than 1 MiB, not a policy");
  }
  std::ifstream stream(path, std::ios::binary);
  if (!stream) return tl::unexpected("cannot read policy " + path.string() + ": permission denied or unreadable");
  std::ostringstream text;
  text << stream.rdbuf();
  return text.str();
}

// A policy folder that exists but cannot be listed is an error, not "no policies".
tl::expected<std::vector<std::string>, std::string> json_files_in(const fs::path& folder) {
  std::vector<std::string> files;
  std::error_code code;
  for (fs::directory_iterator it(folder, code), end; !code && it != end; it.increment(code)) {
    if (it->path().extension() == ".json") files.push_back(it->path().string());
  }
  if (code) return tl::unexpected("cannot read policy folder " + folder.string() + ": " + code.message());
  std::sort(files.begin(), files.end());
  return files;
}

// JSON allows a key twice and the parser keeps the last value; in a policy that
// hides a typo or a merge accident, so it is an error. Reports the first
// duplicate as "'rocm' twice in /rules" ("/rules/os/[]" for an object in an array).
class DuplicateKeyFinder {
 public:
  bool operator()(int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start || event == Event::array_start) {
      frames_.push_back({pending_key_.empty() ? "[]" : pending_key_, {}});  // "[]": an element of an array
    } else if ((event == Event::object_end || event == Event::array_end) && !frames_.empty()) {
      frames_.pop_back();
    } else if (event == Event::key && !frames_.empty()) {
      pending_key_ = parsed.get<std::string>();
      if (!frames_.back().keys.insert(pending_key_).second && !duplicate_) {
        duplicate_ = "'" + pending_key_ + "' twice in " + path();
      }
      return true;
    }
    if (event != Event::key) pending_key_.clear();
    return true;
  }
  [[nodiscard]] const std::optional<std::string>& duplicate() const { return duplicate_; }

 private:
  struct Frame {
    std::string name;  // the key this object or array is the value of; "[]" in an array
    std::set<std::string> keys;
  };
  [[nodiscard]] std::string path() const {
    std::string out;
    for (std::size_t i = 1; i < frames_.size(); ++i) out += "/" + frames_[i].name;
    return out.empty() ? "the policy" : out;
  }
  std::vector<Frame> frames_;
  std::string pending_key_;
  std::optional<std::string> duplicate_;
};

std::string check_prefix(std::string_view finding) {
  return std::string(finding.substr(0, finding.find('.')));
}

}  // namespace

tl::expected<Policy, std::string> parse_policy(std::string_view text, std::string_view label) {
  nlohmann::json root;
  DuplicateKeyFinder duplicates;
  try {
    root = nlohmann::json::parse(text, std::ref(duplicates));
  } catch (const nlohmann::json::parse_error& error) {
    const auto position = position_of(text, error.byte);
    return tl::unexpected(std::string(label) + ":" + std::to_string(position.line) + ":" +
                          std::to_string(position.column) + ": invalid JSON: " + parse_problem(error.what()));
  }
  if (duplicates.duplicate()) return tl::unexpected(std::string(label) + ": duplicate key " + *duplicates.duplicate());
  auto policy = parse_policy_json(root, label);
  if (!policy) return tl::unexpected(located(label, policy.error()));
  return std::move(*policy);
}

tl::expected<Policy, std::string> load_policy_file(const std::string& path) {
  auto text = read_text(path);
  if (!text) return tl::unexpected(text.error());
  return parse_policy(*text, path);
}

tl::expected<PolicySet, std::string> load_policies(const std::vector<std::string>& files,
                                                   const std::optional<std::string>& system_dir) {
  auto all = files;
  if (system_dir) {
    std::error_code code;
    if (fs::is_directory(*system_dir, code)) {
      auto found = json_files_in(*system_dir);
      if (!found) return tl::unexpected(found.error());
      for (auto& file : *found) all.push_back(std::move(file));
    }
  }
  PolicySet set;
  for (const auto& file : all) {
    auto policy = load_policy_file(file);
    if (!policy) return tl::unexpected(policy.error());
    set.policies.push_back(std::move(*policy));
  }
  return set;
}

tl::expected<void, std::string> validate_references(const PolicySet& set, const std::vector<std::string>& check_ids,
                                                    const std::vector<std::string>& finding_ids) {
  auto known_findings = finding_ids;
  for (auto& id : policy::finding_ids()) known_findings.push_back(std::move(id));
  auto prefixes = check_ids;
  prefixes.emplace_back(kCheckId);
  for (const auto& policy : set.policies) {
    for (std::size_t i = 0; i < policy.skip.size(); ++i) {
      const auto& id = policy.skip[i].check;
      if (std::find(check_ids.begin(), check_ids.end(), id) != check_ids.end()) continue;
      std::string message = policy.file + ": /skip/" + std::to_string(i) + "/check: unknown check '" + id + "'";
      if (auto match = closest_match(id, check_ids, std::max<std::size_t>(1, id.size() / 3))) {
        message += " (did you mean '" + *match + "'?)";
      }
      return tl::unexpected(message + "; see --list-checks");
    }
    for (std::size_t i = 0; i < policy.tolerate.size(); ++i) {
      const auto& id = policy.tolerate[i].finding;
      // Only ids of checks this build knows can be held to a list; others may come from plugins.
      const auto prefix = check_prefix(id);
      if (std::find(prefixes.begin(), prefixes.end(), prefix) == prefixes.end()) continue;
      if (std::find(known_findings.begin(), known_findings.end(), id) != known_findings.end()) continue;
      std::string message = policy.file + ": /tolerate/" + std::to_string(i) + "/finding: check '" + prefix +
                            "' has no finding '" + id + "'";
      if (auto match = closest_match(id, known_findings, std::max<std::size_t>(1, id.size() / 3))) {
        message += " (did you mean '" + *match + "'?)";
      }
      return tl::unexpected(message + "; see docs/checks.md");
    }
  }
  return {};
}

}  // namespace rocm_doctor::policy

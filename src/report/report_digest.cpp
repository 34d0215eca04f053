#include "report/report_digest.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "report/json_subtree.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

std::string shown_digest(std::string_view text) {
  return displayable(text, std::string_view::npos, false);
}

std::map<std::string, std::string> shown_digest(const std::map<std::string, std::string>& entries) {
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : entries) out[shown_digest(key)] = shown_digest(value);
  return out;
}

// Reports come from other machines, and diff and fleet print what the digest
// keeps: control characters become \xNN here, once, so a hostile report cannot
// act on the terminal or start a line of its own.
void make_digest_displayable(ReportDigest& digest) {
  for (auto* text : {&digest.hostname, &digest.generated_at, &digest.worst}) *text = shown_digest(*text);
  digest.versions = shown_digest(digest.versions);
  digest.check_status = shown_digest(digest.check_status);
  for (auto& finding : digest.findings) {
    for (auto* text : {&finding.id, &finding.check, &finding.severity, &finding.summary}) *text = shown_digest(*text);
  }
  for (auto& gpu : digest.gpus) gpu = shown_digest(gpu);
  for (auto& id : digest.root_causes) id = shown_digest(id);
  for (auto& mode : digest.partition_modes) mode = shown_digest(mode);
}

}  // namespace

// "AMD Instinct MI300X CPX/NPS4", or "" for a GPU with no partition mode.
std::string partition_mode(const PhysicalGpuModes& gpu) {
  if (gpu.compute_partition.empty() && gpu.memory_partition.empty()) return "";
  std::string modes = gpu.compute_partition;
  if (!gpu.memory_partition.empty()) modes += (modes.empty() ? "" : "/") + gpu.memory_partition;
  return (gpu.name.empty() ? std::string("unknown GPU") : gpu.name) + " " + modes;
}

namespace {

// Reads a report with nlohmann's SAX interface and keeps only the digest's
// fields: no document is built, so `fleet` over 10,000 reports spends its time
// in the lexer alone. Where a key repeats, the last value wins, as in a parsed
// document; a value of the wrong type reads as "" (or as no entries).
class DigestReader final : public nlohmann::json_sax<nlohmann::json> {
 public:
  // The containers whose fields the digest keeps; everything else is `other`.
  enum class Role {
    root,
    host,
    summary,
    tool,
    versions,
    checks,
    check,
    findings,
    finding,
    gpus,
    gpu,
    root_causes,
    physical_gpus,
    physical_gpu,
    other
  };

  tl::expected<ReportDigest, std::string> finish() {
    if (!root_is_object_ || schema_ != "rocm-doctor/report") {
      return tl::unexpected(std::string("not a rocm-doctor JSON report (schema is not rocm-doctor/report)"));
    }
    ReportDigest digest;
    digest.hostname = std::move(hostname_);
    digest.generated_at = std::move(generated_at_);
    digest.worst = worst_.empty() ? "ok" : std::move(worst_);
    if (!os_.empty()) digest.versions["os"] = std::move(os_);
    if (!kernel_.empty()) digest.versions["kernel"] = std::move(kernel_);
    if (has_tool_) digest.versions["rocm-doctor"] = std::move(tool_version_);
    for (auto& [key, value] : versions_) digest.versions[key] = std::move(value);
    digest.findings = std::move(findings_);
    digest.check_status = std::move(check_status_);
    digest.gpus = std::move(gpus_);
    digest.has_root_causes = has_root_causes_;
    digest.root_causes = std::move(root_causes_);
    digest.partition_modes = std::move(partition_modes_);
    digest.node_config = node_config_.take();
    make_digest_displayable(digest);
    return digest;
  }

  // Inside `node_config`, every event builds that subtree (ReportDigest::node_config).
  bool null() override { return keeping() ? kept(nullptr) : scalar(""); }
  bool boolean(bool value) override { return keeping() ? kept(value) : scalar(""); }
  bool number_integer(number_integer_t value) override { return keeping() ? kept(value) : scalar(""); }
  bool number_unsigned(number_unsigned_t value) override { return keeping() ? kept(value) : scalar(""); }
  bool number_float(number_float_t value, const string_t& /*text*/) override {
    return keeping() ? kept(value) : scalar("");
  }
  bool binary(binary_t& /*value*/) override { return keeping() ? kept(nullptr) : scalar(""); }
  bool string(string_t& value) override { return keeping() ? kept(std::move(value)) : scalar(std::move(value), true); }

  bool key(string_t& name) override {
    if (node_config_.active()) {
      node_config_.key(std::move(name));
    } else {
      stack_.back().key = std::move(name);
    }
    return true;
  }
  bool start_object(std::size_t /*size*/) override { return open(true); }
  bool start_array(std::size_t /*size*/) override { return open(false); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t /*position*/, const std::string& /*token*/,
                   const nlohmann::detail::exception& /*error*/) override {
    return false;
  }

 private:
  struct Frame {
    Role role;
    std::string key;  // the current key, in an object
  };
  struct PendingCheck {
    std::string id;
    std::string status;
    std::vector<DigestFinding> findings;  // check id filled in when the check closes
  };
  struct PendingGpu {
    std::string pci_address;
    std::string name;
    std::string gfx;
  };

  // A value arrives at the current position: a field the digest keeps, or an
  // element of a list (a non-object element still counts, with empty fields).
  void element_or_field(std::string value, bool is_string) {
    if (stack_.empty()) return;
    const Frame& frame = stack_.back();
    const std::string& key = frame.key;
    if (!is_string) value.clear();
    switch (frame.role) {
      case Role::root:
        root_child(key, false);                              // a scalar "host", "checks", ... replaces an earlier one
        if (key == "root_causes") has_root_causes_ = false;  // and is no list of ids
        if (key == "schema")
          schema_ = std::move(value);
        else if (key == "generated_at")
          generated_at_ = std::move(value);
        break;
      case Role::host:
        if (key == "hostname")
          hostname_ = std::move(value);
        else if (key == "os")
          os_ = std::move(value);
        else if (key == "kernel")
          kernel_ = std::move(value);
        break;
      case Role::summary:
        if (key == "worst") worst_ = std::move(value);
        break;
      case Role::tool:
        if (key == "version") tool_version_ = std::move(value);
        break;
      case Role::versions:
        if (is_string)
          versions_[key] = std::move(value);
        else
          versions_.erase(key);
        break;
      case Role::check:
        if (key == "id")
          check_.id = std::move(value);
        else if (key == "status")
          check_.status = std::move(value);
        else if (key == "findings")
          check_.findings.clear();
        break;
      case Role::finding:
        if (key == "id")
          finding_.id = std::move(value);
        else if (key == "severity")
          finding_.severity = std::move(value);
        else if (key == "summary")
          finding_.summary = std::move(value);
        break;
      case Role::gpu:
        if (key == "pci_address")
          gpu_.pci_address = std::move(value);
        else if (key == "name")
          gpu_.name = std::move(value);
        else if (key == "gfx")
          gpu_.gfx = std::move(value);
        break;
      case Role::checks: check_status_[""] = ""; break;  // an element that is no object
      case Role::findings: check_.findings.push_back({}); break;
      case Role::gpus: gpus_.push_back(" "); break;
      case Role::physical_gpu:
        if (key == "name")
          physical_.name = std::move(value);
        else if (key == "compute_partition")
          physical_.compute_partition = std::move(value);
        else if (key == "memory_partition")
          physical_.memory_partition = std::move(value);
        break;
      case Role::physical_gpus: break;  // an element that is no object has no mode
      case Role::root_causes:
        if (is_string) root_causes_.push_back(std::move(value));
        break;
      case Role::other: break;
    }
  }

  [[nodiscard]] bool keeping() const { return node_config_.active(); }
  bool kept(nlohmann::json value) {
    node_config_.scalar(std::move(value));
    return true;
  }

  bool scalar(std::string value, bool is_string = false) {
    if (stack_.empty()) return true;  // a document that is one scalar
    element_or_field(std::move(value), is_string);
    return true;
  }

  // A container starts: its key first resets what an earlier value of that key left.
  bool open(bool is_object) {
    if (node_config_.active()) {
      node_config_.open(is_object);
      return true;
    }
    if (stack_.empty()) {
      root_is_object_ = is_object;
      stack_.push_back({is_object ? Role::root : Role::other, {}});
      return true;
    }
    const Frame& parent = stack_.back();
    Role role = Role::other;
    switch (parent.role) {
      case Role::root:
        role = root_child(parent.key, is_object);
        if (role == Role::other) element_or_field({}, false);
        if (parent.key == "node_config" && is_object) {
          node_config_.start();
          node_config_.open(true);
          return true;
        }
        break;
      case Role::checks:
        if (is_object)
          check_ = {};
        else
          check_status_[""] = "";
        role = is_object ? Role::check : Role::other;
        break;
      case Role::check:
        if (parent.key == "findings")
          check_.findings.clear();
        else
          element_or_field({}, false);
        role = parent.key == "findings" && !is_object ? Role::findings : Role::other;
        break;
      case Role::findings:
        if (is_object)
          finding_ = {};
        else
          check_.findings.push_back({});
        role = is_object ? Role::finding : Role::other;
        break;
      case Role::physical_gpus:
        if (is_object) physical_ = {};
        role = is_object ? Role::physical_gpu : Role::other;
        break;
      case Role::gpus:
        if (is_object)
          gpu_ = {};
        else
          gpus_.push_back(" ");
        role = is_object ? Role::gpu : Role::other;
        break;
      case Role::host:
      case Role::summary:
      case Role::tool:
      case Role::versions:
      case Role::finding:
      case Role::gpu:
      case Role::physical_gpu: element_or_field({}, false); break;
      case Role::root_causes:  // a container in the list is no finding id
      case Role::other: break;
    }
    stack_.push_back({role, {}});
    return true;
  }

  Role root_child(const std::string& key, bool is_object) {
    if (key == "host") {
      hostname_.clear(), os_.clear(), kernel_.clear();
      return is_object ? Role::host : Role::other;
    }
    if (key == "summary") {
      worst_.clear();
      return is_object ? Role::summary : Role::other;
    }
    if (key == "tool") {
      has_tool_ = true;
      tool_version_.clear();
      return is_object ? Role::tool : Role::other;
    }
    if (key == "versions") {
      versions_.clear();
      return is_object ? Role::versions : Role::other;
    }
    if (key == "checks") {
      findings_.clear(), check_status_.clear();
      return is_object ? Role::other : Role::checks;
    }
    if (key == "gpus") {
      gpus_.clear();
      return is_object ? Role::other : Role::gpus;
    }
    if (key == "physical_gpus") {
      partition_modes_.clear();
      return is_object ? Role::other : Role::physical_gpus;
    }
    if (key == "node_config") node_config_.take();  // a later value replaces it
    if (key == "root_causes") {
      root_causes_.clear();
      has_root_causes_ = !is_object;
      return is_object ? Role::other : Role::root_causes;
    }
    return Role::other;
  }

  bool close() {
    if (node_config_.active()) {
      node_config_.close();
      return true;
    }
    const Role role = stack_.back().role;
    stack_.pop_back();
    if (role == Role::check) {
      check_status_[check_.id] = check_.status;
      for (auto& finding : check_.findings) {
        finding.check = check_.id;
        findings_.push_back(std::move(finding));
      }
    } else if (role == Role::finding) {
      check_.findings.push_back(std::move(finding_));
    } else if (role == Role::physical_gpu) {
      if (auto mode = partition_mode(physical_); !mode.empty()) partition_modes_.push_back(std::move(mode));
    } else if (role == Role::gpu) {
      std::string line = gpu_.pci_address + " " + gpu_.name;
      if (!gpu_.gfx.empty()) line += " (" + gpu_.gfx + ")";
      gpus_.push_back(std::move(line));
    }
    return true;
  }

  std::vector<Frame> stack_;
  bool root_is_object_ = false;
  std::string schema_, generated_at_, hostname_, os_, kernel_, worst_, tool_version_;
  bool has_tool_ = false;
  std::map<std::string, std::string> versions_;
  std::vector<DigestFinding> findings_;
  std::map<std::string, std::string> check_status_;
  std::vector<std::string> gpus_;
  bool has_root_causes_ = false;
  std::vector<std::string> root_causes_;
  PendingCheck check_;
  DigestFinding finding_;
  PendingGpu gpu_;
  PhysicalGpuModes physical_;
  std::vector<std::string> partition_modes_;
  JsonSubtree node_config_;
};

tl::expected<std::string, std::string> read_whole_file(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return tl::unexpected(std::string("cannot open"));
  struct stat info {};
  std::string text;
  if (::fstat(fd, &info) == 0 && info.st_size > 0) text.reserve(static_cast<std::size_t>(info.st_size));
  char chunk[65536];
  while (true) {
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      return tl::unexpected(why);
    }
    if (got == 0) break;
    text.append(chunk, static_cast<std::size_t>(got));
  }
  ::close(fd);
  return text;
}

}  // namespace

int severity_rank(std::string_view severity) {
  if (severity == "error") return 3;
  if (severity == "warning") return 2;
  if (severity == "info") return 1;
  return 0;
}

tl::expected<ReportDigest, std::string> parse_report_digest(std::string_view text) {
  DigestReader reader;
  if (!nlohmann::json::sax_parse(text.begin(), text.end(), &reader)) {
    return tl::unexpected(std::string("not valid JSON"));
  }
  return reader.finish();
}

tl::expected<ReportDigest, std::string> load_report_digest(const std::filesystem::path& file) {
  // One read of the whole file: several times faster than nlohmann's stream input.
  const auto text = read_whole_file(file);
  if (!text) return tl::unexpected(file.string() + ": " + text.error());
  auto digest = parse_report_digest(*text);
  if (!digest) return tl::unexpected(file.string() + ": " + digest.error());
  digest->file = file.string();
  return digest;
}

}  // namespace rocm_doctor

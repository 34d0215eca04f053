// --redact: personal and machine-identifying values are replaced by stable
// placeholders (the same value always gets the same placeholder within one
// report or snapshot), so a report or capture can be attached to a ticket.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <vector>

#include "rocm_doctor/host.h"
#include "rocm_doctor/report.h"

namespace rocm_doctor {

enum class RedactKind { host, user, home, serial, ip, mac, uuid };

class Redactor {
 public:
  // Learns the values to hide from a host: hostname, user names and home
  // folders (identity, environment, /etc/passwd), GPU unique ids and serial
  // numbers (DRM and KFD), DMI serials. Addresses and UUIDs are found by shape.
  static Redactor from_host(const Host& host);

  void add(RedactKind kind, std::string value);

  [[nodiscard]] std::string apply(std::string_view text);
  void apply(Report& report);
  void apply(nlohmann::json& value);          // strings and object keys
  void apply(nlohmann::ordered_json& value);  // strings and object keys

  // The values the redactor knows by name (for tests).
  [[nodiscard]] std::vector<std::string> known_values() const;

 private:
  std::string placeholder(RedactKind kind, const std::string& value);
  std::string replace_literals(std::string_view text);
  std::string replace_shapes(std::string_view text);

  struct Literal {
    std::string text;       // as it appears (raw, or shell-quoted)
    std::string canonical;  // the value it stands for
    RedactKind kind;
  };
  std::vector<Literal> literals_;                // longest first
  std::map<std::string, std::string> assigned_;  // value -> placeholder
  std::map<RedactKind, int> counters_;
};

// Redacts a snapshot folder in place: file contents, link targets and file
// names under root/, and every string of snapshot.json.
tl::expected<void, std::string> redact_snapshot_folder(const std::filesystem::path& folder, Redactor& redactor);

}  // namespace rocm_doctor

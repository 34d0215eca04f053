// The knowledge tables (checks/data/*.json) and the overlays that add to or
// override them without a rebuild: /etc/rocm-doctor/knowledge.d/*.json (read
// through the Host) and --knowledge DIR. docs/knowledge.md describes both.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <vector>

namespace rocm_doctor {

class Host;

namespace knowledge {

// The folder a machine's administrator drops overlay files into.
inline constexpr std::string_view kSystemDir = "/etc/rocm-doctor/knowledge.d";

// Called by the generated checks/data embedding code (cmake/Embed.cmake) for every table.
bool register_builtin(std::string_view file, std::string_view text);
// A table's text: the built-in one, or the merged overlay once install() has run.
std::string_view table(std::string_view file, std::string_view builtin);
// A table's current text by file name (merged or built in); empty for an unknown table.
std::string_view table_text(std::string_view file);
// Every registered table file name ("rocm_releases.json", ...), sorted.
std::vector<std::string> table_names();

// One overlay file as read: where it came from, and its text.
struct OverlayFile {
  std::string path;
  std::string text;
};

// Where each table's content came from after install(): "built in", then each overlay path.
struct TableOrigin {
  std::string file;
  std::vector<std::string> overlays;
};

// Merges `overlay` (one file, already parsed) into `base` (the table so far). Rows of arrays
// are matched on their key field (release, gfx, device+revision, torch, rocm, kmd, amdgpu,
// name, ...): a row with a known key replaces the row, a new key adds one; arrays of strings
// are unions; objects merge key by key; anything else is replaced. `"_replace": true` replaces
// the whole table. Pure.
nlohmann::json merge(const nlohmann::json& base, const nlohmann::json& overlay);

// Checks one overlay file against its table's schema (the built-in table's shape: the same
// top-level keys with the same JSON types, rows with their key field and typed fields, and
// its own non-empty _sources). Returns the first problem as "FILE: FIELD: what is wrong".
tl::expected<void, std::string> check_schema(const std::string& path, std::string_view table_file,
                                             const nlohmann::json& builtin, const nlohmann::json& overlay);

// Validates every file, merges them in order (later files win), checks that the merged
// knowledge base still parses (references between tables included), and makes table()
// answer with the result. Meant to run once, before any check. Errors name file and field.
tl::expected<std::vector<TableOrigin>, std::string> install(const std::vector<OverlayFile>& files);

// The overlay files of a run: /etc/rocm-doctor/knowledge.d/*.json through `host`, then every
// *.json of each --knowledge DIR through `local` (the machine running the doctor), each folder's
// files in name order. An unreadable folder given on the command line is an error.
tl::expected<std::vector<OverlayFile>, std::string> read_overlays(const Host& host, const Host& local,
                                                                  const std::vector<std::string>& dirs);

// What `rocm-doctor knowledge` prints: every table with its row count, as-of date and newest
// release, and what the overlays changed.
// `today` ("2026-12-01", UTC) gives the age of the newest release row; "" leaves it out.
std::string describe(const std::vector<TableOrigin>& origins, std::string_view today = "");
nlohmann::json describe_json(const std::vector<TableOrigin>& origins, std::string_view today = "");
// Whole days from `from` to `to` (both "YYYY-MM-DD"); nullopt when either is not such a date.
std::optional<long> days_between(std::string_view from, std::string_view to);

}  // namespace knowledge
}  // namespace rocm_doctor

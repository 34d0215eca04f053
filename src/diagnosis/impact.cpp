// Reads checks/data/finding_impact.json: the impact class of every finding id.
#include "rocm_doctor/impact.h"

#include <spdlog/spdlog.h>

#include <array>
#include <mutex>
#include <nlohmann/json.hpp>

#include "rocm_doctor/data_table.h"

namespace rocm_doctor {

namespace {

using Json = nlohmann::json;

constexpr std::array<std::pair<Impact, std::string_view>, 5> kNames{{{Impact::blocks, "blocks"},
                                                                     {Impact::breaks, "breaks"},
                                                                     {Impact::degrades, "degrades"},
                                                                     {Impact::tidy, "tidy"},
                                                                     {Impact::advice, "advice"}}};

tl::expected<Impact, std::string> impact_value(const Json& value, const std::string& where) {
  if (!value.is_string()) return tl::unexpected(where + ": the class is not a string");
  const auto impact = parse_impact(value.get<std::string>());
  if (!impact) return tl::unexpected(where + ": '" + value.get<std::string>() + "' is not an impact class");
  return *impact;
}

tl::expected<std::map<Severity, Impact>, std::string> by_severity(const Json& object, const std::string& where) {
  std::map<Severity, Impact> result;
  for (const auto& [name, value] : object.items()) {
    const auto severity = parse_severity(name);
    if (!severity) return tl::unexpected(where + ": '" + name + "' is not a severity");
    auto impact = impact_value(value, where + "." + name);
    if (!impact) return tl::unexpected(impact.error());
    result[*severity] = *impact;
  }
  return result;
}

tl::expected<ImpactEntry, std::string> parse_entry(const Json& value, const std::string& id) {
  ImpactEntry entry;
  if (value.is_object()) {
    auto classes = by_severity(value, id);
    if (!classes) return tl::unexpected(classes.error());
    if (classes->empty()) return tl::unexpected(id + ": no severity is given a class");
    entry.by_severity = std::move(*classes);
    return entry;
  }
  auto impact = impact_value(value, id);
  if (!impact) return tl::unexpected(impact.error());
  entry.any = *impact;
  return entry;
}

constexpr std::string_view kFindingImpactFile = "finding_impact.json";

// Errors: "finding_impact.json: impact: ID: what is wrong". `_classes` only documents the
// classes (their names are kNames).
tl::expected<ImpactTable, std::string> read_finding_impact_table(data_table::TableReader& reader) {
  auto impact = reader.at("impact");
  if (!impact) return tl::unexpected(impact.error());
  if (!impact->get().is_object()) return tl::unexpected(reader.error("impact", "must be an object"));
  ImpactTable table;
  for (const auto& [id, value] : impact->get().items()) {
    auto entry = parse_entry(value, id);
    if (!entry) return tl::unexpected(reader.error("impact", entry.error()));
    table.entries.emplace(id, std::move(*entry));
  }
  const auto& defaults = reader.optional("severity_default");
  if (!defaults.is_null()) {
    auto by_class = by_severity(defaults, "severity_default");
    if (!by_class) return tl::unexpected(reader.file() + ": " + by_class.error());  // names severity_default
    table.severity_default = std::move(*by_class);
  }
  return table;
}

[[maybe_unused]] const bool kFindingImpactLoaderRegistered =
    data_table::register_table_loader<ImpactTable, &read_finding_impact_table>(kFindingImpactFile);

}  // namespace

std::string_view to_string(Impact impact) {
  for (const auto& [value, name] : kNames) {
    if (value == impact) return name;
  }
  return "advice";
}

std::optional<Impact> parse_impact(std::string_view text) {
  for (const auto& [value, name] : kNames) {
    if (name == text) return value;
  }
  return std::nullopt;
}

std::optional<Impact> ImpactTable::declared(std::string_view id, Severity severity) const {
  const auto it = entries.find(id);
  if (it == entries.end()) return std::nullopt;
  if (it->second.any) return it->second.any;
  const auto exact = it->second.by_severity.find(severity);
  if (exact != it->second.by_severity.end()) return exact->second;
  // A severity the table does not name for this id (a policy's tolerance
  // downgrade, an overlay's new severity): the nearest one below it.
  for (auto below = it->second.by_severity.rbegin(); below != it->second.by_severity.rend(); ++below) {
    if (below->first <= severity) return below->second;
  }
  return it->second.by_severity.begin()->second;
}

Impact ImpactTable::of(std::string_view id, Severity severity) const {
  if (auto impact = declared(id, severity)) return *impact;
  const auto fallback = severity_default.find(severity);
  if (fallback != severity_default.end()) return fallback->second;
  // No table (it failed to parse, and said so): an alarm still counts as a fault.
  return severity >= Severity::warning ? Impact::degrades : Impact::advice;
}

tl::expected<ImpactTable, std::string> parse_impact_table(std::string_view json_text) {
  return data_table::read_text<ImpactTable, &read_finding_impact_table>(kFindingImpactFile, json_text);
}

// Parsed once per table text (overlays included). A broken table ranks findings by severity
// alone, said once (the key test holds the built-in one valid).
const ImpactTable& impact_table() {
  static const ImpactTable kNoTable;
  const auto& loaded = data_table::load<ImpactTable, &read_finding_impact_table>(kFindingImpactFile);
  if (loaded) return *loaded;
  static std::once_flag said;
  std::call_once(said, [&] { spdlog::error("{}: findings are ranked by severity alone", loaded.error()); });
  return kNoTable;
}

Impact impact_of(const Finding& finding) {
  return impact_table().of(finding.id, finding.severity);
}

}  // namespace rocm_doctor

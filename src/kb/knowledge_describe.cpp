// What `rocm-doctor knowledge` prints (rocm_doctor/knowledge.h): every table with its
// row counts, the date it is as of, the newest release it mentions, and its overlays.
#include <fmt/format.h>

#include "rocm_doctor/kb.h"
#include "rocm_doctor/knowledge.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::knowledge {

namespace {

using nlohmann::json;

json current(const std::string& file) {
  auto parsed = json::parse(table_text(file), nullptr, false);
  return parsed.is_object() ? parsed : json::object();
}

// The newest version-like value of a release field in any row of the table.
std::string newest_release_in(const json& table) {
  std::string newest;
  const auto consider = [&](const json& value) {
    if (!value.is_string()) return;
    const auto text = value.get<std::string>();
    if (kb::version_numbers(text).size() < 2) return;
    // "10.1.0" over "10.1": the same release, spelled with its patch level.
    if (newest.empty() || kb::version_less(newest, text) ||
        (!kb::version_less(text, newest) && text.size() > newest.size())) {
      newest = text;
    }
  };
  for (const auto& [key, value] : table.items()) {
    if (key.starts_with('_') || !value.is_array()) continue;
    for (const auto& row : value) {
      if (!row.is_object()) continue;
      for (const char* field : {"release", "rocm"}) {
        if (row.contains(field)) consider(row[field]);
      }
      for (const auto& patch : row.value("patch_releases", json::array())) consider(patch);
    }
  }
  return newest;
}

std::string as_of(const json& table) {
  const auto meta = table.value("_as_of", json::object());
  return meta.is_object() ? meta.value("date", std::string()) : std::string();
}

json counts(const json& table) {
  json result = json::object();
  for (const auto& [key, value] : table.items()) {
    if (key.starts_with('_')) continue;
    if (value.is_array() || value.is_object()) result[key] = value.size();
  }
  return result;
}

// Days since 1970-01-01 of a civil date (Howard Hinnant's days_from_civil).
long days_from_civil(long year, unsigned month, unsigned day) {
  year -= month <= 2 ? 1 : 0;
  const long era = (year >= 0 ? year : year - 399) / 400;
  const auto year_of_era = static_cast<unsigned>(year - era * 400);
  const unsigned day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const unsigned day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + static_cast<long>(day_of_era) - 719468;
}

std::optional<long> day_number(std::string_view date) {
  const auto parts = split(date, '-');
  if (parts.size() != 3 || parts[0].size() != 4 || parts[1].size() != 2 || parts[2].size() != 2) return std::nullopt;
  const auto year = parse_uint(parts[0]);
  const auto month = parse_uint(parts[1]);
  const auto day = parse_uint(parts[2]);
  if (!year || !month || !day || *month < 1 || *month > 12 || *day < 1 || *day > 31) return std::nullopt;
  return days_from_civil(static_cast<long>(*year), static_cast<unsigned>(*month), static_cast<unsigned>(*day));
}

// The knowledge base's own "as of": the newest release row, its newest patch release and date.
json overall() {
  const auto releases = current("rocm_releases.json");
  json result = {{"date", as_of(releases)}, {"newest_release", ""}, {"released", ""}};
  if (!releases.is_object() || !releases.contains("releases") || releases["releases"].empty()) return result;
  const auto& newest = releases["releases"].back();
  auto patches = newest.value("patch_releases", json::array());
  const auto patch = patches.empty() ? newest.value("release", std::string()) : patches.back().get<std::string>();
  result["newest_release"] = patch;
  result["released"] = newest.value("released", json::object()).value(patch, std::string());
  return result;
}

}  // namespace

std::optional<long> days_between(std::string_view from, std::string_view to) {
  const auto start = day_number(from);
  const auto end = day_number(to);
  if (!start || !end) return std::nullopt;
  return *end - *start;
}

json describe_json(const std::vector<TableOrigin>& origins, std::string_view today) {
  json tables = json::array();
  for (const auto& origin : origins) {
    const auto table = current(origin.file);
    json from = json::array({"built in"});
    for (const auto& path : origin.overlays) from.push_back(path);
    tables.push_back({{"file", origin.file},
                      {"counts", counts(table)},
                      {"newest_release", newest_release_in(table)},
                      {"as_of", as_of(table)},
                      {"sources", table.value("_sources", json::array()).size()},
                      {"from", from}});
  }
  auto head = overall();
  // How old the newest release row is: past a release cycle or two, newer releases are likely missing.
  if (const auto age = days_between(head.value("released", std::string()), today))
    head["newest_release_age_days"] = *age;
  return {{"as_of", head}, {"tables", tables}};
}

std::string describe(const std::vector<TableOrigin>& origins, std::string_view today) {
  const auto data = describe_json(origins, today);
  const auto& head = data["as_of"];
  const auto released = head.value("released", std::string());
  std::string when = released.empty() ? "" : " (released " + released;
  if (head.contains("newest_release_age_days")) {
    const auto days = head["newest_release_age_days"].get<long>();
    when += days < 0 ? ", in the future" : fmt::format(", {} day{} ago", days, days == 1 ? "" : "s");
  }
  if (!when.empty()) when += ")";
  std::string out =
      fmt::format("rocm-doctor knowledge as of {}: newest release ROCm {}{}\n",
                  head.value("date", std::string("(no date)")), head.value("newest_release", std::string("?")), when);
  out += "\n";
  out += fmt::format("{:<22} {:<10} {:<14} {:>7}  {}\n", "table", "as of", "newest release", "sources", "rows");
  for (const auto& table : data["tables"]) {
    std::vector<std::string> parts;
    for (const auto& [key, count] : table["counts"].items()) parts.push_back(fmt::format("{} {}", key, count.dump()));
    const auto date = table.value("as_of", std::string());
    const auto newest = table.value("newest_release", std::string());
    out +=
        fmt::format("{:<22} {:<10} {:<14} {:>7}  {}\n", table.value("file", std::string()), date.empty() ? "-" : date,
                    newest.empty() ? "-" : newest, table["sources"].dump(), join(parts, ", "));
    for (std::size_t i = 1; i < table["from"].size(); ++i) {
      out += fmt::format("{:<22} + overlay {}\n", "",
                         displayable(table["from"][i].get<std::string>(), std::string_view::npos, false));
    }
  }
  out += "\nOverlays: " + std::string(kSystemDir) + "/*.json and --knowledge DIR (docs/knowledge.md).\n";
  return out;
}

}  // namespace rocm_doctor::knowledge

#include "core/explain.h"

#include "embedded_data.h"
#include "rocm_doctor/symptom.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

std::string_view checks_document() {
  return embedded::checks_md();
}

namespace {

// "## access" -> {2, "access"}; a heading may carry text after the id in backticks or a colon.
std::pair<int, std::string_view> heading(std::string_view line) {
  int level = 0;
  while (level < static_cast<int>(line.size()) && line[level] == '#') ++level;
  if (level == 0 || level >= static_cast<int>(line.size()) || line[level] != ' ') return {0, {}};
  auto title = trim(line.substr(level + 1));
  if (title.starts_with('`')) {
    const auto end = title.find('`', 1);
    title = title.substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1);
  }
  return {level, title.substr(0, title.find_first_of(" :"))};
}

}  // namespace

std::optional<std::string> find_section(std::string_view document, std::string_view id) {
  std::string section;
  int section_level = 0;
  for (const auto line : lines(document)) {
    const auto [level, title] = heading(line);
    if (section_level > 0 && level > 0 && level <= section_level) break;
    if (section_level == 0 && level > 0 && title == id) section_level = level;
    if (section_level > 0) section += std::string(line) + "\n";
  }
  if (section_level == 0) return std::nullopt;
  return section;
}

std::optional<std::string> explain_text(std::string_view id) {
  return find_section(checks_document(), id);
}

std::vector<std::string> documented_ids(std::string_view document) {
  std::vector<std::string> ids;
  for (const auto line : lines(document)) {
    const auto [level, title] = heading(line);
    if (level >= 2 && !title.empty()) ids.emplace_back(title);
  }
  return ids;
}

std::optional<std::string> suggest_explain_id(std::string_view id) {
  auto candidates = documented_ids(checks_document());
  for (const auto& signature : symptom::signatures()) candidates.push_back(signature.id);
  for (const auto& family : symptom::families()) candidates.push_back(family.id);
  return closest_match(id, candidates, 4);
}

}  // namespace rocm_doctor

// Reads checks/data/error_families.json into Families, and expands the pattern
// macros both data files may use ({hex}, {n}, {path}, {sp}).
#include <array>
#include <utility>

#include "embedded_data.h"
#include "symptom/data_fields.h"

namespace rocm_doctor::symptom {

namespace {

using Json = nlohmann::json;

// One family; nlohmann's exceptions become the error of the caller.
Family read_family(const Json& entry) {
  Family family;
  family.id = entry.at("id").get<std::string>();
  family.name = entry.at("name").get<std::string>();
  family.pattern = entry.at("pattern").get<std::string>();
  family.component = entry.at("component").get<std::string>();
  family.meaning = entry.at("meaning").get<std::string>();
  family.causes = data::causes(entry);
  family.logging = data::strings(entry, "logging");
  family.next_step = data::text(entry, "next_step");
  family.sources = data::strings(entry, "sources");
  family.general = entry.value("general", false);
  family.except = entry.value("except", std::string());
  return family;
}

// What each macro stands for. Numbers and addresses differ in every report,
// so patterns name their shape, never their value.
constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kMacros = {{
    {"{hex}", "(?:0x)?[0-9a-f]+"},
    {"{n}", "[0-9]+"},
    {"{path}", "[^\\s:'\"]+"},
    {"{sp}", "[ \\t]+"},
}};

}  // namespace

std::string expand_pattern(std::string_view pattern) {
  std::string out;
  out.reserve(pattern.size());
  for (std::size_t i = 0; i < pattern.size();) {
    bool expanded = false;
    if (pattern[i] == '{' && (i == 0 || pattern[i - 1] != '\\')) {
      for (const auto& [name, regex] : kMacros) {
        if (pattern.substr(i, name.size()) == name) {
          out += regex;
          i += name.size();
          expanded = true;
          break;
        }
      }
    }
    if (!expanded) out += pattern[i++];
  }
  return out;
}

tl::expected<std::vector<Family>, std::string> parse_families(std::string_view json_text) {
  return data::entries<Family>(json_text, "families", "error family", read_family);
}

const std::vector<Family>& families() {
  static const std::vector<Family> catalogue = [] {
    auto parsed = parse_families(embedded::data_error_families());
    return parsed ? std::move(*parsed) : std::vector<Family>{};
  }();
  return catalogue;
}

int families_round() {
  static const int round = [] {
    const auto document = Json::parse(embedded::data_error_families(), nullptr, false);
    return document.is_object() ? document.value("round", 0) : 0;
  }();
  return round;
}

const Family* find_family(std::string_view id) {
  for (const auto& family : families()) {
    if (family.id == id) return &family;
  }
  return nullptr;
}

}  // namespace rocm_doctor::symptom

// Reads checks/data/error_families.json into Families through its typed loader, and
// expands the pattern macros both data files may use ({hex}, {n}, {path}, {sp}, {frame}).
#include <re2/re2.h>

#include <array>
#include <string>
#include <utility>

#include "rocm_doctor/data_table.h"
#include "symptom/data_fields.h"
#include "symptom/prefilter.h"

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
  family.terms = entry.value("terms", std::string());
  family.form_terms = entry.value("form_terms", std::string());
  return family;
}

constexpr std::string_view kErrorFamiliesFile = "error_families.json";

struct FamiliesTable {
  int round = 0;  // families_round()
  std::vector<Family> families;
};

// The forms of line that belong to no family ("no_family": a probe's "... either" after a
// firmware it did not need, an INFO line of NCCL's): each family's `except` gains them, so
// neither a family's pattern nor a vote for it (words.cpp) takes such a line.
tl::expected<std::string, std::string> read_no_family(data_table::TableReader& reader) {
  const auto& list = reader.optional("no_family");
  if (list.is_null()) return std::string();
  if (!list.is_array()) return tl::unexpected(reader.error("no_family", "must be a list of {pattern, why}"));
  std::string joined;
  std::size_t index = 0;
  for (const auto& entry : list) {
    if (!entry.is_object() || !entry.contains("pattern") || !entry.at("pattern").is_string() ||
        !entry.contains("why") || !entry.at("why").is_string()) {
      return tl::unexpected(reader.error("no_family", "each entry needs a text pattern and why"));
    }
    const auto pattern = entry.at("pattern").get<std::string>();
    if (const RE2 compiled(expand_pattern(pattern), pattern_options()); !compiled.ok()) {
      return tl::unexpected(reader.error("no_family", "entry " + std::to_string(index) + ": " + compiled.error()));
    }
    joined += (joined.empty() ? "(?:" : "|(?:") + pattern + ")";
    ++index;
  }
  return joined;
}

void add_to_excepts(const std::string& no_family, std::vector<Family>& families) {
  if (no_family.empty()) return;
  for (auto& family : families) {
    family.except = family.except.empty() ? no_family : "(?:" + family.except + ")|" + no_family;
  }
}

// Errors: "error_families.json: families: error family N: what is wrong".
tl::expected<FamiliesTable, std::string> read_error_families_table(data_table::TableReader& reader) {
  FamiliesTable table;
  if (const auto& round = reader.optional("round"); !round.is_null()) {
    if (!round.is_number_integer()) return tl::unexpected(reader.error("round", "must be a whole number"));
    table.round = round.get<int>();
  }
  auto families = data::entries<Family>(reader, "families", "error family", read_family);
  if (!families) return tl::unexpected(families.error());
  auto no_family = read_no_family(reader);
  if (!no_family) return tl::unexpected(no_family.error());
  table.families = std::move(*families);
  add_to_excepts(*no_family, table.families);
  return table;
}

[[maybe_unused]] const bool kErrorFamiliesLoaderRegistered =
    data_table::register_table_loader<FamiliesTable, &read_error_families_table>(kErrorFamiliesFile);

// Parsed once per table text (overlays included); nullptr when the table is broken (the
// tests hold the built-in one valid).
const FamiliesTable* families_table() {
  const auto& loaded = data_table::load<FamiliesTable, &read_error_families_table>(kErrorFamiliesFile);
  return loaded ? &*loaded : nullptr;
}

// What each macro stands for. Numbers and addresses differ in every report,
// so patterns name their shape, never their value.
// {frame} follows a library's name in a crash's stack frame, in the three forms
// reports carry: glibc's backtrace "libX.so.1(+0x1a2b)" or "libX.so(sym+0x1a)",
// a Windows stack "X.dll + 0x1a2b", and Windows Error Reporting's
// "X.dll(0x7ff8...) + 0x1a2b byte(s)".
constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kMacros = {{
    {"{hex}", "(?:0x)?[0-9a-f]+"},
    {"{n}", "[0-9]+"},
    {"{path}", "[^\\s:'\"]+"},
    {"{sp}", "[ \\t]+"},
    {"{frame}",
     "(?:\\.so[\\w.]*\\([\\w$.]*\\+0x[0-9a-f]+\\)"       // glibc's backtrace
     "|\\.dll\\s*\\+\\s*0x[0-9a-f]+"                     // a Windows stack
     "|\\.dll\\(0x[0-9a-f]+\\) \\+ 0x[0-9a-f]+ byte)"},  // Windows Error Reporting
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
  return data_table::read_text<FamiliesTable, &read_error_families_table>(kErrorFamiliesFile, json_text)
      .map([](FamiliesTable&& table) { return std::move(table.families); });
}

// A broken table knows no family, as before the loader.
const std::vector<Family>& families() {
  static const std::vector<Family> kNoFamilies;
  const auto* table = families_table();
  return table != nullptr ? table->families : kNoFamilies;
}

int families_round() {
  const auto* table = families_table();
  return table != nullptr ? table->round : 0;
}

const Family* find_family(std::string_view id) {
  for (const auto& family : families()) {
    if (family.id == id) return &family;
  }
  return nullptr;
}

}  // namespace rocm_doctor::symptom

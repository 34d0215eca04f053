// The knowledge tables' typed loaders (include/rocm_doctor/data_table.h): every top-level key
// of every table is read, and a loader's errors name the file and the key.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "rocm_doctor/data_table.h"
#include "rocm_doctor/knowledge.h"

namespace rocm_doctor {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Every .cpp and .h of the engine and the checks, as one text (for the tables no loader reads yet).
const std::string& engine_source_text() {
  static const std::string text = [] {
    std::string all;
    const fs::path source(ROCM_DOCTOR_SOURCE_DIR);
    for (const auto* folder : {"checks", "src", "include"}) {
      for (const auto& entry : fs::recursive_directory_iterator(source / folder)) {
        const auto extension = entry.path().extension();
        if (!entry.is_regular_file() || (extension != ".cpp" && extension != ".h")) continue;
        std::ifstream stream(entry.path());
        std::ostringstream buffer;
        buffer << stream.rdbuf();
        all += buffer.str();
      }
    }
    return all;
  }();
  return text;
}

// Loads every table through its loaders, then: a table with a loader must have each of its
// top-level keys read by one; a table without one yet (still parsed by its reader's own code)
// must have each key named as a string literal in checks/, src/ or include/. Keys starting
// with '_' (_sources, _notes, ...) are documentation.
TEST(DataTables, EveryTopLevelKeyIsRead) {
  for (const auto& [file, probe] : data_table::registered_loaders()) {
    const auto loaded = probe();
    EXPECT_TRUE(loaded.has_value()) << loaded.error();
  }
  const auto& loaders = data_table::registered_loaders();
  std::size_t keys = 0;
  for (const auto& name : knowledge::table_names()) {
    const auto table = json::parse(knowledge::table_text(name));
    ASSERT_TRUE(table.is_object()) << name;
    const bool has_loader = loaders.contains(name);
    const auto read = data_table::keys_read(name);
    for (const auto& [key, value] : table.items()) {
      if (key.starts_with('_')) continue;
      ++keys;
      if (has_loader) {
        EXPECT_TRUE(read.contains(key)) << "checks/data/" << name << ": top-level key \"" << key
                                        << "\" is read by no loader: read it where the same facts are "
                                           "hard-coded, or remove it (or name it _"
                                        << key << " if it documents)";
      } else {
        EXPECT_NE(engine_source_text().find('"' + key + '"'), std::string::npos)
            << "checks/data/" << name << ": top-level key \"" << key << "\" is named nowhere in checks/, src/ or "
            << "include/: read it, or remove it (or name it _" << key << " if it documents)";
      }
    }
  }
  EXPECT_GT(keys, 100U) << "the key scan found too little: are the tables registered?";
  EXPECT_GE(loaders.size(), 4U);
}

TEST(DataTables, EveryLoaderNamesATable) {
  const auto names = knowledge::table_names();
  for (const auto& [file, probe] : data_table::registered_loaders()) {
    EXPECT_NE(std::find(names.begin(), names.end(), file), names.end()) << file << " is no knowledge table";
  }
}

TEST(DataTables, ReaderErrorsNameTheFileAndTheKey) {
  const auto table = json::parse(R"({"hosts": ["a", 3], "name": null, "count": "x", "title": 4})");
  data_table::TableReader reader("example.json", table);
  EXPECT_EQ(reader.strings("missing").error(), "example.json: missing: missing");
  EXPECT_EQ(reader.strings("hosts").error(), "example.json: hosts: row 1: must be a string, is number");
  EXPECT_EQ(reader.number("count").error(), "example.json: count: must be a number, is string");
  EXPECT_EQ(reader.text("name").error(), "example.json: name: must be a string, is null");
  EXPECT_EQ(reader.text("title").error(), "example.json: title: must be a string, is number");
}

// Optional fields are often null in the tables: they read as the fallback, never throw.
TEST(DataTables, NullOrMissingOptionalFieldsReadAsTheirFallback) {
  const auto table = json::parse(R"({"note": null, "rows": [{"name": "a", "why": null}, 7]})");
  data_table::TableReader reader("example.json", table);
  EXPECT_EQ(reader.text_or("note", "none").value(), "none");
  EXPECT_EQ(reader.text_or("absent", "none").value(), "none");
  EXPECT_TRUE(reader.optional("absent").is_null());
  const auto& rows = reader.optional("rows");
  EXPECT_EQ(data_table::text_field(rows[0], "name"), "a");
  EXPECT_EQ(data_table::text_field(rows[0], "why"), "");
  EXPECT_EQ(data_table::text_field(rows[0], "instead"), "");
  EXPECT_EQ(data_table::text_field(rows[1], "name"), "");
}

TEST(DataTables, EveryKeyAskedForIsRecordedPresentOrNot) {
  const auto table = json::parse(R"({"present": 1})");
  data_table::TableReader reader("recorded-keys.json", table);
  (void)reader.number("present");
  (void)reader.optional("absent");
  EXPECT_EQ(data_table::keys_read("recorded-keys.json"), (std::set<std::string>{"absent", "present"}));
}

}  // namespace
}  // namespace rocm_doctor

// The knowledge tables' typed loaders (include/rocm_doctor/data_table.h): every top-level key
// of every table is read, and a loader's errors name the file and the key.
#include <gtest/gtest.h>

#include <algorithm>

#include "rocm_doctor/data_table.h"
#include "rocm_doctor/knowledge.h"

namespace rocm_doctor {
namespace {

using nlohmann::json;

// Loads every table through its loaders, then: every table has a loader, and each of its
// top-level keys is read by one. Keys starting with '_' (_sources, _notes, ...) are documentation.
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
    EXPECT_TRUE(loaders.contains(name)) << "checks/data/" << name
                                        << " has no typed loader: read it through "
                                           "data_table::load (include/rocm_doctor/data_table.h)";
    const auto read = data_table::keys_read(name);
    for (const auto& [key, value] : table.items()) {
      if (key.starts_with('_')) continue;
      ++keys;
      EXPECT_TRUE(read.contains(key)) << "checks/data/" << name << ": top-level key \"" << key
                                      << "\" is read by no loader: read it where the same facts are "
                                         "hard-coded, or remove it (or name it _"
                                      << key << " if it documents)";
    }
  }
  EXPECT_GT(keys, 100U) << "the key scan found too little: are the tables registered?";
  EXPECT_GE(loaders.size(), knowledge::table_names().size());
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

// The checks' shared half of a typed table loader (rocm_doctor/data_table.h): the constant
// that registers a table's loader and hands out the loaded table, and the readers of
// top-level keys whose errors name the file and the key, so each loader is its read
// function alone.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

#include "rocm_doctor/data_table.h"

namespace rocm_doctor::check_tables {

// One table's loader, as a namespace-scope constant of the loader's file:
// `const check_tables::TableLoader<Data, &x_table_from> kXTable("x.json");`, where
// x_table_from(reader) reads the table and throws on a broken key (read_key, value_of): the
// exception becomes the load's error value (data_table::read_catching). Constructing it
// registers the loader for the key test; get() is the table, parsed once per text.
// `file` must outlive the program (a string literal).
template <typename T, T (*From)(data_table::TableReader&)>
class TableLoader {
 public:
  explicit TableLoader(std::string_view file)
      : file_(file), registered_(data_table::register_table_loader<T, &TableLoader::read>(file)) {}

  // The table or its error ("FILE: KEY: what"), for callers with an error path of their own.
  [[nodiscard]] const data_table::LoadResult<T>& load() const { return data_table::load<T, &TableLoader::read>(file_); }
  // The table; throws std::runtime_error with the error (a check that throws is reported failed).
  [[nodiscard]] const T& get() const { return data_table::require(load()); }

 private:
  static data_table::LoadResult<T> read(data_table::TableReader& reader) {
    return data_table::read_catching(reader, From);
  }

  std::string_view file_;
  [[maybe_unused]] bool registered_;  // the key test runs the loader
};

// `read(value)` on the value at the top-level `key`; a missing key, or anything `read`
// throws (a mistyped or missing field of a row), throws std::invalid_argument "FILE: KEY: what".
// For loaders run through data_table::read_catching.
template <typename F>
auto read_key(data_table::TableReader& reader, std::string_view key, F&& read) {
  auto value = reader.at(key);
  if (!value) throw std::invalid_argument(value.error());
  try {
    return read(value->get());
  } catch (const std::exception& error) {
    throw std::invalid_argument(reader.error(key, error.what()));
  }
}

// The value at the top-level `key` as T; throws "FILE: KEY: what" when it is missing or of
// another type.
template <typename T>
T value_of(data_table::TableReader& reader, std::string_view key) {
  return read_key(reader, key, [](const nlohmann::json& value) { return value.get<T>(); });
}

}  // namespace rocm_doctor::check_tables

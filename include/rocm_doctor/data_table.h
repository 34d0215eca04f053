// One typed loader per knowledge table (checks/data/*.json): the table's text (built in, or
// merged with the site overlays, knowledge.h) is parsed once into the loader's struct, its
// errors name the file and the key, and every top-level key a loader reads is recorded, so
// the test DataTables.EveryTopLevelKeyIsRead names a key nothing reads (docs/adding-a-check.md).
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <vector>

namespace rocm_doctor::data_table {

// Reads the top-level keys of one table, recording each key it is asked for (present or
// not). Every error is "FILE: KEY: what is wrong".
class TableReader {
 public:
  TableReader(std::string_view file, const nlohmann::json& root);

  [[nodiscard]] const std::string& file() const { return file_; }
  // "FILE: KEY: what" for an error a loader finds in a key's value.
  [[nodiscard]] std::string error(std::string_view key, std::string_view what) const;

  // The value at `key`; an error when the key is missing.
  tl::expected<std::reference_wrapper<const nlohmann::json>, std::string> at(std::string_view key);
  // The value at `key`, or JSON null when the table leaves the key out (an optional key).
  const nlohmann::json& optional(std::string_view key);
  // A required string, list of strings, or number.
  tl::expected<std::string, std::string> text(std::string_view key);
  tl::expected<std::vector<std::string>, std::string> strings(std::string_view key);
  tl::expected<double, std::string> number(std::string_view key);
  // An optional string: missing or null gives `fallback`; any other non-string is an error.
  tl::expected<std::string, std::string> text_or(std::string_view key, std::string_view fallback);

 private:
  std::string file_;
  const nlohmann::json& root_;
};

// A row's string field: "" when the row is no object, or the field is missing, null or no
// string (optional fields are often null in the tables).
std::string text_field(const nlohmann::json& row, std::string_view field);

// The top-level keys any loader has read of `file` so far ("env_variables.json").
std::set<std::string> keys_read(std::string_view file);
// Notes one key as read (TableReader does; a loader that walks the object itself may too).
void note_key_read(std::string_view file, std::string_view key);

// A loader run for the key test: loads its table and answers its error, if any.
using LoaderProbe = std::function<tl::expected<void, std::string>()>;
// Registers a table's loader (a static bool in the loader's file), so the key test loads
// every table through its loader.
bool register_loader(std::string_view file, LoaderProbe probe);
// Every registered loader, by table file name (a table may have more than one).
const std::multimap<std::string, LoaderProbe>& registered_loaders();

// One table's text parsed (a JSON object); an error names the file.
tl::expected<nlohmann::json, std::string> parse_table_text(std::string_view file, std::string_view text);

template <typename T>
using LoadResult = tl::expected<T, std::string>;

namespace detail {
std::string_view current_text(std::string_view file);
}  // namespace detail

// The table `file` read by `Read` (LoadResult<T>(TableReader&)), parsed once per table text:
// the built-in text, then once more if overlays are installed. References stay valid for the
// whole run (an earlier result is kept, never replaced). Thread-safe.
template <typename T, LoadResult<T> (*Read)(TableReader&)>
const LoadResult<T>& load(std::string_view file) {
  static std::mutex mutex;
  static std::map<const char*, LoadResult<T>> by_text;  // keyed by the text's address: never replaced
  const auto text = detail::current_text(file);
  const std::lock_guard lock(mutex);
  if (const auto it = by_text.find(text.data()); it != by_text.end()) return it->second;
  auto parsed = parse_table_text(file, text);
  if (!parsed) return by_text.emplace(text.data(), tl::unexpected(parsed.error())).first->second;
  TableReader reader(file, *parsed);
  return by_text.emplace(text.data(), Read(reader)).first->second;
}

// `read(reader)` (a loader that lets nlohmann::json's get<>() throw on a mistyped row), its
// exception made the error value, naming the file once.
template <typename F>
auto read_catching(TableReader& reader, F&& read) -> LoadResult<decltype(read(reader))> {
  try {
    return read(reader);
  } catch (const std::exception& error) {
    const std::string what = error.what();  // the reader's own errors name the file already
    return tl::unexpected(what.starts_with(reader.file()) ? what : reader.file() + ": " + what);
  }
}

// The JSON `text` read by `Read` as table `file`, not cached: for the parse_*(text) functions
// tests feed hand-written tables through (the loader's own errors, as values).
template <typename T, LoadResult<T> (*Read)(TableReader&)>
LoadResult<T> read_text(std::string_view file, std::string_view text) {
  auto parsed = parse_table_text(file, text);
  if (!parsed) return tl::unexpected(parsed.error());
  TableReader reader(file, *parsed);
  return Read(reader);
}

// read_text's result, or throws std::invalid_argument with the error.
template <typename T, LoadResult<T> (*Read)(TableReader&)>
T read_text_or_throw(std::string_view file, std::string_view text) {
  auto result = read_text<T, Read>(file, text);
  if (!result) throw std::invalid_argument(result.error());
  return std::move(*result);
}

// Registers the loader load<T, Read>(file) for the key test (a static bool in the loader's
// file: `const bool kXLoaderRegistered = register_table_loader<X, &read_x>(kXFile);`).
// `file` must outlive the program (a string literal).
template <typename T, LoadResult<T> (*Read)(TableReader&)>
bool register_table_loader(std::string_view file) {
  return register_loader(file, [file]() -> tl::expected<void, std::string> {
    const auto& loaded = load<T, Read>(file);
    if (!loaded) return tl::unexpected(loaded.error());
    return {};
  });
}

// The loaded value, or throws std::runtime_error with the error (the runner reports a check
// that throws as failed, naming the error): for readers deep in a pure parser that have no
// error path of their own. The built-in tables are all loaded by the tests, and overlays are
// checked against the table's schema when installed.
template <typename T>
const T& require(const LoadResult<T>& result) {
  if (!result) throw std::runtime_error(result.error());
  return *result;
}

}  // namespace rocm_doctor::data_table

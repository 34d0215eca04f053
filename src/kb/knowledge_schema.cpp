// check_schema (rocm_doctor/knowledge.h): an overlay file must have the shape of the
// built-in table it adds to. The built-in table is the schema: its top-level keys and
// their JSON types, and for arrays of rows, the fields the rows carry and their types.
#include <map>
#include <set>

#include "rocm_doctor/knowledge.h"

namespace rocm_doctor::knowledge {

namespace {

using nlohmann::json;

// "string", "number", "boolean", "array", "object", "null": numbers of any kind are one type.
std::string kind(const json& value) {
  if (value.is_number()) return "number";
  if (value.is_boolean()) return "boolean";
  return value.type_name();
}

// The fields the built-in rows of an array carry, with their types (first seen wins).
std::map<std::string, std::string> row_fields(const json& rows) {
  std::map<std::string, std::string> fields;
  for (const auto& row : rows) {
    if (!row.is_object()) continue;
    for (const auto& [name, value] : row.items()) {
      if (!value.is_null()) fields.emplace(name, kind(value));
    }
  }
  return fields;
}

// Fields every built-in row has: an overlay row must have them too (its key among them).
std::set<std::string> required_fields(const json& rows) {
  std::set<std::string> required;
  bool first = true;
  for (const auto& row : rows) {
    if (!row.is_object()) continue;
    std::set<std::string> own;
    for (const auto& [name, value] : row.items()) own.insert(name);
    if (first) {
      required = own;
      first = false;
      continue;
    }
    std::set<std::string> both;
    for (const auto& name : required) {
      if (own.contains(name)) both.insert(name);
    }
    required = std::move(both);
  }
  // Of those, a row must carry its identifying field and its sources; the rest is optional.
  static const std::set<std::string> kIdentity = {"release", "gfx",  "device", "torch",   "rocm",     "kmd",
                                                  "amdgpu",  "name", "id",     "pattern", "variable", "sources"};
  std::set<std::string> result;
  for (const auto& name : required) {
    if (kIdentity.contains(name)) result.insert(name);
  }
  return result;
}

tl::expected<void, std::string> check_rows(const std::string& where, const json& builtin_rows,
                                           const json& overlay_rows) {
  const bool rows_are_objects = !builtin_rows.empty() && builtin_rows.front().is_object();
  const auto fields = row_fields(builtin_rows);
  const auto required = required_fields(builtin_rows);
  const std::string element_kind = builtin_rows.empty() ? "" : kind(builtin_rows.front());
  for (std::size_t i = 0; i < overlay_rows.size(); ++i) {
    const auto& row = overlay_rows[i];
    const auto at = where + "[" + std::to_string(i) + "]";
    if (!element_kind.empty() && kind(row) != element_kind) {
      return tl::unexpected(at + ": is " + kind(row) + ", the table's rows are " + element_kind);
    }
    if (!rows_are_objects) continue;
    for (const auto& name : required) {
      if (!row.contains(name)) return tl::unexpected(at + "." + name + ": missing (every row has it)");
    }
    for (const auto& [name, value] : row.items()) {
      const auto expected = fields.find(name);
      if (expected == fields.end() || value.is_null()) continue;  // a new field: allowed, ignored by old readers
      if (kind(value) != expected->second) {
        return tl::unexpected(at + "." + name + ": is " + kind(value) + ", must be " + expected->second);
      }
      if (value.is_array() && name == "sources" && value.empty()) {
        return tl::unexpected(at + ".sources: empty (name where the fact comes from)");
      }
    }
  }
  return {};
}

tl::expected<void, std::string> check_object(const std::string& where, const json& builtin, const json& overlay) {
  for (const auto& [key, value] : overlay.items()) {
    const auto path = where.empty() ? key : where + "." + key;
    if (!builtin.contains(key)) {
      if (where.empty() && !key.starts_with('_')) {
        return tl::unexpected(path + ": unknown field (the table has " + [&] {
          std::string names;
          for (const auto& [name, unused] : builtin.items()) {
            if (!name.starts_with('_')) names += (names.empty() ? "" : ", ") + name;
          }
          return names;
        }() + ")");
      }
      continue;  // new keys inside maps (a new distribution, a new vendor id) are additions
    }
    const auto& base = builtin[key];
    if (kind(value) != kind(base) && !base.is_null()) {
      return tl::unexpected(path + ": is " + kind(value) + ", must be " + kind(base));
    }
    if (value.is_array()) {
      if (auto valid = check_rows(path, base, value); !valid) return valid;
    } else if (value.is_object()) {
      if (auto valid = check_object(path, base, value); !valid) return valid;
    }
  }
  return {};
}

}  // namespace

tl::expected<void, std::string> check_schema(const std::string& path, std::string_view table_file, const json& builtin,
                                             const json& overlay) {
  const auto fail = [&](const std::string& message) {
    return tl::unexpected(path + " (" + std::string(table_file) + "): " + message);
  };
  if (!overlay.is_object()) return fail("not a JSON object");
  const auto sources = overlay.find("_sources");
  if (sources == overlay.end() || !sources->is_array() || sources->empty()) {
    return fail("_sources: missing or empty (every fact names its source)");
  }
  for (const auto& source : *sources) {
    if (!source.is_string() || source.get<std::string>().empty()) return fail("_sources: every entry is a text");
  }
  if (overlay.contains("_replace") && !overlay["_replace"].is_boolean()) return fail("_replace: must be true or false");
  if (overlay.contains("_as_of") && !overlay["_as_of"].is_object()) return fail("_as_of: must be an object");
  json shape = builtin;
  shape.erase("_sources");
  json body = overlay;
  for (const char* meta : {"_sources", "_table", "_replace", "_notes", "_as_of"}) body.erase(meta);
  if (auto valid = check_object("", shape, body); !valid) return fail(valid.error());
  return {};
}

}  // namespace rocm_doctor::knowledge

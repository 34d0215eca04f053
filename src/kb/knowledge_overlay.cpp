// The knowledge tables and their overlays (rocm_doctor/knowledge.h): the registry the
// embedded checks/data tables register with, the row-wise merge, and install().
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "rocm_doctor/host.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/knowledge.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::knowledge {

namespace {

using nlohmann::json;

constexpr std::size_t kMaxOverlayBytes = 8 * 1024 * 1024;

struct Registry {
  std::map<std::string, std::string_view, std::less<>> builtin;
  std::map<std::string, std::string, std::less<>> merged;  // filled once by install()
  // What install() was given and answered: readers keep views of the merged texts (the
  // parsed knowledge base, the checks' caches), so they are never replaced once handed out.
  std::optional<std::vector<std::pair<std::string, std::string>>> installed;
  std::vector<TableOrigin> origins;
};

Registry& registry() {
  static Registry instance;
  return instance;
}

// The fields that identify a row, tried in this order; the first every row of both arrays has wins.
const std::vector<std::vector<std::string>>& row_keys() {
  static const std::vector<std::vector<std::string>> keys = {{"release"}, {"gfx"},     {"device", "revision"},
                                                             {"device"},  {"torch"},   {"rocm"},
                                                             {"kmd"},     {"amdgpu"},  {"name"},
                                                             {"id"},      {"pattern"}, {"variable"}};
  return keys;
}

bool has_fields(const json& row, const std::vector<std::string>& fields, bool all) {
  if (!row.is_object()) return false;
  if (!all) return row.contains(fields.front());
  return std::all_of(fields.begin(), fields.end(), [&](const auto& field) { return row.contains(field); });
}

std::string key_of(const json& row, const std::vector<std::string>& fields) {
  std::string key;
  for (const auto& field : fields) key += (row.contains(field) ? row[field].dump() : std::string("null")) + "|";
  return key;
}

// The key fields of an array of rows: the first candidate whose leading field every row has.
std::optional<std::vector<std::string>> key_fields(const json& a, const json& b) {
  for (const auto& fields : row_keys()) {
    const auto every = [&](const json& rows) {
      return std::all_of(rows.begin(), rows.end(), [&](const json& row) { return has_fields(row, fields, false); });
    };
    if (every(a) && every(b)) return fields;
  }
  return std::nullopt;
}

bool all_objects(const json& rows) {
  return std::all_of(rows.begin(), rows.end(), [](const json& row) { return row.is_object(); });
}

// Rows keyed by a version ("release", "torch") stay oldest first, as the loaders expect.
void sort_by_version(json& rows, const std::string& field) {
  if (field != "release" && field != "torch" && field != "rocm") return;
  std::stable_sort(rows.begin(), rows.end(), [&](const json& a, const json& b) {
    return kb::version_less(a.value(field, std::string()), b.value(field, std::string()));
  });
}

json merge_arrays(const json& base, const json& overlay) {
  if (!overlay.empty() && all_objects(overlay) && all_objects(base)) {
    const auto fields = key_fields(base, overlay);
    if (!fields) {  // rows without a key: the overlay's rows are added
      json result = base;
      for (const auto& row : overlay) result.push_back(row);
      return result;
    }
    json result = base;
    for (const auto& row : overlay) {
      const auto key = key_of(row, *fields);
      const auto same = std::find_if(result.begin(), result.end(),
                                     [&](const json& existing) { return key_of(existing, *fields) == key; });
      if (same != result.end()) {
        *same = row;
      } else {
        result.push_back(row);
      }
    }
    sort_by_version(result, fields->front());
    return result;
  }
  json result = base;  // strings, numbers: a union in the base's order, new ones appended
  for (const auto& item : overlay) {
    if (std::find(result.begin(), result.end(), item) == result.end()) result.push_back(item);
  }
  return result;
}

std::string table_of(const OverlayFile& file, const json& parsed) {
  if (parsed.contains("_table") && parsed["_table"].is_string()) return parsed["_table"].get<std::string>();
  const auto slash = file.path.rfind('/');
  return slash == std::string::npos ? file.path : file.path.substr(slash + 1);
}

std::string_view current_text(const Registry& registry, std::string_view file) {
  if (const auto merged = registry.merged.find(file); merged != registry.merged.end()) return merged->second;
  const auto builtin = registry.builtin.find(file);
  return builtin == registry.builtin.end() ? std::string_view() : builtin->second;
}

// The four tables the knowledge base cross-checks must still parse together.
tl::expected<void, std::string> check_knowledge_base(const std::map<std::string, std::string, std::less<>>& merged,
                                                     const std::map<std::string, std::vector<std::string>>& touched) {
  const auto text = [&](std::string_view file) -> std::string_view {
    if (const auto it = merged.find(file); it != merged.end()) return it->second;
    return current_text(registry(), file);
  };
  try {
    (void)kb::parse_knowledge_base(kb::TableTexts{text("gfx_targets.json"), text("pci_ids.json"),
                                                  text("rocm_releases.json"), text("rocm_libraries.json")});
  } catch (const std::exception& error) {
    std::vector<std::string> files;
    for (const auto& [table, paths] : touched) files.insert(files.end(), paths.begin(), paths.end());
    return tl::unexpected(join(files, ", ") + ": " + error.what());
  }
  return {};
}

}  // namespace

bool register_builtin(std::string_view file, std::string_view text) {
  registry().builtin.emplace(std::string(file), text);
  return true;
}

std::string_view table(std::string_view file, std::string_view builtin) {
  const auto& merged = registry().merged;
  if (const auto it = merged.find(file); it != merged.end()) return it->second;
  return builtin;
}

std::string_view table_text(std::string_view file) {
  return current_text(registry(), file);
}

std::vector<std::string> table_names() {
  std::vector<std::string> names;
  for (const auto& [name, text] : registry().builtin) names.push_back(name);
  return names;
}

json merge(const json& base, const json& overlay) {
  if (!base.is_object() || !overlay.is_object()) return overlay;
  if (overlay.value("_replace", false)) {
    json result = overlay;
    result.erase("_replace");
    result.erase("_table");
    return result;
  }
  json result = base;
  for (const auto& [key, value] : overlay.items()) {
    if (key == "_table" || key == "_replace") continue;
    if (!result.contains(key)) {
      result[key] = value;
    } else if (result[key].is_array() && value.is_array()) {
      result[key] = merge_arrays(result[key], value);
    } else if (result[key].is_object() && value.is_object()) {
      result[key] = merge(result[key], value);
    } else {
      result[key] = value;
    }
  }
  return result;
}

tl::expected<std::vector<TableOrigin>, std::string> install(const std::vector<OverlayFile>& files) {
  auto& registry = knowledge::registry();
  std::vector<std::pair<std::string, std::string>> given;
  for (const auto& file : files) given.emplace_back(file.path, file.text);
  if (registry.installed) {  // a second diagnosis in one process (fix: before and after)
    if (*registry.installed == given) return registry.origins;
    return tl::unexpected(std::string("the knowledge overlays changed while rocm-doctor ran; run it again"));
  }
  std::map<std::string, json> merged;
  std::map<std::string, std::vector<std::string>> touched;
  for (const auto& file : files) {
    const auto parsed = json::parse(file.text, nullptr, false);
    if (parsed.is_discarded()) return tl::unexpected(file.path + ": not valid JSON");
    if (!parsed.is_object()) return tl::unexpected(file.path + ": not a JSON object");
    const auto name = table_of(file, parsed);
    const auto builtin = registry.builtin.find(name);
    if (builtin == registry.builtin.end()) {
      return tl::unexpected(file.path + ": _table: '" + name +
                            "' is no knowledge table (name the file after one, or set \"_table\"; known: " +
                            join(table_names(), ", ") + ")");
    }
    const auto base_json = json::parse(builtin->second);
    if (auto valid = check_schema(file.path, name, base_json, parsed); !valid) return tl::unexpected(valid.error());
    const auto base = merged.contains(name) ? merged[name] : base_json;
    merged[name] = merge(base, parsed);
    touched[name].push_back(file.path);
  }
  std::map<std::string, std::string, std::less<>> texts;
  for (const auto& [name, value] : merged) texts[name] = value.dump(1);
  if (auto valid = check_knowledge_base(texts, touched); !valid) return tl::unexpected(valid.error());
  for (auto& [name, text] : texts) registry.merged[name] = std::move(text);

  std::vector<TableOrigin> origins;
  for (const auto& name : table_names()) {
    TableOrigin origin{name, {}};
    if (const auto it = touched.find(name); it != touched.end()) origin.overlays = it->second;
    origins.push_back(std::move(origin));
  }
  registry.installed = std::move(given);
  registry.origins = origins;
  return origins;
}

tl::expected<std::vector<OverlayFile>, std::string> read_overlays(const Host& host, const Host& local,
                                                                  const std::vector<std::string>& dirs) {
  std::vector<OverlayFile> files;
  const auto read_folder = [&](const Host& source, const std::string& folder,
                               bool required) -> tl::expected<void, std::string> {
    if (folder.ends_with(".json")) {  // a single file given with --knowledge
      auto text = source.read_file(folder, kMaxOverlayBytes);
      if (!text) return tl::unexpected(folder + ": " + text.error().message);
      files.push_back({folder, std::move(*text)});
      return {};
    }
    const auto entries = source.list_dir(folder);
    if (!entries) {
      if (!required && entries.error().kind == HostErrorKind::not_found) return {};
      return tl::unexpected(folder + ": cannot read the knowledge folder: " + entries.error().message);
    }
    for (const auto& entry : *entries) {
      if (!entry.name.ends_with(".json") || entry.type == EntryType::directory) continue;
      const auto path = folder + (folder.ends_with('/') ? "" : "/") + entry.name;
      auto text = source.read_file(path, kMaxOverlayBytes);
      if (!text) return tl::unexpected(path + ": " + text.error().message);
      files.push_back({path, std::move(*text)});
    }
    return {};
  };
  if (auto read = read_folder(host, std::string(kSystemDir), false); !read) return tl::unexpected(read.error());
  for (const auto& dir : dirs) {
    if (auto read = read_folder(local, dir, true); !read) return tl::unexpected(read.error());
  }
  return files;
}

}  // namespace rocm_doctor::knowledge

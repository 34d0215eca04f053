#include "host/snapshot_manifest.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

using Json = nlohmann::json;

struct ManifestError {
  std::string message;
};

[[noreturn]] void fail(std::string message) {
  throw ManifestError{std::move(message)};
}

std::uint32_t require_id(const Json& value, const std::string& where) {
  if (!value.is_number_unsigned() || value.get<std::uint64_t>() > std::numeric_limits<std::uint32_t>::max()) {
    fail(fmt::format("'{}' must be a non-negative 32-bit integer", where));
  }
  return value.get<std::uint32_t>();
}

const Json& require_object(const Json& parent, const char* key, const std::string& where) {
  const auto it = parent.find(key);
  if (it == parent.end()) fail(fmt::format("missing '{}{}'", where, key));
  if (!it->is_object()) fail(fmt::format("'{}{}' must be an object", where, key));
  return *it;
}

std::string optional_string(const Json& parent, const char* key) {
  const auto it = parent.find(key);
  if (it == parent.end()) return {};
  if (!it->is_string()) fail(fmt::format("'{}' must be a string", key));
  return it->get<std::string>();
}

Identity parse_identity(const Json& object) {
  Identity identity;
  if (object.contains("user")) {
    if (!object["user"].is_string()) fail("'identity.user' must be a string");
    identity.user = object["user"].get<std::string>();
  }
  if (!object.contains("uid")) fail("missing 'identity.uid'");
  identity.uid = require_id(object["uid"], "identity.uid");
  identity.gid = object.contains("gid") ? require_id(object["gid"], "identity.gid") : identity.uid;
  if (object.contains("groups")) {
    if (!object["groups"].is_array()) fail("'identity.groups' must be an array of gids");
    for (const auto& gid : object["groups"]) identity.groups.push_back(require_id(gid, "identity.groups[]"));
  }
  return identity;
}

EntryType parse_node_type(const Json& value, const std::string& where) {
  if (!value.is_string()) fail(fmt::format("'{}.type' must be a string", where));
  const auto text = value.get<std::string>();
  for (auto type : {EntryType::char_device, EntryType::block_device, EntryType::file, EntryType::directory,
                    EntryType::symlink, EntryType::other}) {
    if (text == to_string(type)) return type;
  }
  fail(fmt::format("'{}.type' is '{}': expected char, block, file or dir", where, text));
}

NodeInfo parse_node(const Json& object, const std::string& where) {
  if (!object.is_object()) fail(fmt::format("'{}' must be an object", where));
  NodeInfo node;
  node.type = object.contains("type") ? parse_node_type(object["type"], where) : EntryType::char_device;
  if (object.contains("mode")) {
    const auto& mode = object["mode"];
    const auto parsed = mode.is_string() ? parse_uint(mode.get<std::string>(), 8) : std::nullopt;
    if (!parsed || *parsed > 07777) fail(fmt::format("'{}.mode' must be an octal string such as \"0660\"", where));
    node.mode = static_cast<std::uint32_t>(*parsed);
  }
  if (object.contains("uid")) node.uid = require_id(object["uid"], where + ".uid");
  if (object.contains("gid")) node.gid = require_id(object["gid"], where + ".gid");
  if (object.contains("acl")) {
    if (!object["acl"].is_boolean()) fail(fmt::format("'{}.acl' must be true or false", where));
    node.has_acl = object["acl"].get<bool>();
  }
  if (object.contains("access")) {
    const auto& access = object["access"];
    const std::string text = access.is_string() ? access.get<std::string>() : "";
    if (text != "rw" && text != "r" && text != "w" && text != "none") {
      fail(fmt::format("'{}.access' must be \"rw\", \"r\", \"w\" or \"none\"", where));
    }
    node.access = text;
  }
  if (object.contains("access_error")) {
    const auto& error = object["access_error"];
    const std::string text = error.is_string() ? error.get<std::string>() : "";
    const bool errno_name =
        text.size() >= 2 && text.size() <= 16 && text[0] == 'E' &&
        std::all_of(text.begin(), text.end(), [](char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); });
    if (!errno_name) fail(fmt::format("'{}.access_error' must be an errno name such as \"EPERM\"", where));
    node.access_error = text;
  }
  return node;
}

// A `stat` entry stands for what a capture measured: a guessed owner (0 is
// root) would make replay judge ownership wrongly, so nothing defaults.
NodeInfo parse_stat_entry(const Json& object, const std::string& where) {
  if (!object.is_object()) fail(fmt::format("'{}' must be an object", where));
  for (const char* field : {"type", "mode", "uid", "gid"}) {
    if (!object.contains(field)) fail(fmt::format("missing '{}.{}'", where, field));
  }
  return parse_node(object, where);
}

SnapshotManifest parse_object(const Json& root) {
  if (!root.is_object()) fail("the top level must be a JSON object");
  if (optional_string(root, "format") != kSnapshotFormat) {
    fail(fmt::format("'format' must be \"{}\"", kSnapshotFormat));
  }
  if (!root.contains("version") || !root["version"].is_number_integer()) fail("missing or non-integer 'version'");
  if (root["version"].get<long long>() != kSnapshotVersion) {
    fail(fmt::format("unsupported 'version' {} (this rocm-doctor reads version {})", root["version"].get<long long>(),
                     kSnapshotVersion));
  }
  SnapshotManifest manifest;
  manifest.captured_at = optional_string(root, "captured_at");
  manifest.captured_by = optional_string(root, "captured_by");
  manifest.identity = parse_identity(require_object(root, "identity", ""));
  if (root.contains("env")) {
    for (const auto& [name, value] : require_object(root, "env", "").items()) {
      if (!value.is_string()) fail(fmt::format("'env.{}' must be a string", name));
      manifest.env[name] = value.get<std::string>();
    }
  }
  if (root.contains("nodes")) {
    for (const auto& [path, node] : require_object(root, "nodes", "").items()) {
      if (!path.starts_with("/dev/")) fail(fmt::format("'nodes' key '{}' is not a /dev path", path));
      manifest.nodes[path] = parse_node(node, "nodes." + path);
    }
  }
  if (root.contains("stat")) {
    for (const auto& [path, entry] : require_object(root, "stat", "").items()) {
      if (!path.starts_with('/')) fail(fmt::format("'stat' key '{}' is not an absolute path", path));
      if (path == "/dev" || path.starts_with("/dev/")) {
        fail(fmt::format("'stat' key '{}' is a /dev path: device nodes belong in 'nodes'", path));
      }
      manifest.stat[path] = parse_stat_entry(entry, "stat." + path);
    }
  }
  if (root.contains("unreadable")) {
    if (!root["unreadable"].is_array()) fail("'unreadable' must be an array of paths");
    for (const auto& path : root["unreadable"]) {
      if (!path.is_string()) fail("'unreadable' must be an array of paths");
      manifest.unreadable.insert(path.get<std::string>());
    }
  }
  if (root.contains("probes")) manifest.probes = require_object(root, "probes", "");
  return manifest;
}

}  // namespace

tl::expected<SnapshotManifest, std::string> parse_snapshot_manifest(std::string_view text) {
  try {
    return parse_object(Json::parse(text));
  } catch (const ManifestError& error) {
    return tl::unexpected(error.message);
  } catch (const Json::exception& error) {
    return tl::unexpected(std::string("not valid JSON: ") + error.what());
  }
}

namespace {

Json node_entries(const std::map<std::string, NodeInfo>& nodes) {
  Json entries = Json::object();
  for (const auto& [path, node] : nodes) {
    Json entry = {{"type", std::string(to_string(node.type))},
                  {"mode", fmt::format("{:04o}", node.mode)},
                  {"uid", node.uid},
                  {"gid", node.gid}};
    if (node.has_acl) entry["acl"] = true;
    if (node.access) entry["access"] = *node.access;
    if (node.access_error) entry["access_error"] = *node.access_error;
    entries[path] = entry;
  }
  return entries;
}

}  // namespace

nlohmann::json to_json(const SnapshotManifest& manifest) {
  Json result = {
      {"format", kSnapshotFormat},
      {"version", kSnapshotVersion},
      {"captured_at", manifest.captured_at},
      {"captured_by", manifest.captured_by},
      {"env", manifest.env},
      {"identity",
       {{"user", manifest.identity.user},
        {"uid", manifest.identity.uid},
        {"gid", manifest.identity.gid},
        {"groups", manifest.identity.groups}}},
      {"nodes", node_entries(manifest.nodes)},
      {"probes", manifest.probes},
  };
  if (!manifest.stat.empty()) result["stat"] = node_entries(manifest.stat);
  if (!manifest.unreadable.empty()) result["unreadable"] = manifest.unreadable;
  return result;
}

}  // namespace rocm_doctor

#include "fix/command_kinds.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>

#include "rocm_doctor/data_table.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

constexpr std::string_view kFixCommandsFile = "fix_commands.json";

// checks/data/fix_commands.json: each prefix (one or more words) with its kind, and the
// whole commands that reboot.
struct CommandTable {
  std::map<std::string, CommandKind> prefixes;
  std::vector<std::string> reboots;
};

// The list of strings at `field` of the object at top-level `key` ({"prefixes": [...]}).
tl::expected<std::vector<std::string>, std::string> command_list(data_table::TableReader& reader, std::string_view key,
                                                                 const char* field) {
  auto value = reader.at(key);
  if (!value) return tl::unexpected(value.error());
  const auto list = value->get().find(field);
  if (!value->get().is_object() || list == value->get().end() || !list->is_array())
    return tl::unexpected(reader.error(key, std::string("must be an object with a list '") + field + "'"));
  std::vector<std::string> result;
  for (const auto& entry : *list) {
    if (!entry.is_string()) return tl::unexpected(reader.error(key, std::string(field) + ": holds a non-string"));
    result.push_back(entry.get<std::string>());
  }
  return result;
}

tl::expected<CommandTable, std::string> read_fix_commands_table(data_table::TableReader& reader) {
  CommandTable table;
  auto reboots = command_list(reader, "reboot", "commands");
  if (!reboots) return tl::unexpected(reboots.error());
  table.reboots = std::move(*reboots);
  const std::pair<std::string_view, CommandKind> lists[] = {
      {"session", CommandKind::session}, {"interactive", CommandKind::interactive}, {"read_only", CommandKind::reads}};
  for (const auto& [key, kind] : lists) {
    auto prefixes = command_list(reader, key, "prefixes");
    if (!prefixes) return tl::unexpected(prefixes.error());
    for (auto& prefix : *prefixes) table.prefixes.emplace(std::move(prefix), kind);
  }
  return table;
}

[[maybe_unused]] const bool kFixCommandsLoaderRegistered =
    data_table::register_table_loader<CommandTable, &read_fix_commands_table>(kFixCommandsFile);

// Parsed once per table text (overlays included).
const CommandTable& command_table() {
  return data_table::require(data_table::load<CommandTable, &read_fix_commands_table>(kFixCommandsFile));
}

// How strongly a kind binds a whole command line: the strongest part wins.
int weight(CommandKind kind) {
  switch (kind) {
    case CommandKind::reads: return 0;
    case CommandKind::session: return 1;
    case CommandKind::changes: return 2;
    case CommandKind::reboot: return 3;
    case CommandKind::interactive: return 4;
    case CommandKind::unsafe: return 5;
  }
  return 2;
}

bool has_control_characters(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7f;
  });
}

// The words of a simple command, a leading sudo (and its options) dropped.
std::vector<std::string_view> command_words(std::string_view part) {
  auto words = split_words(part);
  if (!words.empty() && words.front() == "sudo") {
    words.erase(words.begin());
    while (!words.empty() && words.front().starts_with('-')) words.erase(words.begin());
  }
  return words;
}

CommandKind part_kind(std::string_view part) {
  const auto words = command_words(part);
  if (words.empty()) return CommandKind::reads;
  std::string joined;
  for (const auto word : words) joined += (joined.empty() ? "" : " ") + std::string(word);
  const auto& table = command_table();
  if (std::find(table.reboots.begin(), table.reboots.end(), joined) != table.reboots.end()) return CommandKind::reboot;
  // The longest listed prefix of whole words decides ("mokutil --sb-state" before "mokutil").
  std::string prefix;
  std::optional<CommandKind> found;
  for (const auto word : words) {
    prefix += (prefix.empty() ? "" : " ") + std::string(word);
    if (const auto it = table.prefixes.find(prefix); it != table.prefixes.end()) found = it->second;
  }
  return found.value_or(CommandKind::changes);
}

// After a '>' at `i`: the redirection's target, or empty for a descriptor copy (2>&1).
std::string redirect_target(std::string_view command, std::size_t& i) {
  if (i + 1 < command.size() && command[i + 1] == '>') ++i;
  if (i + 1 < command.size() && command[i + 1] == '&') {
    ++i;
    while (i + 1 < command.size() && std::isdigit(static_cast<unsigned char>(command[i + 1])) != 0) ++i;
    return "";
  }
  while (i + 1 < command.size() && command[i + 1] == ' ') ++i;
  std::string target;
  while (i + 1 < command.size() && std::string_view(" |;&").find(command[i + 1]) == std::string_view::npos) {
    target += command[++i];
  }
  return target;
}

}  // namespace

std::string_view to_string(CommandKind kind) {
  switch (kind) {
    case CommandKind::changes: return "changes";
    case CommandKind::reads: return "reads";
    case CommandKind::reboot: return "reboot";
    case CommandKind::session: return "session";
    case CommandKind::interactive: return "interactive";
    case CommandKind::unsafe: return "unsafe";
  }
  return "changes";
}

CommandParts split_command(std::string_view command) {
  CommandParts result;
  std::string current;
  char quote = 0;
  const auto finish = [&] {
    if (!trim(current).empty()) result.parts.emplace_back(trim(current));
    current.clear();
  };
  for (std::size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      if (c == '\\' && quote == '"' && i + 1 < command.size()) current += command[i++];
      current += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      current += c;
    } else if (c == '\\' && i + 1 < command.size()) {
      current += c;
      current += command[++i];
    } else if (c == '|' || c == ';' || c == '&') {
      finish();
      if (i + 1 < command.size() && command[i + 1] == c) ++i;
    } else if (c == '>') {
      // A leading descriptor number ("2>") belongs to the redirection, not the words.
      if (!current.empty() && std::isdigit(static_cast<unsigned char>(current.back())) != 0) current.pop_back();
      const auto target = redirect_target(command, i);
      if (!target.empty() && target != "/dev/null") result.redirects = true;
    } else {
      current += c;
    }
  }
  finish();
  return result;
}

CommandKind command_kind(std::string_view command) {
  if (has_control_characters(command)) return CommandKind::unsafe;
  const auto split = split_command(command);
  CommandKind strongest = CommandKind::reads;
  for (const auto& part : split.parts) {
    const auto kind = part_kind(part);
    if (weight(kind) > weight(strongest)) strongest = kind;
  }
  if (split.redirects && weight(strongest) < weight(CommandKind::changes)) strongest = CommandKind::changes;
  return strongest;
}

}  // namespace rocm_doctor

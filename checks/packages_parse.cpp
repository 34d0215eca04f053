// `packages`: the pure parsers declared in packages.h (apt one-line and deb822 sources,
// yum/zypper .repo files, repo.radeon.com URLs), tested with tables.
#include <algorithm>

#include "packages.h"
#include "rocm_doctor/text.h"
#include "rocm_doctor/text_case.h"
#include "rocm_packages_table.h"

namespace rocm_doctor::packages {

namespace {

bool is_dotted_number(std::string_view text) {
  if (text.empty() || text.front() == '.' || text.back() == '.') return false;
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; });
}

}  // namespace

std::vector<RepoEntry> parse_apt_list(std::string_view text) {
  std::vector<RepoEntry> entries;
  int number = 0;
  for (const auto raw : lines(text)) {
    ++number;
    auto line = trim(raw);
    if (const auto hash = line.find('#'); hash != std::string_view::npos) line = trim(line.substr(0, hash));
    if (!line.starts_with("deb ") && !line.starts_with("deb-src ")) continue;
    RepoEntry entry;
    entry.line = number;
    entry.text = std::string(line);
    auto rest = trim(line.substr(line.find(' ')));
    if (rest.starts_with('[')) {
      const auto close = rest.find(']');
      if (close == std::string_view::npos) continue;
      for (const auto option : split_words(rest.substr(1, close - 1))) {
        if (lower(option).starts_with("signed-by=")) entry.signed_by = true;
      }
      rest = trim(rest.substr(close + 1));
    }
    const auto words = split_words(rest);
    if (words.empty()) continue;
    entry.uris.emplace_back(words[0]);
    if (words.size() > 1) entry.suite = std::string(words[1]);
    for (std::size_t i = 2; i < words.size(); ++i) {
      entry.components += (entry.components.empty() ? "" : " ") + std::string(words[i]);
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::vector<RepoEntry> parse_deb822(std::string_view text) {
  std::vector<RepoEntry> entries;
  RepoEntry current;
  bool has_fields = false;
  const auto on_field = [&](const ControlField& control) {
    if (!has_fields) {
      current.line = control.line;
      has_fields = true;
    }
    const auto field = lower(control.name);
    const auto value = control.value;
    if (field == "uris") {
      for (const auto uri : split_words(value)) current.uris.emplace_back(uri);
      current.text = "URIs: " + std::string(value);
    } else if (field == "suites") {
      current.suite = std::string(value);
    } else if (field == "components") {
      current.components = std::string(value);
    } else if (field == "signed-by") {
      current.signed_by = true;
    } else if (field == "enabled") {
      current.enabled = lower(value) != "no";
    }
  };
  const auto on_stanza_end = [&] {
    if (has_fields && !current.uris.empty()) entries.push_back(current);
    current = RepoEntry{};
    has_fields = false;
  };
  read_control_stanzas(text, on_field, on_stanza_end);
  return entries;
}

std::vector<RepoEntry> parse_repo_ini(std::string_view text) {
  std::vector<RepoEntry> entries;
  RepoEntry current;
  bool in_section = false;
  const auto finish = [&]() {
    if (in_section && !current.uris.empty()) entries.push_back(current);
    current = RepoEntry{};
  };
  int number = 0;
  for (const auto raw : lines(text)) {
    ++number;
    const auto line = trim(raw);
    if (line.empty() || line.starts_with('#') || line.starts_with(';')) continue;
    if (line.starts_with('[') && line.ends_with(']')) {
      finish();
      in_section = true;
      current.line = number;
      current.text = std::string(line);
      continue;
    }
    const auto equals = line.find('=');
    if (!in_section || equals == std::string_view::npos) continue;
    const auto key = lower(trim(line.substr(0, equals)));
    const auto value = trim(line.substr(equals + 1));
    if (key == "baseurl") {
      for (const auto uri : split_words(value)) current.uris.emplace_back(uri);
    } else if (key == "enabled") {
      current.enabled = value != "0";
    }
  }
  finish();
  return entries;
}

RepoHosts repo_hosts() {
  const auto& table = rocm_packages_table();
  return {table.legacy_hosts, table.core_sdk_hosts};
}

std::optional<RadeonRepo> parse_amd_repo_url(std::string_view url, const RepoHosts& hosts) {
  auto text = trim(url);
  if (const auto scheme = text.find("://"); scheme != std::string_view::npos) text = text.substr(scheme + 3);
  const auto parts = split(text, '/');
  if (parts.size() < 2) return std::nullopt;
  const auto host = lower(parts[0]);
  const auto listed = [&](const std::vector<std::string>& list) {
    return std::find(list.begin(), list.end(), host) != list.end();
  };
  RadeonRepo repo;
  std::size_t first = 2;
  if (listed(hosts.legacy)) {
    repo.kind = lower(parts[1]);
  } else if (listed(hosts.core_sdk)) {
    // The Core SDK's channels (stable.repo.amd.com/rocm/core/packages/ubuntu2404) name no
    // release; a dotted number further down the path is one.
    repo.kind = "core-sdk";
    first = 1;
  } else {
    return std::nullopt;
  }
  for (std::size_t i = first; i < parts.size(); ++i) {
    if (parts[i] == "latest") break;
    if (is_dotted_number(parts[i]) && parts[i].find('.') != std::string_view::npos) {
      repo.release = std::string(parts[i]);
      break;
    }
  }
  return repo;
}

std::optional<RadeonRepo> parse_radeon_url(std::string_view url) {
  auto repo = parse_amd_repo_url(url, repo_hosts());
  if (repo && repo->kind == "core-sdk") return std::nullopt;
  return repo;
}

}  // namespace rocm_doctor::packages

// The pure parts of the static Python inspection: version.py, METADATA,
// pyvenv.cfg and version names (rocm_doctor/facts/python_env.h).
#include "rocm_doctor/facts/python_env.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

// 'text', "text" or None; anything else (an expression) is unknown.
struct PyValue {
  bool known = false;
  std::optional<std::string> text;
};

PyValue parse_py_value(std::string_view value) {
  value = trim(value);
  if (const auto hash = value.find('#');
      hash != std::string_view::npos && value.front() != '\'' && value.front() != '"') {
    value = trim(value.substr(0, hash));
  }
  if (value == "None") return {true, std::nullopt};
  if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"')) {
    const auto close = value.find(value.front(), 1);
    if (close == std::string_view::npos) return {};
    return {true, std::string(value.substr(1, close - 1))};
  }
  return {};
}

bool is_identifier(std::string_view name) {
  if (name.empty()) return false;
  for (const char c : name) {
    if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return false;
  }
  return true;
}

}  // namespace

VersionPy parse_version_py(std::string_view text) {
  VersionPy parsed;
  for (const auto line : lines(text)) {
    if (line.empty() || line.front() == ' ' || line.front() == '\t') continue;  // top-level assignments only
    const auto equals = line.find('=');
    if (equals == std::string_view::npos || (equals + 1 < line.size() && line[equals + 1] == '=')) continue;
    auto name = trim(line.substr(0, equals));
    if (const auto colon = name.find(':'); colon != std::string_view::npos) name = trim(name.substr(0, colon));
    if (!is_identifier(name)) continue;
    const auto value = parse_py_value(line.substr(equals + 1));
    if (!value.known) continue;
    if (name == "__version__") {
      parsed.version = value.text;
      parsed.has_version = value.text.has_value() && !value.text->empty();
    } else if (name == "cuda") {
      parsed.cuda = value.text;
    } else if (name == "hip") {
      parsed.hip = value.text;
    } else if (name == "rocm") {
      parsed.rocm = value.text;
    } else if (name == "git_version") {
      parsed.git_version = value.text;
    }
  }
  return parsed;
}

std::string parse_metadata_version(std::string_view text) {
  for (const auto line : lines(text)) {
    if (trim(line).empty()) break;  // the header ends at the first empty line
    if (line.starts_with("Version:")) return std::string(trim(line.substr(8)));
  }
  return {};
}

PyvenvCfg parse_pyvenv_cfg(std::string_view text) {
  PyvenvCfg cfg;
  for (const auto line : lines(text)) {
    const auto equals = line.find('=');
    if (equals == std::string_view::npos) continue;
    const auto key = trim(line.substr(0, equals));
    const auto value = trim(line.substr(equals + 1));
    if (key == "home") {
      cfg.home = std::string(value);
    } else if (key == "version" || key == "version_info") {
      if (cfg.version.empty() || key == "version") cfg.version = std::string(value);
    } else if (key == "include-system-site-packages") {
      cfg.system_site_packages = value == "true" || value == "True";
    }
  }
  return cfg;
}

std::string python_major_minor(std::string_view text) {
  // The first "3.N" (or "2.N") in the text: python3.11, 3.11.7, python-3.11.5-h955ad1f_0.json.
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  for (std::size_t i = 0; i + 2 < text.size(); ++i) {
    if ((text[i] != '2' && text[i] != '3') || text[i + 1] != '.' || !digit(text[i + 2])) continue;
    if (i > 0 && digit(text[i - 1])) continue;
    std::size_t end = i + 2;
    while (end < text.size() && digit(text[end])) ++end;
    return std::string(text.substr(i, end - i));
  }
  return {};
}

TorchBuild build_of(const TorchFiles& torch) {
  if (torch.hip && !trim(*torch.hip).empty()) return TorchBuild::rocm;
  if (torch.cuda && !trim(*torch.cuda).empty()) return TorchBuild::cuda;
  return TorchBuild::cpu;
}

std::string_view to_string(TorchBuild build) {
  switch (build) {
    case TorchBuild::rocm: return "rocm";
    case TorchBuild::cuda: return "cuda";
    case TorchBuild::cpu: break;
  }
  return "cpu";
}

std::string wheel_rocm_release(const TorchFiles& torch) {
  if (const auto at = torch.version.find("+rocm"); at != std::string::npos) return torch.version.substr(at + 5);
  if (torch.rocm && !torch.rocm->empty()) return *torch.rocm;
  if (!torch.hip) return {};
  // "6.2.41133-dd7f95766" -> "6.2"
  const auto& hip = *torch.hip;
  const auto first = hip.find('.');
  if (first == std::string::npos) return {};
  auto second = hip.find_first_not_of("0123456789", first + 1);
  if (second == first + 1) return {};
  return hip.substr(0, second == std::string::npos ? hip.size() : second);
}

}  // namespace rocm_doctor

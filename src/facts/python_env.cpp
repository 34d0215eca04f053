// Finds the Python environment and its torch from their files, through the
// Host (so capture records every file read and replay answers them): the
// interpreter on PATH or --python, venv (pyvenv.cfg), conda (conda-meta/),
// pyenv shims (PYENV_VERSION, .python-version, $PYENV_ROOT/version), the
// user and system site-packages (Debian's dist-packages too).
#include "rocm_doctor/facts/python_env.h"

#include <algorithm>

#include "probe/python_probe.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

constexpr std::size_t kSmallFileLimit = 64 * 1024;
constexpr std::size_t kMetadataLimit = 1024 * 1024;
constexpr int kMaxLinks = 16;

std::string parent_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return {};
  return slash == 0 ? std::string("/") : path.substr(0, slash);
}

std::string name_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string joined(const std::string& folder, std::string_view name) {
  if (folder.empty() || folder.back() == '/') return folder + std::string(name);
  return folder + "/" + std::string(name);
}

// A version name pyenv keeps under versions/: no folder separator, not . or ..
bool plain_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." &&
         std::none_of(name.begin(), name.end(), [](char c) { return c == '/'; });
}

bool is_executable(const Host& host, const std::string& path) {
  const auto node = host.stat_node(path);
  return node && node->type == EntryType::file && (node->mode & 0111U) != 0;
}

bool is_folder(const Host& host, const std::string& path) {
  const auto node = host.stat_node(path);
  return node && node->type == EntryType::directory;
}

class Inspection {
 public:
  Inspection(const Host& host, PythonEnvironment& env) : host_(host), env_(env) {}

  void choose(const std::string& requested) {
    const auto path = host_.env("PATH").value_or("");
    const auto executable = [this](const std::string& candidate) { return is_executable(host_, candidate); };
    if (!requested.empty()) {
      env_.found_by = "--python";
      if (requested.front() == '/') {
        if (executable(requested))
          env_.interpreter = requested;
        else
          env_.error = "--python " + requested + ": not an executable file";
      } else if (requested.find('/') == std::string::npos) {
        env_.interpreter = probe::find_on_path(requested, path, executable);
        if (env_.interpreter.empty()) env_.error = "--python " + requested + ": not found on PATH";
      } else {
        env_.error = "--python " + requested + ": give an absolute path or a command name";
      }
      return;
    }
    env_.found_by = "PATH";
    env_.interpreter = probe::find_on_path("python3", path, executable);
    if (!env_.interpreter.empty()) return;
    // An environment named by the shell but not on PATH (a script's own activation).
    for (const char* variable : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
      const auto prefix = host_.env(variable);
      if (!prefix || prefix->empty() || prefix->front() != '/') continue;
      const auto candidate = joined(*prefix, "bin/python3");
      if (!executable(candidate)) continue;
      env_.interpreter = candidate;
      env_.found_by = variable;
      return;
    }
    env_.found_by.clear();
    env_.error = "no python3 on PATH (" + path + ")";
  }

  // A pyenv shim is a shell script that runs `pyenv exec`: the version it picks is in files.
  void resolve_shim() {
    env_.resolved = env_.interpreter;
    const auto shims = parent_of(env_.interpreter);
    if (name_of(shims) != "shims") return;
    const auto root = parent_of(shims);
    if (!is_folder(host_, joined(root, "versions"))) return;
    env_.kind = "pyenv";
    const auto names = pyenv_version_names(root);
    for (const auto& name : names) {
      if (name == "system") {
        const auto path = host_.env("PATH").value_or("");
        std::vector<std::string> others;
        for (const auto folder : split(path, ':')) {
          if (!std::string(folder).starts_with(root + "/")) others.emplace_back(folder);
        }
        auto found =
            probe::find_on_path(name_of(env_.interpreter), join(others, ":"),
                                [this](const std::string& candidate) { return is_executable(host_, candidate); });
        if (!found.empty()) {
          env_.resolved = found;
          env_.kind = "system";
          return;
        }
        continue;
      }
      if (!plain_name(name)) continue;
      const auto candidate = joined(root, "versions/" + name + "/bin/" + name_of(env_.interpreter));
      if (is_executable(host_, candidate)) {
        env_.resolved = candidate;
        return;
      }
    }
    env_.undecided = "the pyenv shim " + env_.interpreter + " selects " +
                     (names.empty() ? std::string("no version") : "'" + join(names, " ") + "'") +
                     ", which is not installed under " + joined(root, "versions");
  }

  void classify() {
    env_.prefix = parent_of(parent_of(env_.resolved));
    if (auto cfg_text = host_.read_file(joined(env_.prefix, "pyvenv.cfg"), kSmallFileLimit)) {
      const auto cfg = parse_pyvenv_cfg(*cfg_text);
      env_.kind = "venv";
      env_.python_version = python_major_minor(cfg.version);
      venv_system_site_ = cfg.system_site_packages;
      if (!cfg.home.empty() && cfg.home.front() == '/') base_prefix_ = parent_of(cfg.home);
      env_.evidence.emplace_back(
          joined(env_.prefix, "pyvenv.cfg"),
          "home " + cfg.home + ", version " + cfg.version + (cfg.system_site_packages ? ", system site-packages" : ""));
    } else if (is_folder(host_, joined(env_.prefix, "conda-meta"))) {
      env_.kind = "conda";
      if (auto entries = host_.list_dir(joined(env_.prefix, "conda-meta"))) {
        for (const auto& entry : *entries) {
          if (entry.name.starts_with("python-") && entry.name.size() > 7 && entry.name[7] >= '0' &&
              entry.name[7] <= '9') {
            env_.python_version = python_major_minor(entry.name);
            env_.evidence.emplace_back(joined(env_.prefix, "conda-meta/" + entry.name),
                                       "python " + env_.python_version);
            break;
          }
        }
      }
    } else if (env_.kind.empty()) {
      env_.kind = "system";
    }
    if (env_.python_version.empty()) env_.python_version = version_from_links();
  }

  void build_search_path() {
    auto& path = env_.search_path;
    if (auto value = host_.env("PYTHONPATH")) {
      for (const auto entry : split(*value, ':')) {
        if (!entry.empty() && entry.front() == '/') path.emplace_back(entry);
      }
    }
    for (const auto& version : versions()) {
      if (env_.kind != "venv" && !host_.env("PYTHONNOUSERSITE")) {
        std::string base = host_.env("PYTHONUSERBASE").value_or("");
        if (base.empty()) {
          const auto home = home_folder();
          if (!home.empty()) base = joined(home, ".local");
        }
        if (!base.empty()) path.push_back(joined(base, "lib/python" + version + "/site-packages"));
      }
      add_site_folders(env_.prefix, version);
      if (env_.kind == "venv" && venv_system_site_ && !base_prefix_.empty()) add_site_folders(base_prefix_, version);
    }
  }

  void find_torch() {
    std::string namespace_folder;
    for (const auto& folder : env_.search_path) {
      const auto torch = joined(folder, "torch");
      if (!is_folder(host_, torch)) continue;
      if (!host_.exists(joined(torch, "__init__.py"))) {
        if (namespace_folder.empty()) namespace_folder = torch;
        continue;  // Python keeps looking for a regular package
      }
      read_torch(folder, torch);
      return;
    }
    if (!namespace_folder.empty()) {
      env_.undecided = namespace_folder + " has no __init__.py (a leftover of an uninstall?)";
    }
  }

 private:
  std::vector<std::string> pyenv_version_names(const std::string& root) {
    const auto words = [](std::string_view text) {
      std::vector<std::string> names;
      for (const auto line : lines(text)) {
        const auto content = trim(line.substr(0, line.find('#')));
        for (const auto word : split_words(content)) names.emplace_back(word);
      }
      return names;
    };
    if (auto value = host_.env("PYENV_VERSION"); value && !trim(*value).empty()) {
      std::vector<std::string> names;
      for (const auto name : split(trim(*value), ':')) names.emplace_back(name);
      env_.evidence.emplace_back("env PYENV_VERSION", *value);
      return names;
    }
    // .python-version in the working folder or one above it, as pyenv looks.
    for (std::string folder = host_.env("PWD").value_or(""); !folder.empty() && folder.front() == '/';
         folder = parent_of(folder)) {
      const auto file = joined(folder, ".python-version");
      if (auto text = host_.read_file(file, kSmallFileLimit)) {
        env_.evidence.emplace_back(file, std::string(trim(*text)));
        return words(*text);
      }
      if (folder == "/") break;
    }
    const auto file = joined(root, "version");
    if (auto text = host_.read_file(file, kSmallFileLimit)) {
      env_.evidence.emplace_back(file, std::string(trim(*text)));
      return words(*text);
    }
    return {"system"};
  }

  // python3 -> python3.11: the link chain names the version.
  std::string version_from_links() {
    std::string path = env_.resolved;
    for (int hop = 0; hop < kMaxLinks; ++hop) {
      if (auto version = python_major_minor(name_of(path)); !version.empty()) return version;
      auto target = host_.read_link(path);
      if (!target) break;
      path = target->starts_with('/') ? *target : joined(parent_of(path), *target);
    }
    return {};
  }

  // The version, or every lib/python3.N of the prefix when nothing said which.
  std::vector<std::string> versions() {
    if (!env_.python_version.empty()) return {env_.python_version};
    std::vector<std::string> found;
    if (auto entries = host_.list_dir(joined(env_.prefix, "lib"))) {
      for (const auto& entry : *entries) {
        if (entry.name.starts_with("python3.")) {
          auto version = python_major_minor(entry.name);
          if (!version.empty() && version == entry.name.substr(6)) found.push_back(version);
        }
      }
    }
    if (found.size() == 1) env_.python_version = found.front();
    return found;
  }

  std::string home_folder() {
    if (auto home = host_.env("HOME"); home && !home->empty()) return *home;
    const auto who = host_.identity();
    if (who.user.empty()) return {};
    if (auto user = host_.user_by_name(who.user)) return user->home;
    return {};
  }

  void add_site_folders(const std::string& prefix, const std::string& version) {
    auto& path = env_.search_path;
    const auto add = [&path](std::string folder) {
      if (std::find(path.begin(), path.end(), folder) == path.end()) path.push_back(std::move(folder));
    };
    const auto python = "python" + version;
    if (prefix == "/usr") {
      // Debian's own and pip's system folders, then the other distributions' (sys.path order).
      add("/usr/local/lib/" + python + "/dist-packages");
      add("/usr/local/lib64/" + python + "/site-packages");
      add("/usr/local/lib/" + python + "/site-packages");
      add("/usr/lib/python3/dist-packages");
      add("/usr/lib/" + python + "/dist-packages");
      add("/usr/lib64/" + python + "/site-packages");
      add("/usr/lib/" + python + "/site-packages");
      return;
    }
    add(joined(prefix, "lib/" + python + "/site-packages"));
    add(joined(prefix, "lib64/" + python + "/site-packages"));
  }

  void read_torch(const std::string& site, const std::string& torch) {
    TorchFiles files;
    files.folder = torch;
    files.version_file = joined(torch, "version.py");
    auto text = host_.read_file(files.version_file, kSmallFileLimit);
    if (!text) {
      env_.undecided = files.version_file + ": " + text.error().message;
      return;
    }
    const auto parsed = parse_version_py(*text);
    if (!parsed.has_version) {
      env_.undecided = files.version_file + " names no __version__";
      return;
    }
    files.version = *parsed.version;
    files.cuda = parsed.cuda;
    files.hip = parsed.hip;
    files.rocm = parsed.rocm;
    files.git_version = parsed.git_version;
    read_metadata(site, files);
    env_.torch = std::move(files);
  }

  void read_metadata(const std::string& site, TorchFiles& files) {
    auto entries = host_.list_dir(site);
    if (!entries) return;
    for (const auto& entry : *entries) {
      const bool dist = entry.name.ends_with(".dist-info");
      const bool egg = entry.name.ends_with(".egg-info");
      if (!entry.name.starts_with("torch-") || (!dist && !egg) || entry.name.size() < 7 || entry.name[6] < '0' ||
          entry.name[6] > '9') {
        continue;
      }
      const auto file = joined(joined(site, entry.name), dist ? "METADATA" : "PKG-INFO");
      if (auto text = host_.read_file(file, kMetadataLimit)) {
        files.metadata_file = file;
        files.metadata_version = parse_metadata_version(*text);
        return;
      }
    }
  }

  const Host& host_;
  PythonEnvironment& env_;
  bool venv_system_site_ = false;
  std::string base_prefix_;
};

}  // namespace

PythonEnvironment inspect_python_environment(const Host& host, const std::string& requested) {
  PythonEnvironment env;
  Inspection inspection(host, env);
  inspection.choose(requested);
  if (env.interpreter.empty()) return env;
  inspection.resolve_shim();
  if (!env.undecided.empty()) return env;
  inspection.classify();
  inspection.build_search_path();
  inspection.find_torch();
  return env;
}

PythonEnvironment PythonEnvironment::collect(const CheckContext& ctx) {
  return inspect_python_environment(ctx.host(), ctx.options().python);
}

}  // namespace rocm_doctor

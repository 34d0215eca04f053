#include "probe/dl_library.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

namespace rocm_doctor::probe {

namespace {

std::string_view to_string(LoadStatus status) {
  switch (status) {
    case LoadStatus::loaded: return "loaded";
    case LoadStatus::not_found: return "not-found";
    case LoadStatus::load_failed: return "load-failed";
  }
  return "unknown";
}

bool is_file(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

}  // namespace

bool is_missing_file_error(const std::string& requested, const std::string& error) {
  return error.rfind(requested + ":", 0) == 0 && error.find("No such file or directory") != std::string::npos;
}

DlLibrary::~DlLibrary() = default;

bool DlLibrary::try_open(const std::string& name) {
  ::dlerror();
  void* handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = ::dlerror();
    attempts_.push_back({name, error != nullptr ? error : "dlopen failed"});
    if (!is_missing_file_error(name, attempts_.back().error)) status_ = LoadStatus::load_failed;
    return false;
  }
  attempts_.push_back({name, ""});
  handle_ = handle;
  status_ = LoadStatus::loaded;
  soname_ = name.substr(name.rfind('/') + 1);
  link_map* map = nullptr;
  if (::dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr) path_ = map->l_name;
  if (path_.empty()) path_ = name;
  return true;
}

DlLibrary DlLibrary::load(const std::vector<std::string>& sonames, const std::vector<std::string>& folders) {
  DlLibrary library;
  for (const auto& soname : sonames) {
    if (library.try_open(soname)) return library;
  }
  for (const auto& folder : folders) {
    for (const auto& soname : sonames) {
      const auto path = folder + "/" + soname;
      if (is_file(path) && library.try_open(path)) return library;
    }
  }
  return library;
}

void* DlLibrary::symbol(const char* name) {
  if (handle_ == nullptr) return nullptr;
  ::dlerror();
  void* address = ::dlsym(handle_, name);
  if (address == nullptr) {
    const char* error = ::dlerror();
    missing_.push_back(error != nullptr ? error : std::string(name) + ": not found");
  }
  return address;
}

std::string DlLibrary::failure() const {
  for (const auto& attempt : attempts_) {
    if (!attempt.error.empty() && !is_missing_file_error(attempt.name, attempt.error)) return attempt.error;
  }
  return attempts_.empty() ? std::string() : attempts_.back().error;
}

nlohmann::json DlLibrary::describe() const {
  nlohmann::json result = {{"status", to_string(status_)}};
  if (loaded()) {
    result["path"] = path_;
    result["soname"] = soname_;
    std::error_code error;
    const auto real = std::filesystem::canonical(path_, error);
    if (!error) result["real_path"] = real.string();
  } else if (status_ == LoadStatus::load_failed) {
    result["error"] = failure();
  }
  auto& attempts = result["attempts"] = nlohmann::json::array();
  for (const auto& attempt : attempts_) {
    attempts.push_back(attempt.error.empty() ? nlohmann::json{{"name", attempt.name}, {"loaded", true}}
                                             : nlohmann::json{{"name", attempt.name}, {"error", attempt.error}});
  }
  if (!missing_.empty()) result["missing_symbols"] = missing_;
  return result;
}

std::vector<std::string> rocm_library_folders() {
  std::vector<std::string> folders = {"/opt/rocm/lib", "/opt/rocm/lib64"};
  std::vector<std::string> versioned;
  std::error_code error;
  for (std::filesystem::directory_iterator it("/opt", error), end; !error && it != end; it.increment(error)) {
    const auto name = it->path().filename().string();
    if (name.rfind("rocm-", 0) == 0) versioned.push_back(it->path().string() + "/lib");
  }
  std::sort(versioned.rbegin(), versioned.rend());
  // The ROCm Core SDK (7.14+): /opt/rocm/core-X.Y/lib, also when no /opt/rocm/lib alternative exists.
  std::vector<std::string> core;
  for (std::filesystem::directory_iterator it("/opt/rocm", error), end; !error && it != end; it.increment(error)) {
    const auto name = it->path().filename().string();
    std::error_code link_error;
    if (name.rfind("core-", 0) == 0 && !it->is_symlink(link_error)) core.push_back(it->path().string() + "/lib");
  }
  std::sort(core.rbegin(), core.rend());
  folders.insert(folders.end(), core.begin(), core.end());
  folders.insert(folders.end(), versioned.begin(), versioned.end());
  return folders;
}

}  // namespace rocm_doctor::probe

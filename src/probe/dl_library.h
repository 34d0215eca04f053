// dlopen by a list of sonames, the way applications find vendor libraries:
// first through the dynamic loader's own search path, then from folders.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rocm_doctor::probe {

struct LoadAttempt {
  std::string name;   // soname or absolute path tried
  std::string error;  // dlerror() text, empty when it loaded
};

enum class LoadStatus { loaded, not_found, load_failed };

class DlLibrary {
 public:
  DlLibrary() = default;
  ~DlLibrary();  // never dlclose: vendor libraries are not safe to unload
  DlLibrary(const DlLibrary&) = delete;
  DlLibrary& operator=(const DlLibrary&) = delete;
  DlLibrary(DlLibrary&&) = default;
  DlLibrary& operator=(DlLibrary&&) = default;

  // Tries each soname on the loader path, then each folder/soname that exists.
  static DlLibrary load(const std::vector<std::string>& sonames, const std::vector<std::string>& folders);

  [[nodiscard]] bool loaded() const { return handle_ != nullptr; }
  [[nodiscard]] LoadStatus status() const { return status_; }
  // A symbol, or nullptr (its dlerror() is added to missing_symbols()).
  void* symbol(const char* name);
  template <typename Fn>
  bool bind(Fn*& target, const char* name) {
    target = reinterpret_cast<Fn*>(symbol(name));
    return target != nullptr;
  }

  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] const std::vector<LoadAttempt>& attempts() const { return attempts_; }
  [[nodiscard]] const std::vector<std::string>& missing_symbols() const { return missing_; }
  // The first dlerror() that was not "no such file" for the name itself.
  [[nodiscard]] std::string failure() const;
  // {"status", "path", "real_path", "soname", "attempts": [...], "missing_symbols"}
  [[nodiscard]] nlohmann::json describe() const;

 private:
  bool try_open(const std::string& name);

  void* handle_ = nullptr;
  LoadStatus status_ = LoadStatus::not_found;
  std::string path_;
  std::string soname_;
  std::vector<LoadAttempt> attempts_;
  std::vector<std::string> missing_;
};

// True when a dlerror() text says the requested file itself does not exist
// (not one of its dependencies).
bool is_missing_file_error(const std::string& requested, const std::string& error);

// /opt/rocm/lib, /opt/rocm/lib64, then /opt/rocm-*/lib, newest name first.
std::vector<std::string> rocm_library_folders();

}  // namespace rocm_doctor::probe

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "report/redact.h"
#include "util/atomic_file.h"

namespace rocm_doctor {

namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& path) {
  std::ifstream stream(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(stream), {}};
}

}  // namespace

tl::expected<void, std::string> redact_snapshot_folder(const fs::path& folder, Redactor& redactor) {
  const fs::path manifest = folder / "snapshot.json";
  auto document = nlohmann::ordered_json::parse(read_all(manifest), nullptr, false);
  if (document.is_discarded()) return tl::unexpected(manifest.string() + ": not valid JSON");
  redactor.apply(document);
  if (auto written = write_file_atomically(manifest, document.dump(2) + "\n"); !written) return written;

  std::vector<fs::path> paths;
  std::error_code error;
  for (fs::recursive_directory_iterator it(folder / "root", error), end; !error && it != end; it.increment(error)) {
    paths.push_back(it->path());
  }
  if (error) return tl::unexpected((folder / "root").string() + ": " + error.message());
  for (const auto& path : paths) {
    const auto status = fs::symlink_status(path, error);
    if (fs::is_symlink(status)) {
      const auto target = fs::read_symlink(path, error).string();
      if (const auto redacted = redactor.apply(target); redacted != target) {
        fs::remove(path, error);
        fs::create_symlink(redacted, path, error);
      }
    } else if (fs::is_regular_file(status)) {
      const auto content = read_all(path);
      if (const auto redacted = redactor.apply(content); redacted != content) {
        if (auto written = write_file_atomically(path, redacted); !written) return written;
      }
    }
    if (error) return tl::unexpected(path.string() + ": " + error.message());
  }
  // Names last, deepest first, so a renamed folder never hides a pending path.
  std::sort(paths.begin(), paths.end(), [](const fs::path& a, const fs::path& b) {
    return std::distance(a.begin(), a.end()) > std::distance(b.begin(), b.end());
  });
  for (const auto& path : paths) {
    const auto name = path.filename().string();
    if (const auto redacted = redactor.apply(name); redacted != name) {
      fs::rename(path, path.parent_path() / redacted, error);
      if (error) return tl::unexpected(path.string() + ": " + error.message());
    }
  }
  return {};
}

}  // namespace rocm_doctor

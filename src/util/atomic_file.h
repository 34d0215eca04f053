// Writing output files so that a failure never leaves a half-written one.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <tl/expected.hpp>

namespace rocm_doctor {

// Writes `content` to a temporary file beside `target`, flushes it to disk
// and renames it over `target`. On failure the old file is left intact and
// the error says why. `mode` is set before the rename, so the file never
// appears with other permissions.
tl::expected<void, std::string> write_file_atomically(const std::filesystem::path& target, std::string_view content,
                                                      mode_t mode = 0644);

}  // namespace rocm_doctor

// The optional WSL interop probe: asks Windows itself for its build and the
// WSL version (`cmd.exe /c ver`, `wsl.exe --version`), each a child with a
// timeout and no shell. Runs in the doctor's probe runner (Windows programs
// need no vendor library loaded); planned only when interop is on.
#pragma once

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/host.h"

namespace rocm_doctor::probe {

// The outcome ({"status": "ok", "elapsed_ms", "result": {"cmd_ver": ..., "wsl_version": ...}}):
// each command's own status ("ok", "timeout", "failed", "exec-failed", "not-found") and stdout.
nlohmann::json run_wsl_interop_probe(std::chrono::milliseconds timeout, const std::atomic<bool>* cancel);

// Whether Windows interop is on: WSL's binfmt_misc entry (WSLInterop, or
// WSLInterop-late on newer WSL) says "enabled" on its first line.
bool wsl_interop_enabled(const Host& host);

// The program's absolute path: the first PATH entry holding it (WSL appends the
// Windows PATH), else `fallback_folder`/name; empty when neither exists.
std::string find_windows_program(std::string_view name, std::string_view path_variable,
                                 std::string_view fallback_folder);

// wsl.exe writes UTF-16LE unless WSL_UTF8=1 is honoured: text with NUL bytes
// between its characters is decoded to UTF-8; anything else is returned as is.
std::string decode_windows_output(std::string_view bytes);

}  // namespace rocm_doctor::probe

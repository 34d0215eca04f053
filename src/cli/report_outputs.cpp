#include "cli/report_outputs.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "util/atomic_file.h"

namespace rocm_doctor {

namespace {

Color choose_color(const RunCommandOptions& options, const OutputTarget& target) {
  const bool to_terminal = target.file.empty() && ::isatty(STDOUT_FILENO) == 1;
  const char* no_color = std::getenv("NO_COLOR");
  const bool disabled = options.no_color || (no_color != nullptr && *no_color != '\0');
  return to_terminal && !disabled ? Color::on : Color::off;
}

Severity fail_on(const RunCommandOptions& options) {
  return parse_severity(options.fail_on).value_or(Severity::error);
}

int emit(const std::string& content, const std::string& file, std::string_view what, mode_t mode = 0644) {
  if (file.empty()) {
    std::fwrite(content.data(), 1, content.size(), stdout);
    std::fflush(stdout);
    return 0;
  }
  if (auto written = write_file_atomically(file, content, mode); !written) {
    fmt::print(stderr, "rocm-doctor: cannot write the {}: {}\n", what, written.error());
    return static_cast<int>(ExitCode::internal);
  }
  return 0;
}

}  // namespace

tl::expected<std::vector<OutputTarget>, std::string> output_targets(const RunCommandOptions& options) {
  const auto main_format = parse_format(options.format);
  if (!main_format) return tl::unexpected("unknown format '" + options.format + "'");
  std::vector<OutputTarget> targets;
  for (const auto& output : options.outputs) {
    OutputTarget target{*main_format, output};
    // FORMAT=FILE when the part before '=' names a format; else the whole is a file name.
    if (const auto equals = output.find('='); equals != std::string::npos) {
      if (const auto format = parse_format(output.substr(0, equals))) target = {*format, output.substr(equals + 1)};
    }
    if (target.file.empty()) return tl::unexpected("--output " + output + ": no file name");
    targets.push_back(std::move(target));
  }
  if (targets.empty()) targets.push_back({*main_format, ""});
  return targets;
}

int write_outputs(const Report& report, const std::vector<OutputTarget>& targets, const RunCommandOptions& options) {
  int result = 0;
  for (const auto& target : targets) {
    RenderOptions render{choose_color(options, target), options.verbose ? Verbosity::verbose : Verbosity::normal,
                         fail_on(options)};
    if (const int rc = emit(render_report(report, target.format, render), target.file, "report"); rc != 0) result = rc;
  }
  if (!options.fix_script.empty()) {
    // Executable, to be run after review; mode set before it appears.
    if (const int rc = emit(render_fix_script(report), options.fix_script, "fix script", 0755); rc != 0) result = rc;
  }
  return result;
}

int run_exit_code(const Report& report, const RunCommandOptions& options) {
  if (options.format == "npd") return npd_exit_code(report, fail_on(options));
  return static_cast<int>(exit_code_for(report, fail_on(options)));
}

}  // namespace rocm_doctor

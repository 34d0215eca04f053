#include "cli/symptom_input.h"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include "cli/user_command.h"
#include "rocm_doctor/diagnosis.h"
#include "rocm_doctor/symptom.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

tl::expected<std::string, std::string> read_stdin() {
  std::string text;
  std::array<char, 64 * 1024> buffer{};
  while (std::cin.read(buffer.data(), buffer.size()) || std::cin.gcount() > 0) {
    text.append(buffer.data(), static_cast<std::size_t>(std::cin.gcount()));
    // Bounded memory on an endless pipe: only the tail is kept.
    if (text.size() > 2 * symptom::kMaxTextBytes) text = keep_tail(std::move(text), symptom::kMaxTextBytes);
  }
  return keep_tail(std::move(text), symptom::kMaxTextBytes);
}

// The file's last kMaxTextBytes; a folder, a missing or unreadable file is an error.
tl::expected<std::string, std::string> read_log(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return tl::unexpected("cannot read log " + path + ": " + std::strerror(errno));
  if (!S_ISREG(info.st_mode)) return tl::unexpected("cannot read log " + path + ": not a regular file");
  std::ifstream stream(path, std::ios::binary);
  if (!stream) return tl::unexpected("cannot read log " + path + ": " + std::strerror(errno));
  const auto size = static_cast<std::size_t>(info.st_size);
  if (size > symptom::kMaxTextBytes) stream.seekg(static_cast<std::streamoff>(size - symptom::kMaxTextBytes));
  std::string text((std::istreambuf_iterator<char>(stream)), std::istreambuf_iterator<char>());
  return keep_tail(std::move(text), symptom::kMaxTextBytes);
}

void append(std::optional<SymptomInput>& input, std::string text, const std::string& source) {
  if (!input) input.emplace();
  if (input->text.empty()) {
    input->text = std::move(text);  // a 50 MB log is not copied
  } else {
    input->text += "\n";
    input->text += text;
  }
  input->source += (input->source.empty() ? "" : ", ") + source;
}

}  // namespace

void add_symptom_section(Report& report, const SymptomInput& input) {
  const auto matches = symptom::default_matcher().scan(input.text);
  auto section = symptom::symptom_section(matches, report, input.source);
  if (input.command) section["command"] = *input.command;
  // The causes that explain the user's own text rank first (issue 26).
  std::vector<std::string> explaining;
  for (const auto& cause : section.value("causes", nlohmann::ordered_json::array())) {
    if (cause.contains("finding") && cause.at("finding").is_string()) explaining.push_back(cause.at("finding"));
  }
  put_first(report, explaining);
  report.sections["symptom"] = std::move(section);
}

std::string keep_tail(std::string text, std::size_t limit) {
  if (text.size() > limit) text.erase(0, text.size() - limit);
  return text;
}

tl::expected<std::optional<SymptomInput>, std::string> read_symptom(const RunCommandOptions& options) {
  std::optional<SymptomInput> input;
  if (!options.symptom.empty()) {
    auto text = options.symptom == "-" ? read_stdin() : tl::expected<std::string, std::string>(options.symptom);
    if (!text) return tl::unexpected(text.error());
    if (trim(*text).empty()) return tl::unexpected(std::string("the error text is empty"));
    append(input, std::move(*text), options.symptom == "-" ? "stdin" : "argument");
  } else if (options.symptom_given) {
    return tl::unexpected(std::string("the error text is empty"));
  }
  if (!options.log_file.empty()) {
    auto text = read_log(options.log_file);
    if (!text) return tl::unexpected(text.error());
    // The path may name the user's home folder: --redact keeps only the file's name.
    const auto shown = options.redact ? std::filesystem::path(options.log_file).filename().string() : options.log_file;
    append(input, std::move(*text), "log " + shown);
  }
  if (!options.command.empty()) {
    auto ran = run_user_command(options.command, options.probe_timeout_seconds, options.redact);
    if (!ran) return tl::unexpected(ran.error());
    append(input, std::move(ran->output),
           "command " + std::filesystem::path(options.command.front()).filename().string());
    input->command = std::move(ran->summary);
  }
  return input;
}

}  // namespace rocm_doctor

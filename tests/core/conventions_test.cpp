// Rules of the code base that a compiler does not check (docs/adding-a-check.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "rocm_doctor/check.h"

namespace rocm_doctor {
namespace {

namespace fs = std::filesystem;

// Embedded data accessors are declared once, in the generated embedded_data.h
// (cmake/Embed.cmake): a hand-written declaration can drift from the data list.
TEST(Conventions, NoFileDeclaresAnEmbeddedAccessorByHand) {
  const std::regex kHandDeclared(R"(std::string_view (data_[a-z0-9_]+|checks_md)\(\);)");
  std::size_t files = 0;
  for (const char* folder : {"checks", "src", "tests"}) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(ROCM_DOCTOR_SOURCE_DIR) / folder)) {
      const auto extension = entry.path().extension();
      if (!entry.is_regular_file() || (extension != ".cpp" && extension != ".h")) continue;
      if (entry.path().filename() == "conventions_test.cpp") continue;
      ++files;
      std::ifstream stream(entry.path());
      std::stringstream text;
      text << stream.rdbuf();
      EXPECT_FALSE(std::regex_search(text.str(), kHandDeclared))
          << entry.path().string() << " declares embedded accessors itself: #include \"embedded_data.h\" instead";
    }
  }
  EXPECT_GT(files, 100U);
}

// The engine compiles in unity batches (ROCM_DOCTOR_UNITY): a using-directive at
// namespace scope in one file would reach every file after it in the batch. Inside a
// function it is fine (clang-format indents it there).
TEST(Conventions, NoEngineFileHasANamespaceScopeUsingDirective) {
  const std::regex kDirective(R"((^|\n)using namespace )");
  std::size_t files = 0;
  for (const char* folder : {"checks", "src"}) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(ROCM_DOCTOR_SOURCE_DIR) / folder)) {
      if (!entry.is_regular_file() || entry.path().extension() != ".cpp") continue;
      ++files;
      std::ifstream stream(entry.path());
      std::stringstream text;
      text << stream.rdbuf();
      EXPECT_FALSE(std::regex_search(text.str(), kDirective))
          << entry.path().string() << " has a using-directive outside a function: name what it uses instead";
    }
  }
  EXPECT_GT(files, 100U);
}

// Checks see the check API (include/rocm_doctor/), their siblings in checks/ and the
// generated headers, never the engine's internals under src/ (docs/architecture.md,
// "What may include what"): a check that needs more gets it through a header in include/.
TEST(Conventions, ChecksIncludeOnlyTheCheckApiTheirSiblingsAndGeneratedHeaders) {
  const fs::path source(ROCM_DOCTOR_SOURCE_DIR);
  const std::regex kInclude(R"(^\s*#\s*include\s*([<"])([^>"]+)[>"])");
  const std::set<std::string> generated = {"embedded_data.h", "version.h"};  // build/generated/
  std::size_t includes = 0;
  for (const auto& entry : fs::recursive_directory_iterator(source / "checks")) {
    const auto extension = entry.path().extension();
    if (!entry.is_regular_file() || (extension != ".cpp" && extension != ".h")) continue;
    std::ifstream stream(entry.path());
    int number = 0;
    for (std::string line; std::getline(stream, line);) {
      ++number;
      std::smatch match;
      if (!std::regex_search(line, match, kInclude)) continue;
      ++includes;
      const std::string header = match[2];
      const auto where = fs::relative(entry.path(), source).string() + ":" + std::to_string(number) + " ";
      if (match[1] == "<") {  // a system or Debian library header, never one of the engine's
        EXPECT_FALSE(fs::exists(source / "src" / header)) << where << "reaches src/" << header;
        continue;
      }
      const bool api = header.starts_with("rocm_doctor/") && fs::exists(source / "include" / header);
      const bool sibling = header.find("..") == std::string::npos && fs::exists(entry.path().parent_path() / header);
      EXPECT_TRUE(api || sibling || generated.contains(header))
          << where << "includes \"" << header << "\": checks see include/rocm_doctor/, checks/ and "
          << "the generated headers only (docs/architecture.md)";
    }
  }
  EXPECT_GT(includes, 200U) << "the include scan found too little: is the pattern stale?";
}

// Every check has its unit test, named after it: tests/checks/<id with _>_test.cpp.
TEST(Conventions, EveryCheckHasItsTestFile) {
  for (const Check* check : registered_checks()) {
    std::string name(check->id());
    std::replace(name.begin(), name.end(), '-', '_');
    const auto test = fs::path(ROCM_DOCTOR_SOURCE_DIR) / "tests" / "checks" / (name + "_test.cpp");
    EXPECT_TRUE(fs::exists(test)) << check->id() << " has no " << test.string();
  }
}

}  // namespace
}  // namespace rocm_doctor

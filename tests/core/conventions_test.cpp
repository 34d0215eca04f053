// Rules of the code base that a compiler does not check (docs/adding-a-check.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
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

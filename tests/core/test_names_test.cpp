// Test listings (ctest -N, --gtest_list_tests, CI logs) must say what each case
// is: a parameterised suite whose parameter has no PrintTo would list a hex dump
// ("GetParam() = 208-byte object <16-51 ...>") instead of its case.
#include <gtest/gtest.h>

#include <string>

namespace rocm_doctor {
namespace {

TEST(TestNames, NoParameterIsListedAsAHexDump) {
  const auto& unit = *::testing::UnitTest::GetInstance();
  int parameterised = 0;
  for (int s = 0; s < unit.total_test_suite_count(); ++s) {
    const auto& suite = *unit.GetTestSuite(s);
    for (int t = 0; t < suite.total_test_count(); ++t) {
      const auto& info = *suite.GetTestInfo(t);
      if (info.value_param() == nullptr) continue;
      ++parameterised;
      const std::string param = info.value_param();
      EXPECT_EQ(param.find("-byte object <"), std::string::npos)
          << suite.name() << "." << info.name() << " lists its parameter as " << param.substr(0, 60)
          << "...: give the parameter type a PrintTo(const T&, std::ostream*) that names the case";
    }
  }
  EXPECT_GT(parameterised, 0) << "no parameterised test found: is the listing API stale?";
}

}  // namespace
}  // namespace rocm_doctor

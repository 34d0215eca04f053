# Included by ctest (TEST_INCLUDE_FILES, tests/CMakeLists.txt) when the build has
# ROCM_DOCTOR_TEST_PER_SUITE: one CTest test per GoogleTest suite, so a
# sanitizer build starts its test binary ~190 times instead of ~1,835 (an
# ASan+UBSan test binary takes about a second to start and to leak-check at exit).
# Inputs, set by the generated wrapper: GTEST_SUITES_BINARY, GTEST_SUITES_TIMEOUT.
execute_process(COMMAND "${GTEST_SUITES_BINARY}" --gtest_list_tests
                OUTPUT_VARIABLE listing RESULT_VARIABLE status TIMEOUT 120)
if(NOT status EQUAL 0)
  # A test that fails, naming why, rather than a silently empty suite.
  add_test([=[rocm_doctor_tests.listing]=] "${GTEST_SUITES_BINARY}" --gtest_list_tests)
  return()
endif()
string(REPLACE "\n" ";" lines "${listing}")
foreach(line IN LISTS lines)
  # Suite lines start in the first column and end with '.' (a typed suite adds "  # TypeParam = ...").
  if(line MATCHES "^([^ #][^ ]*)\\.( .*)?$")
    set(suite "${CMAKE_MATCH_1}")
    add_test("${suite}" "${GTEST_SUITES_BINARY}" "--gtest_filter=${suite}.*" --gtest_brief=1)
    set_tests_properties("${suite}" PROPERTIES TIMEOUT "${GTEST_SUITES_TIMEOUT}")
  endif()
endforeach()

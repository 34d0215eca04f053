// The user's error text (why TEXT, --log, run --) against the whole error
// signature catalogue, and the report section built from the matches.
#include "rocm_doctor/symptom.h"

#include <algorithm>

#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocm_doctor;
  const auto text = fuzz::as_text(data, size);
  const auto matches = symptom::default_matcher().scan(text);
  const auto lines = 1 + static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  for (const auto& match : matches) {
    fuzz::require(match.offset <= text.size(), "a match starts inside the text");
    fuzz::require(match.line >= 1 && match.line <= lines, "a match names a line of the text");
  }
  const auto section = symptom::symptom_section(matches, Report{}, "fuzz");
  fuzz::require(section["causes"].empty(), "an empty report backs no cause");
  return 0;
}

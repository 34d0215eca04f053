// /etc/group of a snapshot (or a machine): name:password:gid:members.
#include "fuzz_input.h"
#include "host/account_files.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocm_doctor;
  for (const auto& group : parse_group_file(fuzz::as_text(data, size))) {
    // Formatting what was parsed and parsing it again gives the same entry.
    const auto again = parse_group_file(format_group_line(group));
    fuzz::require(again.size() == 1 && again.front().name == group.name && again.front().gid == group.gid,
                  "a parsed group line formats and parses back");
  }
  return 0;
}

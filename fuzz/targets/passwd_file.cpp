// /etc/passwd of a snapshot (or a machine): name:password:uid:gid:gecos:home:shell.
#include "fuzz_input.h"
#include "host/account_files.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocm_doctor;
  for (const auto& user : parse_passwd_file(fuzz::as_text(data, size))) {
    const auto again = parse_passwd_file(format_passwd_line(user));
    fuzz::require(again.size() == 1 && again.front().name == user.name && again.front().uid == user.uid,
                  "a parsed passwd line formats and parses back");
  }
  return 0;
}

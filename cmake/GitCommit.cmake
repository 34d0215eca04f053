# Run at build time, not at configure time (cmake -P, from the rocm_doctor_git_commit
# target): writes OUTPUT from TEMPLATE with the commit being built, so a binary
# built after a commit reports that commit even when CMake did not re-run.
# configure_file leaves an unchanged file alone, so nothing recompiles unless
# the commit changed. FALLBACK is used where git has no answer (a source tarball).
execute_process(COMMAND git rev-parse --short=12 HEAD
                WORKING_DIRECTORY "${SOURCE_DIR}"
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE failed ERROR_QUIET)
if(failed OR NOT commit)
  set(commit "${FALLBACK}")
endif()
configure_file("${TEMPLATE}" "${OUTPUT}" @ONLY)

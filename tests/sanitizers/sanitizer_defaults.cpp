// Sanitizer options compiled into every instrumented executable (the doctor
// and the test binary) of a ROCM_DOCTOR_SANITIZE build, so a test, a doctor it
// starts and a probe child the doctor starts all stop at the first report,
// whoever runs them (ctest, a developer, CI). Variables such as ASAN_OPTIONS
// still override these.
extern "C" {

// handle_segv/handle_sigbus=0: a vendor library that crashes the probe child must
// end it by the signal, as without ASan, so the probe runner's crash report
// (probe.crash naming SIGSEGV) is what the tests see; ASan's own reports
// (overflows, use after free/scope, leaks) do not depend on these signals.
const char* __asan_default_options() {
  return "detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1:check_initialization_order=1:"
         "strict_init_order=1:strict_string_checks=1:handle_segv=0:handle_sigbus=0";
}

const char* __ubsan_default_options() {
  return "print_stacktrace=1:halt_on_error=1";
}

// Third-party leaks only; every entry of the file says why.
const char* __lsan_default_options() {
  return "suppressions=" ROCM_DOCTOR_LSAN_SUPPRESSIONS ":print_suppressions=0";
}

}  // extern "C"

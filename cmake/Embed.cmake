# rocm_doctor_embed(<symbol> <file> <out-var> [KNOWLEDGE <table>])
# Compiles <file> into the binary as `std::string_view rocm_doctor::embedded::<symbol>()`.
# With KNOWLEDGE, the text is a knowledge table (checks/data/<table>): it registers with
# rocm_doctor/knowledge.h, and <symbol>() answers with the overlaid table once overlays are
# installed (--knowledge DIR, /etc/rocm-doctor/knowledge.d), so no reader needs to know.
# CMake re-runs when the file changes, so edits to data and docs always land.
function(rocm_doctor_embed symbol file out_var)
  cmake_parse_arguments(EMBED "" "KNOWLEDGE" "" ${ARGN})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${file}")
  file(READ "${file}" hex HEX)
  string(LENGTH "${hex}" hex_length)
  math(EXPR byte_count "${hex_length} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  set(out "${CMAKE_CURRENT_BINARY_DIR}/embedded/${symbol}.cpp")
  if(EMBED_KNOWLEDGE)
    string(CONCAT body
      "std::string_view builtin() { return {reinterpret_cast<const char*>(kData), ${byte_count}}; }\n"
      "[[maybe_unused]] const bool kRegistered = ::rocm_doctor::knowledge::register_builtin(\"${EMBED_KNOWLEDGE}\", builtin());\n"
      "}  // namespace\n"
      "std::string_view ${symbol}() { return ::rocm_doctor::knowledge::table(\"${EMBED_KNOWLEDGE}\", builtin()); }\n")
    string(CONCAT declarations
      "namespace rocm_doctor::knowledge {\n"
      "bool register_builtin(std::string_view file, std::string_view text);\n"
      "std::string_view table(std::string_view file, std::string_view builtin);\n"
      "}  // namespace rocm_doctor::knowledge\n")
  else()
    string(CONCAT body
      "}  // namespace\n"
      "std::string_view ${symbol}() { return {reinterpret_cast<const char*>(kData), ${byte_count}}; }\n")
    set(declarations "")
  endif()
  file(WRITE "${out}.tmp"
    "// Generated from ${file} by cmake/Embed.cmake; do not edit.\n"
    "#include <string_view>\n"
    "${declarations}"
    "namespace rocm_doctor::embedded {\n"
    "namespace {\n"
    "const unsigned char kData[] = {${bytes} 0};\n"
    "${body}"
    "}  // namespace rocm_doctor::embedded\n")
  file(COPY_FILE "${out}.tmp" "${out}" ONLY_IF_DIFFERENT)
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# rocm_doctor_embed(<symbol> <file> <out-var>)
# Compiles <file> into the binary as `std::string_view rocm_doctor::embedded::<symbol>()`.
# CMake re-runs when the file changes, so edits to data and docs always land.
function(rocm_doctor_embed symbol file out_var)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${file}")
  file(READ "${file}" hex HEX)
  string(LENGTH "${hex}" hex_length)
  math(EXPR byte_count "${hex_length} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  set(out "${CMAKE_CURRENT_BINARY_DIR}/embedded/${symbol}.cpp")
  file(WRITE "${out}.tmp"
    "// Generated from ${file} by cmake/Embed.cmake; do not edit.\n"
    "#include <string_view>\n"
    "namespace rocm_doctor::embedded {\n"
    "namespace { const unsigned char kData[] = {${bytes} 0}; }\n"
    "std::string_view ${symbol}() { return {reinterpret_cast<const char*>(kData), ${byte_count}}; }\n"
    "}  // namespace rocm_doctor::embedded\n")
  file(COPY_FILE "${out}.tmp" "${out}" ONLY_IF_DIFFERENT)
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

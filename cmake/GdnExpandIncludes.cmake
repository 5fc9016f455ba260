#===- GdnExpandIncludes.cmake - `// @include FILE` in kernel templates ----===#
# gdn_expand_includes(<text-var> <dir>) replaces each line `// @include FILE`
# (leading spaces allowed) of the text in <text-var> with the contents of
# <dir>/FILE, and appends that path to GDN_EXPANDED_INCLUDES (configure
# dependencies). One level: an included file does not include.
# kernels/CMakeLists.txt calls it on every template; the lit tests run this
# file as a script: cmake -P GdnExpandIncludes.cmake IN OUT.
function(gdn_expand_includes text_var dir)
  # Whole lines only (a mention inside a comment is not an include): the
  # text gets a leading newline so that its first line is one too.
  set(_text "\n${${text_var}}")
  set(_deps ${GDN_EXPANDED_INCLUDES})
  string(REGEX MATCHALL "\n[ ]*// @include [^\n]*" _lines "${_text}")
  foreach(_line ${_lines})
    string(REGEX REPLACE "^\n[ ]*// @include " "" _file "${_line}")
    string(STRIP "${_file}" _file)
    if(NOT EXISTS "${dir}/${_file}")
      message(FATAL_ERROR "@include: ${dir}/${_file} does not exist")
    endif()
    file(READ "${dir}/${_file}" _inc)
    string(REPLACE "${_line}" "\n${_inc}" _text "${_text}")
    list(APPEND _deps "${dir}/${_file}")
  endforeach()
  string(SUBSTRING "${_text}" 1 -1 _text)
  set(${text_var} "${_text}" PARENT_SCOPE)
  set(GDN_EXPANDED_INCLUDES ${_deps} PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  # cmake -P <this file> IN OUT
  if(NOT CMAKE_ARGC EQUAL 5)
    message(FATAL_ERROR "usage: cmake -P GdnExpandIncludes.cmake IN OUT")
  endif()
  file(READ "${CMAKE_ARGV3}" _in)
  get_filename_component(_dir "${CMAKE_ARGV3}" DIRECTORY)
  gdn_expand_includes(_in "${_dir}")
  file(WRITE "${CMAKE_ARGV4}" "${_in}")
endif()

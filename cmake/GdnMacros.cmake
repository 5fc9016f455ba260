#===- GdnMacros.cmake - helpers shared by the gdn build -----------------===#

# gdn_mlir_libs(<out> <libs...>): one switch between static MLIR libraries
# and libMLIR.so. Never mix the two in one build: two copies of MLIR's global
# state (TypeIDs, registries) would exist.
function(gdn_mlir_libs out)
  if(GDN_LINK_MLIR_DYLIB)
    set(${out} MLIR PARENT_SCOPE)
  else()
    set(${out} ${ARGN} PARENT_SCOPE)
  endif()
endfunction()

# gdn_add_unittest(<name> <sources...>): a GoogleTest binary in
# ${PROJECT_BINARY_DIR}/unittests, run by the lit suite test/unit.
function(gdn_add_unittest name)
  add_executable(${name} ${ARGN})
  set_target_properties(${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/unittests)
  target_link_libraries(${name} PRIVATE GTest::gtest GTest::gtest_main)
  if(TARGET GdnUnitTests)
    add_dependencies(GdnUnitTests ${name})
  endif()
endfunction()

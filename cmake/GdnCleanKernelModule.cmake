#===- GdnCleanKernelModule.cmake - forget one kernel module's outputs -----===#
#
# cmake -DDIR=<kernel dir> -DMODULE=<module> -P GdnCleanKernelModule.cmake
#
# Removes DIR/MODULE.ptx and every DIR/*.manifest whose `ptx = MODULE.ptx`,
# so that a kernel renamed or removed from a module (or a module removed
# from the build) leaves no stale manifest for gdn-run to pick up. Run
# before each compilation of the module and, at configure time, for modules
# that no longer exist.
#===----------------------------------------------------------------------===#
if(NOT DIR OR NOT MODULE)
  message(FATAL_ERROR "GdnCleanKernelModule: set DIR and MODULE")
endif()
file(GLOB _manifests "${DIR}/*.manifest")
foreach(_m ${_manifests})
  if(NOT EXISTS "${_m}")
    continue() # another module's build replaced it meanwhile
  endif()
  file(STRINGS "${_m}" _ptx REGEX "^ptx = ")
  if("${_ptx}" STREQUAL "ptx = ${MODULE}.ptx")
    file(REMOVE "${_m}")
  endif()
endforeach()
file(REMOVE "${DIR}/${MODULE}.ptx" "${DIR}/${MODULE}.stamp")

# The library's private dependencies, declared once each. Every one is
#   - linked into the library (GLD_PRIVATE_LINK_TARGETS),
#   - named in gldelegate.pc's Requires.private (GLD_PC_REQUIRES_PRIVATE),
#   - found again by the installed gldelegateConfig.cmake when the library
#     is static (GLD_CONFIG_FIND_DEPS), since an app then links them itself.
# A new dependency (e.g. a CPU kernel library) is one more call here.
set(GLD_PRIVATE_LINK_TARGETS)
set(GLD_PC_REQUIRES_PRIVATE)
set(GLD_CONFIG_FIND_DEPS)

# gld_private_pkg_module(<PREFIX> <pkg-config module>): PkgConfig::<PREFIX>.
macro(gld_private_pkg_module prefix module)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(${prefix} REQUIRED IMPORTED_TARGET ${module})
  list(APPEND GLD_PRIVATE_LINK_TARGETS PkgConfig::${prefix})
  list(APPEND GLD_PC_REQUIRES_PRIVATE ${module})
  string(APPEND GLD_CONFIG_FIND_DEPS
    "  pkg_check_modules(${prefix} REQUIRED IMPORTED_TARGET ${module})\n")
endmacro()

# gld_private_package(<pkg-config module> <find_package args...> TARGETS <t>...):
# a CMake package; links the first of the targets that exists (a shared
# library before a static archive, which may lack -fPIC). The module is what
# gldelegate.pc names.
macro(gld_private_package module)
  cmake_parse_arguments(_gld "" "" "TARGETS" ${ARGN})
  find_package(${_gld_UNPARSED_ARGUMENTS} REQUIRED)
  set(_gld_found)
  foreach(_gld_t ${_gld_TARGETS})
    if(NOT _gld_found AND TARGET ${_gld_t})
      set(_gld_found ${_gld_t})
    endif()
  endforeach()
  if(NOT _gld_found)
    message(FATAL_ERROR "${module}: none of the targets ${_gld_TARGETS} was found")
  endif()
  list(APPEND GLD_PRIVATE_LINK_TARGETS ${_gld_found})
  list(APPEND GLD_PC_REQUIRES_PRIVATE ${module})
  string(REPLACE ";" " " _gld_args "${_gld_UNPARSED_ARGUMENTS}")
  string(APPEND GLD_CONFIG_FIND_DEPS "  find_dependency(${_gld_args})\n")
endmacro()

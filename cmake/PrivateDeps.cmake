# The library's private dependencies, declared once each. Every one is
#   - linked into the library (GLD_PRIVATE_LINK_TARGETS),
#   - named in gldelegate.pc's Requires.private (GLD_PC_REQUIRES_PRIVATE),
#   - found again by the installed gldelegateConfig.cmake when the library
#     is static (GLD_CONFIG_FIND_DEPS), since an app then links them itself.
# A new dependency (e.g. a CPU kernel library) is one more call here.
set(GLD_PRIVATE_LINK_TARGETS)
set(GLD_PC_REQUIRES_PRIVATE)
set(GLD_CONFIG_FIND_DEPS)
set(GLD_PC_LIBS_PRIVATE)

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

# gld_private_library(<name> <library> <header>... <hint>): a library found
# by its file and headers alone, as Debian ships XNNPACK (no pkg-config or
# CMake files): the imported target gld_<name>, -l<library> in gldelegate.pc's
# Libs.private, and the same search in the installed package for static use.
# <hint> says how to install it when missing.
macro(gld_private_library name library)
  set(_gld_headers ${ARGN})
  list(POP_BACK _gld_headers _gld_hint)
  find_library(GLD_${name}_LIBRARY ${library})
  if(NOT GLD_${name}_LIBRARY)
    message(FATAL_ERROR "lib${library} not found: ${_gld_hint}")
  endif()
  set(_gld_dirs)
  foreach(_gld_h ${_gld_headers})
    find_path(GLD_${name}_${_gld_h}_DIR ${_gld_h})
    if(NOT GLD_${name}_${_gld_h}_DIR)
      message(FATAL_ERROR "${_gld_h} not found: ${_gld_hint}")
    endif()
    list(APPEND _gld_dirs ${GLD_${name}_${_gld_h}_DIR})
  endforeach()
  add_library(gld_${name} INTERFACE IMPORTED GLOBAL)
  target_include_directories(gld_${name} INTERFACE ${_gld_dirs})
  target_link_libraries(gld_${name} INTERFACE ${GLD_${name}_LIBRARY})
  list(APPEND GLD_PRIVATE_LINK_TARGETS gld_${name})
  string(APPEND GLD_PC_LIBS_PRIVATE " -l${library}")
  string(APPEND GLD_CONFIG_FIND_DEPS
    "  find_library(GLD_${name}_LIBRARY ${library} REQUIRED)\n"
    "  if(NOT TARGET gld_${name})\n"
    "    add_library(gld_${name} INTERFACE IMPORTED)\n"
    "    target_link_libraries(gld_${name} INTERFACE \${GLD_${name}_LIBRARY})\n"
    "  endif()\n")
endmacro()

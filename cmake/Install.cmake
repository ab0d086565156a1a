# Install rules: headers, the library, the tools, a CMake package
# (find_package(gldelegate) -> gldelegate::gldelegate) and gldelegate.pc.
# Every installed file that names a path does so relative to where it lies,
# so `cmake --install build --prefix P` works for any P.
include(CMakePackageConfigHelpers)
set(GLD_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/gldelegate)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/gl_delegate/include/gldelegate
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
install(TARGETS gldelegate EXPORT gldelegateTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT lib NAMELINK_COMPONENT dev
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(EXPORT gldelegateTargets NAMESPACE gldelegate:: DESTINATION ${GLD_CMAKE_DIR} COMPONENT dev)

# The package finds the private dependencies again only for a static library.
if(GLD_SHARED)
  set(GLD_CONFIG_STATIC_DEPS "")
else()
  set(GLD_CONFIG_STATIC_DEPS "find_package(PkgConfig REQUIRED)\n${GLD_CONFIG_FIND_DEPS}")
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gldelegateConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/gldelegateConfig.cmake INSTALL_DESTINATION ${GLD_CMAKE_DIR})
# 0.x: a minor version may change the API, so only the same minor matches.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/gldelegateConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/gldelegateConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/gldelegateConfigVersion.cmake
        DESTINATION ${GLD_CMAKE_DIR} COMPONENT dev)

string(REPLACE ";" " " GLD_PC_REQUIRES_PRIVATE_LINE "${GLD_PC_REQUIRES_PRIVATE}")
file(RELATIVE_PATH GLD_PC_TO_PREFIX
  ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
configure_file(${PROJECT_SOURCE_DIR}/cmake/gldelegate.pc.in ${CMAKE_CURRENT_BINARY_DIR}/gldelegate.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/gldelegate.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

# The command-line tools (tools/gld_*.cc), linked statically with the library.
if(GLD_BUILD_TOOLS)
  get_property(gld_tool_targets DIRECTORY ${PROJECT_SOURCE_DIR}/tools PROPERTY BUILDSYSTEM_TARGETS)
  list(FILTER gld_tool_targets INCLUDE REGEX "^gld_[a-z_]+$")
  list(REMOVE_ITEM gld_tool_targets gld_tool_common)
  install(TARGETS ${gld_tool_targets} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
endif()

# A Debian package of the install rules (cmake/Install.cmake), made from a
# configured and built tree with `cpack -G DEB` (scripts/test_packages.sh):
# gldelegate_<version>_<arch>.deb holds the library, the headers, the CMake
# package, gldelegate.pc and the tools, installed under /usr.
#   Depends: what dpkg-shlibdeps finds the library and the tools linking
#   (libepoxy, XNNPACK, spdlog, fmt, flatbuffers, xxhash, libstdc++...), the
#   GL libraries libepoxy opens at run time (libEGL, libGLESv2: not linked,
#   so not found by dpkg-shlibdeps), and the -dev packages of gldelegate.pc's
#   Requires.private, which pkg-config resolves even for a shared link.
#   Recommends: Mesa's EGL and drivers (llvmpipe without a GPU; a machine
#   with another vendor's EGL does without them).
set(CPACK_PACKAGE_NAME gldelegate)
set(CPACK_PACKAGE_VENDOR "gldelegate")
set(CPACK_PACKAGE_CONTACT "gldelegate maintainers <gldelegate@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "TensorFlow Lite models on OpenGL ES 3.1 compute shaders, with CPU kernels as fallback")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# The Python extension is the wheel's (pyproject.toml), not the package's.
set(CPACK_COMPONENTS_ALL lib dev tools)
set(CPACK_DEB_COMPONENT_INSTALL OFF)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS
  "libegl1, libgles2, pkg-config, libepoxy-dev, libxxhash-dev, libflatbuffers-dev, libspdlog-dev")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libegl-mesa0, libgl1-mesa-dri")
include(CPack)

# The part the Debian cross toolchain files share: GLD_CROSS_TRIPLE's
# compilers, the search rules of a sysroot, and pkg-config pointed at the
# target's .pc files.
set(CMAKE_C_COMPILER ${GLD_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${GLD_CROSS_TRIPLE}-g++)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
if(CMAKE_SYSROOT)
  set(ENV{PKG_CONFIG_SYSROOT_DIR} ${CMAKE_SYSROOT})
  set(ENV{PKG_CONFIG_LIBDIR}
    "${CMAKE_SYSROOT}/usr/lib/${GLD_CROSS_TRIPLE}/pkgconfig:${CMAKE_SYSROOT}/usr/share/pkgconfig")
else()
  set(PKG_CONFIG_EXECUTABLE ${GLD_CROSS_TRIPLE}-pkg-config CACHE FILEPATH "pkg-config of the target")
  set(CMAKE_LIBRARY_ARCHITECTURE ${GLD_CROSS_TRIPLE})
endif()

# Cross build for arm-linux-gnueabihf (Debian 12: crossbuild-essential-armhf).
#   cmake -S . -B build-armhf -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/arm-linux-gnueabihf.cmake \
#     -DCMAKE_SYSROOT=/work/roots/armhf
# CMAKE_SYSROOT: a root of the target with the project's -dev packages
# installed (scripts/make_target_root.sh); without it, the target's
# multiarch -dev packages installed on the host (dpkg --add-architecture armhf).
# Programs (flatc) are the host's; libraries, headers and packages the target's.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(GLD_CROSS_TRIPLE arm-linux-gnueabihf)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
# GCC's note that passing some structs by value changed in GCC 7.1 (-Wpsabi)
# concerns code built by an older GCC only; the whole build is one compiler.
set(CMAKE_CXX_FLAGS_INIT "-Wno-psabi")

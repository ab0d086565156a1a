# Cross build for aarch64-linux-gnu (Debian 12: crossbuild-essential-arm64).
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
#     -DCMAKE_SYSROOT=/work/roots/arm64
# CMAKE_SYSROOT: a root of the target with the project's -dev packages
# installed (scripts/make_target_root.sh); without it, the target's
# multiarch -dev packages installed on the host (dpkg --add-architecture arm64).
# Programs (flatc) are the host's; libraries, headers and packages the target's.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(GLD_CROSS_TRIPLE aarch64-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)

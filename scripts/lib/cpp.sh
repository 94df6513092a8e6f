# Sourced after toolchain.sh by the scripts that build the C++ face: a C++20 compiler,
# google-benchmark and nlohmann/json (the test reads the vectors with it), Debian's
# packages installed where they are missing and we may.
ensure_command g++ g++ "for bindings/cpp (C++20)"
ensure_file /usr/include/benchmark/benchmark.h libbenchmark-dev "for bindings/cpp's benchmark"
ensure_file /usr/include/nlohmann/json.hpp nlohmann-json3-dev "for bindings/cpp's vector test"

# cpp_build NAME SOURCE [FLAGS…]: compile SOURCE against linesig.hpp and the static C
# ABI library (target/release/liblinesig_ffi.a) to target/cpp/NAME.
cpp_build() {
    local name=$1 source=$2
    shift 2
    mkdir -p target/cpp
    g++ -std=c++20 -O2 -Wall -Wextra -Werror -I bindings/cpp/include -I crates/linesig-ffi/include \
        -o "target/cpp/$name" "$source" target/release/liblinesig_ffi.a "$@" -lpthread -ldl -lm
}

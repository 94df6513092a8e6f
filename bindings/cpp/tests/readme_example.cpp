// The README's C++ example (target/cpp/readme_example.inc, cut from the README by
// scripts/test-cpp.sh) inside a program that gives it its inputs (a seed, a message) and
// checks its verdict.
#include <cstdio>
#include <vector>

#include "linesig.hpp"

int main() {
    const std::vector<uint8_t> seed(32, 1), msg = {'h', 'e', 'l', 'l', 'o'};
#include "readme_example.inc"
    return verdicts.all_valid() ? 0 : 1;  // the names the example declares are in scope
}

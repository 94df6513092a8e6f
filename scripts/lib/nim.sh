# Sourced after toolchain.sh by the scripts that build the Nim face: a Nim compiler (1.6
# or newer), Debian's `nim` package installed where it is missing and we may.
ensure_command nim nim "for bindings/nim (Nim 1.6 or newer)"

# nim_build NAME SOURCE [FLAGS…]: compile SOURCE (release) to target/nim/NAME, its C
# files under target/nimcache/NAME.
nim_build() {
    local name=$1 source=$2
    shift 2
    mkdir -p target/nim
    nim c --hints:off -d:release --gc:orc --threads:on --nimcache:"target/nimcache/$name" -o:"target/nim/$name" "$@" "$source"
}

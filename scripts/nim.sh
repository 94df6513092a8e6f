# Sourced by the scripts that build the Nim face: make sure a Nim compiler (1.6 or newer)
# is on PATH, installing Debian's `nim` package where it is missing and we may (as root),
# as toolchain.sh does m4.
if ! command -v nim >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "linesig: installing Nim (Debian's nim package) for bindings/nim" >&2
        apt-get install -y -q nim >/dev/null 2>&1 \
            || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q nim >/dev/null; }
    else
        echo "linesig: nim not found; install Nim 1.6 or newer (e.g. apt-get install nim) to build bindings/nim" >&2
        exit 1
    fi
fi

# nim_build NAME SOURCE [FLAGS…]: compile SOURCE (release) to target/nim/NAME, its C
# files under target/nimcache/NAME.
nim_build() {
    local name=$1 source=$2
    shift 2
    mkdir -p target/nim
    nim c --hints:off -d:release --gc:orc --threads:on --nimcache:"target/nimcache/$name" -o:"target/nim/$name" "$@" "$source"
}

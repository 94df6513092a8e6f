# Sourced by the other scripts: make sure a Rust toolchain (stable, >= 1.89: the AVX-512 intrinsics) is on PATH.
# A fresh machine of the project's kind has one; elsewhere, say how to get it.
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi
if ! command -v cargo >/dev/null 2>&1; then
    echo "linesig: cargo not found; install Rust 1.89 or newer (https://rustup.rs) and retry" >&2
    exit 1
fi
# ensure_command COMMAND PACKAGE PURPOSE: install Debian's PACKAGE where COMMAND is
# missing and we may (as root, with apt-get); else say what to install, and stop.
ensure_command() {
    command -v "$1" >/dev/null 2>&1 || apt_install "$1" "$2" "$3"
}
# ensure_file PATH PACKAGE PURPOSE: the same for a file a package provides (a header).
ensure_file() {
    [ -e "$1" ] || apt_install "$1" "$2" "$3"
}
apt_install() {
    local what=$1 package=$2 purpose=$3
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "linesig: installing $package $purpose" >&2
        apt-get install -y -q "$package" >/dev/null 2>&1 \
            || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q "$package" >/dev/null; }
    else
        echo "linesig: $what not found; install it (e.g. apt-get install $package) $purpose" >&2
        exit 1
    fi
}
# GMP (Paillier's big integers) is built from source by gmp-mpfr-sys, whose configure
# needs m4.
ensure_command m4 m4 "for GMP's build"

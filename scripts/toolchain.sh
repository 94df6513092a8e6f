# Sourced by the other scripts: make sure a Rust toolchain (stable, >= 1.89: the AVX-512 intrinsics) is on PATH.
# A fresh machine of the project's kind has one; elsewhere, say how to get it.
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi
if ! command -v cargo >/dev/null 2>&1; then
    echo "linesig: cargo not found; install Rust 1.89 or newer (https://rustup.rs) and retry" >&2
    exit 1
fi
# GMP (Paillier's big integers) is built from source by gmp-mpfr-sys, whose configure
# needs m4. Install it where it is missing and we may (Debian, as root).
if ! command -v m4 >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "linesig: installing m4 for GMP's build" >&2
        apt-get install -y -q m4 >/dev/null 2>&1 \
            || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q m4 >/dev/null; }
    else
        echo "linesig: m4 not found; install it (e.g. apt-get install m4) so GMP can build" >&2
        exit 1
    fi
fi

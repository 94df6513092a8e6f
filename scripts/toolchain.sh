# Sourced by the other scripts: make sure a Rust toolchain (stable, >= 1.85) is on PATH.
# A fresh machine of the project's kind has one; elsewhere, say how to get it.
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi
if ! command -v cargo >/dev/null 2>&1; then
    echo "linesig: cargo not found; install Rust 1.85 or newer (https://rustup.rs) and retry" >&2
    exit 1
fi

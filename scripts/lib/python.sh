# Sourced by the other scripts: a virtual environment for the Python package
# (bindings/python) with its build and test requirements, and the package built into it
# in release mode. Sets LINESIG_PYTHON to the environment's interpreter.
LINESIG_VENV="${LINESIG_VENV:-$PWD/target/python-venv}"
if [ ! -x "$LINESIG_VENV/bin/python" ]; then
    if ! command -v python3 >/dev/null 2>&1; then
        echo "linesig: python3 not found; install Python 3.9 or newer" >&2
        exit 1
    fi
    python3 -m venv "$LINESIG_VENV"
fi
"$LINESIG_VENV/bin/python" -m pip install -q --disable-pip-version-check \
    "maturin>=1.5,<2" "pytest>=7" "numpy>=1.21" "pyarrow>=14" "phe==1.5.0" "gmpy2>=2.1" \
    "ray[data]>=2.9" "aiohttp"
(cd bindings/python && VIRTUAL_ENV="$LINESIG_VENV" "$LINESIG_VENV/bin/maturin" develop --release --locked -q)
export LINESIG_PYTHON="$LINESIG_VENV/bin/python"

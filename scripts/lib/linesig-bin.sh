# Sourced by scripts that run the `linesig` command (after toolchain.sh): sets $linesig to
# $LINESIG_BIN where given (scripts/test.sh passes the binary its tests built), else
# builds target/release/linesig and names it.
if [ -n "${LINESIG_BIN:-}" ]; then
    linesig=$LINESIG_BIN
else
    cargo build --release --locked -p linesig-cli --quiet
    linesig=target/release/linesig
fi

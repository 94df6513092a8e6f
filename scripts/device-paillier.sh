#!/usr/bin/env bash
# The Paillier checks on a borrowed AVX-512 IFMA machine, from what scripts/device-pack.sh
# packed into .device/ (that machine has no Rust toolchain, no network, and a python3 of
# its own without phe): the kernel's differential suites against GMP, then
# `linesig bench --scheme paillier2048` and `paillier3072` with phe (+gmpy2) in the same
# run, so that the ratios are to phe itself rather than to GMP as its stand-in.
#
# phe and gmpy2 come from the wheels in .device/wheels, unpacked for this python3's
# version into a throwaway folder on PYTHONPATH (a wheel is a zip archive; gmpy2's carries
# its own GMP beside its module), so nothing is installed on the machine.
#
#   CORES=4,5 BITS="2048 3072" bash scripts/device-paillier.sh
#
# CORES: the cores the bench is pinned to (two: one-worker rows and the two-worker row);
# BITS: the key sizes; REPEAT: runs per rate (the bench reports the median).
set -euo pipefail
cd "$(dirname "$0")/.."
cores=${CORES:-4,5}
bits_list=${BITS:-2048 3072}
repeat=${REPEAT:-3}
python=${PYTHON:-python3}
bin=.device/bin

# The first processor's family, model and model name (the CPU every number must name).
grep -m3 -E '^(cpu family|model|model name)\s*:' /proc/cpuinfo || true
grep -qw avx512ifma /proc/cpuinfo || echo "note: this CPU has no AVX-512 IFMA; the kernel's rows run on GMP"

"$bin/t_linesig_paillier" -q
"$bin/t_paillier" -q

tag=$("$python" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT
shopt -s nullglob
wheels=(.device/wheels/phe-*.whl .device/wheels/gmpy2-*-"$tag"-*.whl)
if [ "${#wheels[@]}" -eq 2 ]; then
  for wheel in "${wheels[@]}"; do "$python" -m zipfile -e "$wheel" "$site"; done
  export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
  yardstick=()
else
  # Without phe the bench would stop; GMP one call at a time is phe's stand-in then.
  echo "note: no packed phe/gmpy2 wheels for $python ($tag): no phe rows; linesig's one-call rows (GMP, as phe) are the yardstick"
  yardstick=(--yardstick none)
fi
export LINESIG_PYTHON="$python"

for bits in $bits_list; do
  taskset -c "$cores" "$bin/linesig" bench --scheme "paillier$bits" --workers 2 \
    --repeat "$repeat" "${yardstick[@]}"
done

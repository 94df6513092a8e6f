#!/usr/bin/env bash
# Every IFMA check in one run on a borrowed AVX-512 IFMA machine (the `device` tool's host),
# from what scripts/device-pack.sh packed into .device/: the CPU and its core layout, the
# Ed25519 suites (every vector under every policy, the differential tests against
# curve25519-dalek, the engine; on the `avx512` backend there), the ed25519-simd yardstick
# at 32 and 1,232-byte messages, then scripts/device-paillier.sh (the Paillier kernel
# suites, both key sizes' bench with phe in the same run). About 3 minutes on an Emerald
# Rapids Xeon; with the device tool, for example:
#
#   run: bash scripts/device-check.sh     (carry [".device"], timeout_s 450)
#
# The bench is pinned to two CPUs on distinct cores (so that the two-worker rows do not
# share one core's multipliers), from CPU ${FIRST_CPU:-4} up: the first few of a shared VM
# tend to take its interrupts. The log is also written to $OUT/device.log where the
# device tool sets $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=.device/bin
[ -x "$bin/linesig" ] || { echo "no .device/bin/linesig: run scripts/device-pack.sh first" >&2; exit 2; }
if [ -n "${OUT:-}" ]; then exec > >(tee "$OUT/device.log") 2>&1; fi
status=0

echo "== CPU"
lscpu | grep -iE 'model name|^cpu\(s\)|thread|socket|family|^model:|numa node0'
grep -ow -e avx512ifma -e avx512f /proc/cpuinfo | sort -u | paste -sd' '
cores=$(lscpu -p=CPU,CORE | grep -v '^#' |
  awk -F, -v first="${FIRST_CPU:-4}" '$1 >= first && !seen[$2]++ { print $1 }' | head -2 | paste -sd,)
# Fewer than two such CPUs (a small VM): the first two, whatever cores they are on.
case $cores in *,*) ;; *) cores=$(lscpu -p=CPU | grep -v '^#' | head -2 | paste -sd,) ;; esac
one=${cores%%,*}
echo "bench CPUs: $cores"

echo "== Ed25519 suites"
export LINESIG_VECTORS_DIR=$PWD/.device/vectors
for suite in linesig vectors differential engine; do
  "$bin/t_$suite" -q 2>&1 | grep -E 'test result|FAILED|panicked'
  rc=${PIPESTATUS[0]}
  echo "t_$suite: exit $rc"
  [ "$rc" -eq 0 ] || status=1
done

echo "== ed25519-simd yardstick, one thread on CPU $one"
if [ -x "$bin/yardstick-ed25519-simd" ]; then
  for size in 32 1232; do
    taskset -c "$one" "$bin/yardstick-ed25519-simd" 20000 "$size" 5 || status=1
  done
else
  echo "not packed (scripts/yardstick-ed25519-simd.sh builds it on an IFMA machine)"
fi

echo "== Paillier"
CORES=$cores bash scripts/device-paillier.sh || status=1

echo "== $([ "$status" -eq 0 ] && echo "all passed" || echo "FAILED (see above)")"
exit "$status"

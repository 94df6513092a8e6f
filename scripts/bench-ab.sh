#!/usr/bin/env bash
# Same-run before/after of two linesig binaries (a change that should not move speed):
# the default Ed25519 bench, ML-DSA-44, leanSig devnet-4, aggregation at 64 and
# Paillier-2048, alternated binary by binary within each round, so that a noisy host
# moves both alike. Prints one line per run: which, workload, scheme, count,
# throughput per second, status.
#   scripts/bench-ab.sh OLD_BINARY NEW_BINARY [ROUNDS]
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: scripts/bench-ab.sh OLD_BINARY NEW_BINARY [ROUNDS]" >&2; exit 2; }
OLD=$1
NEW=$2
ROUNDS=${3:-3}
parse='
import json, sys
for line in sys.stdin:
    line = line.strip()
    if line.startswith("{"):
        d = json.loads(line)
        print(sys.argv[1], d["scheme"], d.get("count"), round(d["throughput_per_s"], 1), d["status"], flush=True)
'
run() { # label binary args...
    local label=$1 binary=$2
    shift 2
    "$binary" bench --json --yardstick none "$@" 2>/dev/null | python3 -c "$parse" "$label"
}
for _ in $(seq 1 "$ROUNDS"); do
    for which in old new; do
        binary=$OLD
        [ "$which" = new ] && binary=$NEW
        run "$which default" "$binary" --count 20000 --repeat 3
        run "$which mldsa44" "$binary" --scheme mldsa44 --count 4000 --repeat 3
        run "$which devnet4" "$binary" --scheme leansig-devnet4 --count 512 --repeat 3 --op-iterations 5
        run "$which agg64" "$binary" --scheme leansig-devnet4 --aggregate 64 --repeat 2
        run "$which paillier2048" "$binary" --scheme paillier2048 --count 128 --repeat 3 --op-iterations 5
    done
done

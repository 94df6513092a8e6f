"""Python's overhead on batch verification, measured in one process: the same seeded
Ed25519 signatures (N, 4 messages per key, 32-byte messages) verified through
``linesig.Engine.verify`` from lists of bytes, numpy and Arrow columns, against the Rust
engine alone on the same columns (``time_engine``). Medians of --repeat runs.

    python bindings/python/bench_engine.py [--count 100000] [--workers N] [--repeat 5]

Needs ``cryptography`` (to sign) and ``pyarrow``.
"""

import argparse
import random
import statistics
import time

import numpy as np
import pyarrow as pa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

import linesig


def signatures(count, seed):
    rng = random.Random(seed)
    pks, msgs, sigs = [], [], []
    key = None
    for i in range(count):
        if i % 4 == 0:
            key = Ed25519PrivateKey.from_private_bytes(rng.randbytes(32))
            pk = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        msg = rng.randbytes(32)
        pks.append(pk)
        msgs.append(msg)
        sigs.append(key.sign(msg))
    return pks, msgs, sigs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()

    t = time.perf_counter()
    pks, msgs, sigs = signatures(args.count, args.seed)
    print("signed %d in %.1f s" % (args.count, time.perf_counter() - t))
    engine = linesig.Engine(workers=args.workers)
    print(engine)
    layouts = {
        "list of bytes": (pks, msgs, sigs),
        "numpy uint8 (N, 32/64)": (
            np.frombuffer(b"".join(pks), np.uint8).reshape(-1, 32),
            np.frombuffer(b"".join(msgs), np.uint8).reshape(-1, 32),
            np.frombuffer(b"".join(sigs), np.uint8).reshape(-1, 64),
        ),
        "arrow fixed_size_binary": (
            pa.array(pks, pa.binary(32)),
            pa.array(msgs, pa.binary()),
            pa.array(sigs, pa.binary(64)),
        ),
    }
    for name, cols in layouts.items():
        # Interleave the two measurements so that machine noise hits both alike.
        python_runs, engine_runs = [], []
        for _ in range(args.repeat):
            t = time.perf_counter()
            valid = engine.verify(*cols)
            python_runs.append(time.perf_counter() - t)
            assert valid.all(), "every signature is honest"
            engine_runs.extend(engine.time_engine(*cols, repeat=1))
        py = args.count / statistics.median(python_runs)
        rust = args.count / statistics.median(engine_runs)
        print(
            "%-26s Python %9.0f sigs/s   engine alone %9.0f sigs/s   Python/engine %.3f"
            % (name, py, rust, py / rust)
        )


if __name__ == "__main__":
    main()

"""Verify a directory of Parquet shards on a Ray cluster, writing verdict shards.

    python ray_verify_parquet.py INPUT_DIR OUTPUT_DIR [--policy strict] [--actors 4] [--workers 2]

INPUT_DIR holds *.parquet files with binary columns public_key, message, signature (and
optionally context). OUTPUT_DIR gets the same rows with valid and reason added. Locally
this starts a one-node Ray; with RAY_ADDRESS set (or --address auto) it joins a cluster,
where every node must reach both directories (a shared filesystem, S3, GCS).
"""

import argparse
import os

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import pyarrow.compute as pc  # noqa: E402
import ray  # noqa: E402

import linesig.ray  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input_dir")
    parser.add_argument("output_dir")
    parser.add_argument("--policy", default="strict")
    parser.add_argument("--scheme", default="ed25519")
    parser.add_argument("--actors", type=int, default=1, help="Ray actors, one Engine each")
    parser.add_argument("--workers", type=int, default=1, help="threads per actor")
    parser.add_argument("--address", default=None, help='a cluster to join, e.g. "auto"')
    args = parser.parse_args()

    ray.init(address=args.address)
    ds = ray.data.read_parquet(args.input_dir)
    out = linesig.ray.verify_dataset(
        ds,
        scheme=args.scheme,
        policy=None if args.scheme != "ed25519" else args.policy,
        workers=args.workers,
        concurrency=args.actors,
    )
    out.write_parquet(args.output_dir)
    verdicts = ray.data.read_parquet(args.output_dir).select_columns(["valid"]).to_arrow_refs()
    valid = total = 0
    for ref in verdicts:
        column = ray.get(ref)["valid"]
        valid += pc.sum(column).as_py() or 0
        total += len(column)
    print("%d rows verified: %d valid, %d invalid -> %s" % (total, valid, total - valid, args.output_dir))


if __name__ == "__main__":
    main()

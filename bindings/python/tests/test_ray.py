"""linesig.ray on a local Ray cluster: a sharded Parquet dataset with valid, corrupted
and null rows; every verdict must equal the one `linesig verify` writes for the same
shard file."""

import os
import pathlib
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
import ray  # noqa: E402  (after the usage-stats switch)

import linesig  # noqa: E402
import linesig.ray  # noqa: E402
from test_engine import BINARY, cctv, corrupted, djb, wycheproof  # noqa: E402


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def write_shards(directory: pathlib.Path, shards: int = 4):
    items = corrupted(djb() + wycheproof() + cctv()[:200], seed=9)
    table = pa.table(
        {
            "id": pa.array(range(len(items)), pa.int64()),
            "public_key": pa.array([None if i % 97 == 5 else it[0] for i, it in enumerate(items)], pa.binary()),
            "message": pa.array([it[1] for it in items], pa.binary()),
            "signature": pa.array([it[2] for it in items], pa.binary()),
        }
    )
    step = -(-len(items) // shards)
    paths = []
    for s in range(shards):
        path = directory / ("part-%d.parquet" % s)
        pq.write_table(table.slice(s * step, step), path, row_group_size=50)
        paths.append(path)
    return paths, len(items)


@pytest.mark.parametrize("policy", ["strict", "zip215"])
def test_sharded_dataset_verdicts_equal_the_cli(local_ray, tmp_path, policy):
    assert BINARY.exists(), "build the CLI first (cargo build --release -p linesig-cli)"
    shards, total = write_shards(tmp_path)
    want = {}
    for shard in shards:
        out = shard.with_suffix(".verdicts.parquet")
        subprocess.run(
            [str(BINARY), "verify", "--policy", policy, "--input", str(shard), "--output", str(out), "--quiet"],
            check=True,
        )
        t = pq.read_table(out)
        for i, v, r in zip(t["id"].to_pylist(), t["valid"].to_pylist(), t["reason"].to_pylist()):
            want[i] = (v, r)
    ds = ray.data.read_parquet([str(p) for p in shards], override_num_blocks=len(shards))
    # Two actors of half a CPU each leave the local cluster a CPU for the read tasks.
    verified = linesig.ray.verify_dataset(
        ds, policy=policy, concurrency=2, batch_rows=128, num_cpus=0.5
    )
    rows = verified.to_arrow_refs()
    got = {}
    for ref in rows:
        t = ray.get(ref)
        assert {"id", "public_key", "message", "signature", "valid", "reason"} <= set(t.column_names)
        for i, v, r in zip(t["id"].to_pylist(), t["valid"].to_pylist(), t["reason"].to_pylist()):
            got[i] = (v, r)
    assert len(got) == len(want) == total
    assert got == want
    verdicts = list(want.values())
    assert any(v for v, _ in verdicts) and any(not v for v, _ in verdicts)
    assert ("bad_length" in {r for _, r in verdicts}), "null keys are verdicts, not dropped rows"


def test_bad_options_fail_on_the_driver(local_ray):
    ds = ray.data.from_items([{"public_key": b"", "message": b"", "signature": b""}])
    with pytest.raises(ValueError):
        linesig.ray.verify_dataset(ds, policy="lax")

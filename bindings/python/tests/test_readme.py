"""The Python examples of the README and of docs/*.md run as written. Each ```python
block is executed with
the inputs its prose names already defined: `public_keys`, `messages`, `signatures` (the
djb vectors), `ledger_dir` (a directory of Parquet shards) and `verdicts_dir`. The
Parquet command runs too, on a `ledger.parquet` of the same vectors."""

import os
import pathlib
import re
import shlex
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

from test_engine import BINARY, ROOT, djb  # noqa: E402

DOCS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
TEXT = "\n".join(path.read_text() for path in DOCS)
BLOCKS = re.findall(r"```python\n(.*?)```", TEXT, re.S)


def test_the_readme_has_python_examples():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_python_example_runs(index, tmp_path):
    import ray

    public_keys, messages, signatures = (list(c) for c in zip(*djb()))
    ledger_dir = tmp_path / "ledger"
    ledger_dir.mkdir()
    table = pa.table(
        {"public_key": public_keys, "message": messages, "signature": signatures},
        schema=pa.schema([("public_key", pa.binary()), ("message", pa.binary()), ("signature", pa.binary())]),
    )
    for s in range(2):
        pq.write_table(table.slice(s * 64, 64), ledger_dir / ("part-%d.parquet" % s))
    namespace = {
        "public_keys": public_keys,
        "messages": messages,
        "signatures": signatures,
        "ledger_dir": str(ledger_dir),
        "verdicts_dir": str(tmp_path / "verdicts"),
    }
    try:
        exec(compile(BLOCKS[index], "docs python block %d" % index, "exec"), namespace)
    finally:
        if ray.is_initialized():
            ray.shutdown()


def test_readme_parquet_command_runs(tmp_path):
    command = next(
        line
        for block in re.findall(r"```sh\n(.*?)```", TEXT, re.S)
        for line in block.splitlines()
        if line.startswith("linesig verify --input ledger.parquet")
    )
    public_keys, messages, signatures = (list(c) for c in zip(*djb()))
    bad = bytearray(signatures[0])
    bad[5] ^= 4
    signatures[0] = bytes(bad)
    pq.write_table(
        pa.table({"public_key": public_keys, "message": messages, "signature": signatures}),
        tmp_path / "ledger.parquet",
    )
    argv = shlex.split(command.split("#")[0])
    subprocess.run([str(BINARY)] + argv[1:], cwd=tmp_path, check=True, capture_output=True)
    out = pq.read_table(tmp_path / "verdicts.parquet")
    assert out["valid"].to_pylist() == [False] + [True] * (len(public_keys) - 1)
    assert out["reason"].to_pylist()[0] == "equation_failed"

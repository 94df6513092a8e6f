"""Ray Data scale-out: verify a dataset of signatures across a Ray cluster.

    import ray
    import linesig.ray

    ds = ray.data.read_parquet("/data/ledger/")        # public_key, message, signature
    out = linesig.ray.verify_dataset(ds, policy="strict", concurrency=4)
    out.write_parquet("/data/verdicts/")                 # every column + valid, reason

``verify_dataset`` is ``map_batches`` with a stateful callable class: each Ray actor
builds one ``linesig.Engine`` when it starts and keeps it (its worker pool, and its key
cache once linesig has one) for every batch it is given. Batches travel as Arrow tables
and are read in place; each comes back with ``valid`` (bool) and ``reason`` (string,
null when valid) appended, so rows keep every input column.

The same code runs on a multi-node cluster: start Ray on each node (``ray start
--head`` on one, ``ray start --address=HEAD:6379`` on the others), connect with
``ray.init(address="auto")``, install linesig on every node, and read from storage every
node can reach (S3, GCS, a shared filesystem). Ray schedules the actors across nodes;
``concurrency`` actors × ``workers`` threads each should match the cluster's cores,
less what the read tasks need: actors that reserve every CPU leave none for reading, and
the pipeline stalls (on a small machine, pass ``num_cpus=0.5`` or fewer actors).
"""

from typing import Any, Dict, Optional, Tuple, Union

import numpy as np
import pyarrow as pa

from .engine import REASONS, Engine

# reason code -> name, None for valid; indexed by the engine's uint8 codes.
_REASON_NAMES = np.array(
    [None if code == 0 else REASONS.get(code) for code in range(256)], dtype=object
)


class Verifier:
    """The per-actor callable: one Engine for the actor's lifetime."""

    def __init__(self, **engine_options: Any) -> None:
        self.engine = Engine(**engine_options)

    def __call__(self, batch: pa.Table) -> pa.Table:
        for name in ("public_key", "message", "signature"):
            if name not in batch.column_names:
                raise ValueError("the dataset has no %r column" % name)
        for name in ("valid", "reason"):
            if name in batch.column_names:
                raise ValueError("the dataset already has a %r column" % name)
        contexts = batch.column("context") if "context" in batch.column_names else None
        valid, codes = self.engine.verify(
            batch.column("public_key"),
            batch.column("message"),
            batch.column("signature"),
            contexts,
            reasons=True,
        )
        reason = pa.array(_REASON_NAMES[codes], type=pa.string())
        return batch.append_column("valid", pa.array(valid, type=pa.bool_())).append_column(
            "reason", reason
        )


def verify_dataset(
    ds: Any,
    scheme: str = "ed25519",
    policy: Optional[str] = None,
    workers: Optional[int] = 1,
    batch_size: int = 512,
    backend: Optional[str] = None,
    key_cache_mb: int = 0,
    concurrency: Union[int, Tuple[int, int]] = 1,
    batch_rows: int = 65_536,
    **map_batches_options: Any,
) -> Any:
    """A Ray Dataset with ``valid`` and ``reason`` columns added to ``ds``.

    Engine options as ``linesig.Engine`` (``workers`` threads per actor, default 1, so
    that Ray's CPU accounting holds: each actor reserves ``workers`` CPUs).
    ``concurrency``: actors (an int, or a (min, max) autoscaling range).
    ``batch_rows``: rows per batch handed to an actor. Other keyword arguments go to
    ``Dataset.map_batches``."""
    options: Dict[str, Any] = dict(
        scheme=scheme,
        policy=policy,
        workers=workers,
        batch_size=batch_size,
        backend=backend,
        key_cache_mb=key_cache_mb,
    )
    # Fail here, on the driver, with a clear error rather than inside an actor.
    Engine(**{**options, "workers": 1})
    map_batches_options.setdefault("num_cpus", workers or 1)
    return ds.map_batches(
        Verifier,
        fn_constructor_kwargs=options,
        batch_format="pyarrow",
        batch_size=batch_rows,
        concurrency=concurrency,
        **map_batches_options,
    )

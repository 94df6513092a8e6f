"""Batch signature verification from Python: ``linesig.Engine``.

Columns may be lists of ``bytes``, numpy arrays (``uint8`` of shape (N, width), or fixed
width ``S``/``V`` dtypes) or pyarrow arrays (``binary``, ``large_binary``,
``fixed_size_binary``, chunked or not). Bytes, numpy and Arrow memory is read in place;
verification runs on all cores with the GIL released. Nothing may modify the arrays
while ``verify`` runs.
"""

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _native

#: Reason code -> name; 0 is "valid". The same codes as the C ABI and the Go package.
REASONS: Dict[int, str] = dict(_native.reason_names())

Column = Union[Sequence[bytes], "np.ndarray", Any]


class Engine:
    """A verifier with its own worker pool.

    ``scheme``: ``ed25519`` (default), ``mldsa44``, ``mldsa65``, ``mldsa87``, or
    ``leansig-devnet4``, ``leansig-l18``, ``leansig-l32``, ``leanxmss`` (each item's context is its
    epoch: an int, or ``epoch.to_bytes(4, "little")``; a numpy integer array works too,
    as ``linesig.leansig.aggregate`` and the CLI take epochs).
    ``policy`` (Ed25519 only): ``strict`` (Solana today, the default), ``zip215``
    (Zcash, Cosmos) or ``zip215-strict`` (Solana SIMD-0376).
    ``workers``: threads (default: all cores). ``batch_size``: items per work unit.
    ``backend``: ``auto`` (default), ``portable``, ``avx2`` or ``avx512`` (``portable`` and ``avx512`` are accepted too).
    ``key_cache_mb``: megabytes for the cache of hot keys (default 0: off): a key that
    keeps signing earns a table (Ed25519: its fixed-base table, about 0.1 MB; ML-DSA:
    its expanded form, 21-68 KB) that makes its later verifications two to three times
    cheaper. ``key_cache_stats()`` reports its hit rate and memory.
    ``batch_equation`` (``zip215``, ``zip215-strict``): check each work unit with one
    randomized batch equation before any signature alone (default True), or each alone
    (False: every verdict a deterministic function of its item). The verdicts are the
    same either way; ``batch_equation_stats()`` counts the work units.
    """

    def __init__(
        self,
        scheme: str = "ed25519",
        policy: Optional[str] = None,
        workers: Optional[int] = None,
        batch_size: int = 512,
        backend: Optional[str] = None,
        key_cache_mb: int = 0,
        batch_equation: bool = True,
    ) -> None:
        self._engine = _native.Engine(
            scheme, policy, workers, batch_size, backend, key_cache_mb, batch_equation
        )

    def batch_equation_stats(self) -> Optional[dict]:
        """The batch equation's work units (``held``, ``found_few``, ``fell_back``,
        ``skipped``), or None when it is off."""
        return self._engine.batch_equation_stats()

    def key_cache_stats(self) -> Optional[dict]:
        """The hot-key cache's counters (``hit_rate``, ``entries``, ``used_bytes``,
        ``capacity_bytes``, ``admissions``, ``evictions``...), or None when it is off."""
        return self._engine.key_cache_stats()

    scheme = property(lambda self: self._engine.scheme)
    policy = property(lambda self: self._engine.policy)
    workers = property(lambda self: self._engine.workers)
    batch_size = property(lambda self: self._engine.batch_size)
    backend = property(lambda self: self._engine.backend)
    batch_equation = property(lambda self: self._engine.batch_equation)

    def __repr__(self) -> str:
        return "Engine(scheme=%r, policy=%r, workers=%d, batch_size=%d, backend=%r)" % (
            self.scheme,
            self.policy,
            self.workers,
            self.batch_size,
            self.backend,
        )

    def verify(
        self,
        public_keys: Column,
        messages: Column,
        signatures: Column,
        contexts: Optional[Column] = None,
        *,
        reasons: bool = False,
    ) -> Union["np.ndarray", Tuple["np.ndarray", "np.ndarray"]]:
        """One verdict per item, in input order: a numpy bool array (True = valid), or
        with ``reasons=True`` the pair (valid, codes) where ``codes`` is a uint8 array
        (0 = valid; ``REASONS`` names the rest)."""
        codes = self.verify_reasons(public_keys, messages, signatures, contexts)
        valid = codes == 0
        return (valid, codes) if reasons else valid

    def verify_reasons(
        self,
        public_keys: Column,
        messages: Column,
        signatures: Column,
        contexts: Optional[Column] = None,
    ) -> "np.ndarray":
        """One reason code per item (uint8; 0 = valid), in input order."""
        columns = [_column(c) for c in (public_keys, messages, signatures)]
        if contexts is not None and self.scheme.startswith(("leansig", "leanxmss")):
            contexts = _epoch_contexts(contexts)
        ctx = None if contexts is None else _column(contexts)
        codes = self._engine.verify_codes(*columns, ctx)
        return np.frombuffer(codes, dtype=np.uint8)

    def time_engine(
        self, public_keys: Column, messages: Column, signatures: Column, repeat: int = 3
    ) -> List[float]:
        """For benchmarks: seconds per run of the Rust engine alone on these columns
        (read once, verified ``repeat`` times), to set against ``verify``'s own time."""
        columns = [_column(c) for c in (public_keys, messages, signatures)]
        return self._engine.time_engine(*columns, repeat)


def _epoch_contexts(values: Any) -> Any:
    """leanSig contexts: integer epochs (ints, or a numpy integer array) as the 4 bytes
    little-endian the engine reads; bytes pass through. An epoch outside [0, 2^32) is a
    ValueError (it has no 4-byte form), never wrapped."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
        if values.size and (values.min() < 0 or values.max() > 0xFFFFFFFF):
            raise ValueError("epochs must lie in [0, 2**32)")
        return values.astype("<u4").view(np.uint8).reshape(-1, 4)
    module = type(values).__module__ or ""
    if module.startswith("pyarrow") or isinstance(values, np.ndarray):
        return values
    out = []
    for i, v in enumerate(values):
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
            if not 0 <= int(v) <= 0xFFFFFFFF:
                raise ValueError("item %d: epoch %d outside [0, 2**32)" % (i, int(v)))
            out.append(int(v).to_bytes(4, "little"))
        else:
            out.append(v)
    return out


def _column(values: Any) -> Any:
    """A column in one of the native layouts: a list of bytes, ("fixed", buffer, width)
    or ("offsets", data, offsets)."""
    module = type(values).__module__ or ""
    if module.startswith("pyarrow"):
        return _arrow_column(values)
    if isinstance(values, np.ndarray):
        return _numpy_column(values)
    if isinstance(values, (list, tuple)) and all(type(v) is bytes for v in values):
        return values
    out = []
    for i, v in enumerate(values):
        if isinstance(v, (bytes, bytearray, memoryview)):
            out.append(bytes(v))
        else:
            raise TypeError("item %d: expected bytes, got %s" % (i, type(v).__name__))
    return out


def _numpy_column(a: "np.ndarray") -> Any:
    if a.dtype == np.uint8 and a.ndim == 2:
        data = np.ascontiguousarray(a)
        return ("fixed", data.reshape(-1), max(a.shape[1], 1)) if a.shape[1] else [b""] * len(a)
    if a.dtype.kind in "SV" and a.ndim == 1:
        width = a.dtype.itemsize
        data = np.ascontiguousarray(a).view(np.uint8).reshape(-1)
        return ("fixed", data, width) if width else [b""] * len(a)
    if a.dtype == object and a.ndim == 1:
        return _column(list(a))
    raise TypeError(
        "numpy column: expected uint8 of shape (N, width), a 1-D S/V dtype, or objects; got %s %s"
        % (a.dtype, a.shape)
    )


def _arrow_column(arr: Any) -> Any:
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if arr.null_count:
        # A null has no bytes: it verifies as an empty value (bad_length), never skipped.
        return [b"" if v is None else v for v in arr.to_pylist()]
    n, offset = len(arr), arr.offset
    t = arr.type
    if pa.types.is_fixed_size_binary(t):
        width = t.byte_width
        buf = arr.buffers()[1]
        data = np.frombuffer(buf, dtype=np.uint8) if buf is not None else np.empty(0, np.uint8)
        data = data[offset * width : (offset + n) * width]
        return ("fixed", data, width) if width else [b""] * n
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        _, offsets_buf, data_buf = arr.buffers()
        dtype = np.int64 if pa.types.is_large_binary(t) else np.int32
        offsets = np.frombuffer(offsets_buf, dtype=dtype)[offset : offset + n + 1]
        data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.empty(0, np.uint8)
        return ("offsets", data, np.ascontiguousarray(offsets))
    raise TypeError("arrow column: expected binary, large_binary or fixed_size_binary, got %s" % t)

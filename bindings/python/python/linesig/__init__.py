"""linesig: line-speed batch cryptography.

- ``linesig.Engine``: batch signature verification (Ed25519 under Solana's or Zcash's
  rules, ML-DSA) on all cores, from lists of bytes, numpy or Arrow columns, one verdict
  per item.
- ``linesig.paillier``: a drop-in replacement for python-paillier's ``phe.paillier``
  (``from linesig import paillier``), with array calls that run on all cores.
- ``linesig.leansig``: leanSig devnet-4 aggregation, one STARK proof for many
  signatures (``aggregate``, ``verify_aggregate``).
- ``linesig.leanxmss``: the lean devnets' BLAKE2s XMSS keys (``keygen``, ``SecretKey``);
  ``Engine(scheme="leanxmss")`` verifies.
- ``linesig.mldsa``: ML-DSA key generation from a seed and signing (``keygen``,
  ``sign``); ``linesig.ed25519``: an Ed25519 public key and signatures from a seed.
"""

from . import _native, ed25519, leansig, leanxmss, mldsa, paillier
from .engine import REASONS, Engine

__version__: str = _native.__version__

__all__ = [
    "Engine",
    "REASONS",
    "ed25519",
    "leansig",
    "leanxmss",
    "mldsa",
    "paillier",
    "__version__",
]

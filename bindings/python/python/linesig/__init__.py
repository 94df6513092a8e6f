"""linesig: line-speed batch cryptography.

``linesig.paillier`` is a drop-in replacement for python-paillier's ``phe.paillier``
(``from linesig import paillier``), with array calls that run on all cores.
"""

from . import _native, paillier

__version__ = _native.__version__

__all__ = ["paillier", "__version__"]

"""ML-DSA keys and signatures from Python, verified by the engine."""

import pytest

import linesig
from linesig import mldsa


def test_keygen_sign_verify_both_variants():
    pk, sk = mldsa.keygen("mldsa44", bytes(32))
    assert (len(pk), len(sk)) == (1312, 2560)
    assert mldsa.keygen("mldsa44", bytes(32)) == (pk, sk)  # the seed fixes the keys
    det = mldsa.sign("mldsa44", sk, b"msg", b"ctx")
    assert mldsa.sign("mldsa44", sk, b"msg", b"ctx") == det
    hedged = mldsa.sign("mldsa44", sk, b"msg", b"ctx", randomness=bytes(range(32)))
    assert hedged != det
    engine = linesig.Engine(scheme="mldsa44")
    valid, codes = engine.verify(
        [pk, pk, pk], [b"msg"] * 3, [det, hedged, det], contexts=[b"ctx", b"ctx", b"other"], reasons=True
    )
    assert list(valid) == [True, True, False]
    assert linesig.REASONS[int(codes[2])] == "equation_failed"


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: mldsa.keygen("mldsa44", bytes(31)), "seed is 31 bytes"),
        (lambda: mldsa.keygen("mldsa99", bytes(32)), "unknown ML-DSA parameter set"),
        (lambda: mldsa.sign("mldsa44", bytes(10), b"m"), "signing key is 10 bytes"),
        (lambda: mldsa.sign("mldsa44", bytes(2560), b"m", bytes(256)), "255"),
        (lambda: mldsa.sign("mldsa44", bytes(2560), b"m", randomness=bytes(5)), "randomness"),
    ],
)
def test_bad_arguments_are_value_errors(call, words):
    with pytest.raises(ValueError, match=words):
        call()

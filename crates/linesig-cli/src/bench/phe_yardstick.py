# phe (python-paillier) timed on the same key and values as `linesig bench --scheme paillier*`:
# one call at a time, on threads and on processes where there is more than one worker
# (each the median of `repeat` runs); it also decrypts linesig's sample ciphertexts.
# Reads a JSON job on stdin and prints one JSON object (src/bench/paillier.rs).
import json, multiprocessing, sys, time, platform
from concurrent.futures import ThreadPoolExecutor, ProcessPoolExecutor
import phe
from phe import paillier, util

job = json.loads(sys.stdin.read())
n, p, q = int(job["n"]), int(job["p"]), int(job["q"])
values = [int(v) for v in job["values"]]
workers = job["workers"]
pk = paillier.PaillierPublicKey(n)
sk = paillier.PaillierPrivateKey(pk, p, q)

def enc(v):
    return pk.encrypt(v).ciphertext()

def dec(c):
    return sk.decrypt(paillier.EncryptedNumber(pk, c, 0))

def rate(work, items):
    """ops/s, the median of `repeat` runs (as linesig's own rows), and the last output."""
    rates = []
    for _ in range(job["repeat"]):
        t = time.perf_counter()
        out = work(items)
        rates.append(len(items) / (time.perf_counter() - t))
    return sorted(rates)[(len(rates) - 1) // 2], out

def single(f):
    return lambda items: [f(x) for x in items]

def threads(f):
    def run(items):
        with ThreadPoolExecutor(workers) as ex:
            return list(ex.map(f, items))
    return run

def processes(f, pool):
    return lambda items: list(pool.map(f, items, chunksize=max(1, len(items) // (4 * workers))))

if __name__ == "__main__":
    e1, cts = rate(single(enc), values)
    d1, _ = rate(single(dec), cts)
    e2 = e3 = d2 = d3 = None
    if workers > 1:
        # fork: the workers inherit this script's functions (there is no file to import).
        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(workers, mp_context=ctx) as pool:
            list(pool.map(abs, range(workers)))  # start the workers before timing
            e2, _ = rate(threads(enc), values)
            e3, _ = rate(processes(enc, pool), values)
            d2, _ = rate(threads(dec), cts)
            d3, _ = rate(processes(dec, pool), cts)
    cross = [(int(c), int(m)) for c, m in job["cross"]]
    ok = sum(1 for c, m in cross if dec(c) == m)
    print(json.dumps({
        "info": {"python": platform.python_version(), "phe_version": phe.__version__,
                 "gmpy2": bool(getattr(util, "HAVE_GMP", False))},
        "encrypt": {"single": e1, "threads": e2, "processes": e3},
        "decrypt": {"single": d1, "threads": d2, "processes": d3},
        "cross_ok": ok, "cross_total": len(cross),
    }))

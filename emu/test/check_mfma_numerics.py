#!/usr/bin/env python3
"""Check the emulator's CDNA3 MFMA accumulation against a literal, exact-arithmetic transcription
of the algorithm in docs/hardware.md 1.3 (after MMA-Sim), over random fp8/bf8 groups
of 16 products with C across many magnitudes. Both emulator paths (reference and row fast path)
must equal this model bit for bit.
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "support"))
from dump_check import run_dumper  # noqa: E402
from fractions import Fraction

import ml_dtypes
import numpy as np

FORMATS = {"fp8": (ml_dtypes.float8_e4m3fnuz, -7), "bf8": (ml_dtypes.float8_e5m2fnuz, -15)}


def decomp(x, minexp):
    """x = s * 2^e with |s| in [1, 2); subnormal inputs keep e = minexp; zero has e = -126."""
    if x == 0:
        return Fraction(0), -126
    e = math.floor(math.log2(abs(x)))
    while Fraction(2) ** e > abs(x):
        e -= 1
    while Fraction(2) ** (e + 1) <= abs(x):
        e += 1
    s = Fraction(x) / Fraction(2) ** e
    if e < minexp:
        s *= Fraction(2) ** (e - minexp)
        e = minexp
    return s, e


def trunc(q):
    return math.trunc(q)


def fused_sum(terms, f=24):
    big_e = max(e for _, e in terms)
    total = sum(trunc(s * Fraction(2) ** (f + e - big_e)) for s, e in terms)
    return Fraction(total, 2**f), big_e


def model(a_vals, b_vals, c, min_a, min_b):
    products = []
    for x, y in zip(a_vals, b_vals):
        sa, ea = decomp(x, min_a)
        sb, eb = decomp(y, min_b)
        products.append((sa * sb, ea + eb))
    s0, e0 = fused_sum(products[0::2])
    s1, e1 = fused_sum(products[1::2])
    e = max(e0, e1)
    s = Fraction(math.floor(s0 * Fraction(2) ** (24 + e0 - e)), 2**24) + \
        Fraction(math.floor(s1 * Fraction(2) ** (24 + e1 - e)), 2**24)
    sc, ec = decomp(c, -126)
    m = max(e, ec)
    s_prime = Fraction(math.floor(s * Fraction(2) ** (31 + e - m)), 2**31)
    c_prime = Fraction(0) if ec < m - 25 else Fraction(math.floor(sc * Fraction(2) ** (24 + ec - m)), 2**24)
    exact = (s_prime + c_prime) * Fraction(2) ** m
    return np.float32(float(exact))  # exact fits a double; one RNE rounding to fp32


def main():
    workdir = run_dumper(__doc__.splitlines()[0])
    failures = 0
    for name in ("fp8_fp8", "bf8_fp8", "bf8_bf8"):
        fa, fb = name.split("_")
        (ta, min_a), (tb, min_b) = FORMATS[fa], FORMATS[fb]
        rec = np.fromfile(os.path.join(workdir, name + ".u32"), np.uint32).reshape(-1, 11)
        codes = rec[:, :8].copy().view(np.uint8).reshape(-1, 2, 16)
        a_vals = codes[:, 0].view(ta).astype(np.float64)
        b_vals = codes[:, 1].view(tb).astype(np.float64)
        c = rec[:, 8].view(np.float32)
        bad = 0
        for i in range(rec.shape[0]):
            want = model(a_vals[i], b_vals[i], float(c[i]), min_a, min_b).view(np.uint32)
            for label, got in (("reference", rec[i, 9]), ("fast path", rec[i, 10])):
                if got != want:
                    bad += 1
                    if bad <= 5:
                        print(f"FAIL {name} case {i} {label}: 0x{got:08x}, model 0x{want:08x} (C = {c[i]!r})")
        print(f"{name}: {rec.shape[0]} groups, {'ok' if not bad else f'{bad} mismatches'}")
        failures += bad
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Cross-check wavekit's MX quantizer against an independent numpy model of the reference
MXFP4 quantizer (aiter _mxfp4_quant_op, docs/hardware.md 7.3):

  amax bits = (bits(max |x| over 32) + 0x200000) & 0xFF800000
  exponent  = clamp(floor(log2(amax)) - emax, -127, 127)      emax = floor(log2(max finite))
  scale     = exponent + 127 (e8m0)
  element   = RNE(clip(x * 2^-exponent, -max, max)) via ml_dtypes

and fp4 packing with element 0 in the low nibble. Scales and element codes must match exactly.
The same on the matrix rounded to bf16 (where many scaled elements are exact midpoints) with ties
rounded away from zero (aiter's fused MoE quantizer): the nearest of the format's finite values
listed by ml_dtypes, the larger magnitude on a tie, which must differ from nearest even somewhere.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from dump_check import run_dumper  # noqa: E402

import ml_dtypes
import numpy as np

ELEMENTS = {"e2m1": ml_dtypes.float4_e2m1fn, "e4m3fn": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}
ROWS, COLS = 64, 512


def round_ties_away(scaled, ml_type):
    """scaled (float32) to ml_type's nearest finite value, halfway cases away from zero, saturating."""
    codes = np.arange(256, dtype=np.uint8) if ml_type != ml_dtypes.float4_e2m1fn else np.arange(8, dtype=np.uint8)
    values = codes.view(ml_type).astype(np.float64)
    grid = np.unique(values[np.isfinite(values) & (values >= 0)])
    a = np.minimum(np.abs(scaled.astype(np.float64)), grid[-1])
    hi = np.clip(np.searchsorted(grid, a, side="left"), 0, len(grid) - 1)
    lo = np.maximum(hi - 1, 0)
    nearest = np.where(grid[hi] - a <= a - grid[lo], grid[hi], grid[lo])
    return np.copysign(nearest, scaled).astype(ml_type)


def reference(x, ml_type, away=False):
    blocks = x.reshape(ROWS, COLS // 32, 32)
    amax = np.abs(blocks).max(axis=-1)
    bits = ((amax.view(np.uint32).astype(np.uint64) + 0x200000) & 0xFF800000).astype(np.uint32)
    rounded = bits.view(np.float32)
    max_finite = float(ml_dtypes.finfo(ml_type).max)
    emax = int(np.floor(np.log2(max_finite)))
    with np.errstate(divide="ignore"):
        exponent = np.clip(np.floor(np.log2(rounded)) - emax, -127, 127).astype(np.int32)
    inverse = np.ldexp(np.float32(1.0), -exponent).astype(np.float32)
    scaled = (blocks * inverse[..., None]).astype(np.float32)
    if away:
        codes = round_ties_away(scaled, ml_type).view(np.uint8).reshape(ROWS, COLS)
    else:
        codes = np.clip(scaled, -max_finite, max_finite).astype(ml_type).view(np.uint8).reshape(ROWS, COLS)
    return (exponent + 127).astype(np.uint8), codes


def main():
    workdir = run_dumper(__doc__.splitlines()[0])
    failures = 0
    for away in (False, True):
        x = np.fromfile(os.path.join(workdir, "input_bf16.f32" if away else "input.f32"), np.float32)
        for elem, ml_type in ELEMENTS.items():
            name = elem + (".away" if away else "")
            scales = np.fromfile(os.path.join(workdir, name + ".scales.u8"), np.uint8).reshape(ROWS, COLS // 32)
            data = np.fromfile(os.path.join(workdir, name + ".data.u8"), np.uint8)
            ref_scales, ref_codes = reference(x, ml_type, away)
            if elem == "e2m1":
                ref_codes = ref_codes & 0xF
                ref_data = (ref_codes[:, 0::2] | (ref_codes[:, 1::2] << 4)).reshape(-1)
            else:
                ref_data = ref_codes.reshape(-1)
            bad_scales = int((scales != ref_scales).sum())
            bad_data = int((data != ref_data).sum())
            print(f"{name:12s} {scales.size} scales, {data.size} bytes: "
                  f"{'ok' if bad_scales == bad_data == 0 else 'MISMATCH'} ({bad_scales} scales, {bad_data} bytes differ)")
            failures += bad_scales + bad_data
            if away:  # the data must hold ties that the two rules round apart
                _, even_codes = reference(x, ml_type)
                moved = int((even_codes != ref_codes).sum() if elem != "e2m1" else ((even_codes & 0xF) != ref_codes).sum())
                print(f"{'':12s} {moved} elements rounded apart from nearest even")
                failures += moved == 0
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

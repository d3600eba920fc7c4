#!/usr/bin/env python3
"""Cross-check wavekit's MX quantizer against an independent numpy model of the reference
MXFP4 quantizer (aiter _mxfp4_quant_op, docs/hardware.md 7.3):

  amax bits = (bits(max |x| over 32) + 0x200000) & 0xFF800000
  exponent  = clamp(floor(log2(amax)) - emax, -127, 127)      emax = floor(log2(max finite))
  scale     = exponent + 127 (e8m0)
  element   = RNE(clip(x * 2^-exponent, -max, max)) via ml_dtypes

and fp4 packing with element 0 in the low nibble. Scales and element codes must match exactly.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from dump_check import run_dumper  # noqa: E402

import ml_dtypes
import numpy as np

ELEMENTS = {"e2m1": ml_dtypes.float4_e2m1fn, "e4m3fn": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}
ROWS, COLS = 64, 512


def reference(x, ml_type):
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
    codes = np.clip(scaled, -max_finite, max_finite).astype(ml_type).view(np.uint8).reshape(ROWS, COLS)
    return (exponent + 127).astype(np.uint8), codes


def main():
    workdir = run_dumper(__doc__.splitlines()[0])
    x = np.fromfile(os.path.join(workdir, "input.f32"), np.float32)
    failures = 0
    for name, ml_type in ELEMENTS.items():
        scales = np.fromfile(os.path.join(workdir, name + ".scales.u8"), np.uint8).reshape(ROWS, COLS // 32)
        data = np.fromfile(os.path.join(workdir, name + ".data.u8"), np.uint8)
        ref_scales, ref_codes = reference(x, ml_type)
        if name == "e2m1":
            ref_codes = ref_codes & 0xF
            ref_data = (ref_codes[:, 0::2] | (ref_codes[:, 1::2] << 4)).reshape(-1)
        else:
            ref_data = ref_codes.reshape(-1)
        bad_scales = int((scales != ref_scales).sum())
        bad_data = int((data != ref_data).sum())
        print(f"{name:7s} {scales.size} scales, {data.size} bytes: "
              f"{'ok' if bad_scales == bad_data == 0 else 'MISMATCH'} ({bad_scales} scales, {bad_data} bytes differ)")
        failures += bad_scales + bad_data
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

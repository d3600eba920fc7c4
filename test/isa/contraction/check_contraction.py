#!/usr/bin/env python3
"""Checks the device code of contraction.hip: the one-expression and compound forms are one
v_fma_f32 / v_fmac_f32 each (no separate multiply and add, no v_mad/v_mac, which round the
product), the two-statement form a v_mul_f32 and a v_add_f32. With --scan, also that no
assembly file in the given directories (the shipped kernels' codegen report) has an f32
v_mad/v_mac: every contracted a * b + c there is a fused multiply-add, as in the emulator.

usage: check_contraction.py <contraction.s>... [--scan <dir>...]
"""
import glob
import os
import re
import sys

FUSED = re.compile(r"^v_(fma|fmac|fmamk|fmaak|pk_fma)_f32")
UNFUSED_MAD = re.compile(r"^v_(mad|mac|madak|madmk|mad_legacy|mac_legacy)_f32")
MUL = re.compile(r"^v_mul_f32")
ADD = re.compile(r"^v_add_f32")


def functions(path):
    """{name: [opcode, ...]} for each function of the assembly (label to s_setpc_b64 / s_endpgm)."""
    out, current = {}, None
    for line in open(path):
        label = re.match(r"^([A-Za-z_][\w.]*):", line)
        if label and not label.group(1).startswith(".L"):
            current = out.setdefault(label.group(1), [])
            continue
        if current is None:
            continue
        fields = line.split(";")[0].split()
        if fields and not fields[0].startswith("."):
            current.append(fields[0])
            if fields[0] in ("s_setpc_b64", "s_endpgm"):
                current = None
    return out


def check(path):
    problems = []
    fns = functions(path)
    for name, want_fused in (("contraction_one_expression", True), ("contraction_compound", True),
                             ("contraction_two_statements", False)):
        ops = fns.get(name)
        if ops is None:
            problems.append(f"{path}: no function {name}")
            continue
        fused = [o for o in ops if FUSED.match(o)]
        mad = [o for o in ops if UNFUSED_MAD.match(o)]
        muls = [o for o in ops if MUL.match(o)]
        adds = [o for o in ops if ADD.match(o)]
        if mad:
            problems.append(f"{name}: {mad[0]} rounds the product (a fused multiply-add was wanted)")
        if want_fused and (len(fused) != 1 or muls or adds):
            problems.append(f"{name}: want one v_fma_f32/v_fmac_f32 and no separate multiply or add, got {ops}")
        if not want_fused and (fused or len(muls) != 1 or len(adds) != 1):
            problems.append(f"{name}: want v_mul_f32 then v_add_f32 (statements are not fused), got {ops}")
    return problems


def scan(directory):
    """Problems for every f32 v_mad/v_mac in the assembly files of `directory`."""
    problems, files = [], sorted(glob.glob(os.path.join(directory, "*.s")))
    if not files:
        problems.append(f"{directory}: no assembly to scan")
    for path in files:
        for name, ops in functions(path).items():
            mad = sorted({o for o in ops if UNFUSED_MAD.match(o)})
            if mad:
                problems.append(f"{os.path.basename(path)}: {name} has {', '.join(mad)} (rounds the product)")
    return problems, len(files)


def main():
    args = sys.argv[1:]
    dirs = args[args.index("--scan") + 1:] if "--scan" in args else []
    files = args[:args.index("--scan")] if "--scan" in args else args
    problems = [p for path in files for p in check(path)]
    scanned = 0
    for d in dirs:
        found, n = scan(d)
        problems += found
        scanned += n
    for p in problems:
        print("FAIL", p)
    if problems:
        return 1
    print(f"ok: {len(files)} contraction file(s) fuse a * b + c exactly within one expression; "
          f"{scanned} kernel assembly file(s) without an f32 v_mad/v_mac")
    return 0


if __name__ == "__main__":
    sys.exit(main())

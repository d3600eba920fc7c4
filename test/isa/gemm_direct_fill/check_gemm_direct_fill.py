#!/usr/bin/env python3
"""Checks gemm_direct_fill.hip's device code (the mainloop's fill schedules, block/gemm_mainloop.hpp):
in each direct-fill kernel's hot loop the tiles arrive by buffer_load_* ... lds (dwordx4 on gfx950,
dword on gfx942) with no ds_write_b128 (the staged fill's tile stores; a scale policy stores 4 bytes), and no vmcnt wait comes between a barrier and the first ds_read
after it (the next step's loads stay in flight while this step's tiles are read). Prints each
kernel's figures beside its staged twin's (per K step: the direct loop runs two steps an iteration
where a group is one step; both run one barrier a step): loop instructions, VALU, VGPRs. And in each
two-steps-ahead kernel's hot loop the tiles' loads are waited for at most once per two K steps
(tools/codegen_report.py load_trips: the round trips an iteration waits out in series), printed
beside its staged twin's with the same per-step figures.

usage: check_gemm_direct_fill.py <gemm_direct_fill.s> <report.json> --arch gfx942|gfx950
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "tools"))
import codegen_report  # noqa: E402


def main():
    args = sys.argv[1:]
    arch = args[args.index("--arch") + 1]
    asm_path, report_path = [a for a in args if not a.startswith("--") and a != arch]
    asm = open(asm_path).read()
    bodies = codegen_report.kernel_bodies(asm)
    names = codegen_report.demangle(sorted(bodies))
    report = {k["symbol"]: k for k in json.load(open(report_path))["kernels"]}
    form = "buffer_load_dwordx4" if arch == "gfx950" else "buffer_load_dword"
    problems, rows, direct, ahead = [], {}, 0, 0
    for symbol, body in bodies.items():
        name = names[symbol]
        lines = codegen_report.hot_loop(body, arch, with_body=True)[1]
        k = report[symbol]
        loop = k["loop"]
        steps = max(1, loop["barriers"])  # one barrier a K step, staged or direct
        is_direct = "direct_fill" in name
        kind = "direct" if is_direct else "two_ahead" if "two_ahead" in name else "staged"
        # The twins' key: the base config (a direct fill's target argument dropped).
        key = re.sub(r"wavekit::fill_views::(direct_fill|staged|two_ahead)(_blockscale)?<(.*?)>", r"\3", name)
        key = re.sub(r", \(wavekit::arch::target\)\d+>", ">", key)
        if kind == "two_ahead":
            ahead += 1
            if loop["load_trips"] > steps / 2 + 1e-6:
                problems.append(f"{name}: {loop['load_trips']} load round trips in series over {steps} K steps "
                                "(two steps ahead waits at most one per two steps)")
        if is_direct:
            direct += 1
            lds_loads = [l for l in lines if l.split()[0] == form and l.endswith("lds")]
            if not lds_loads:
                problems.append(f"{name}: no {form} ... lds in the hot loop")
            if any(l.startswith("ds_write_b128") for l in lines):  # a tile's 16-byte stores (scales store 4)
                problems.append(f"{name}: ds_write_b128 in the hot loop (the tiles go through registers)")
            for i, l in enumerate(lines):
                if l != "s_barrier":
                    continue
                after = lines[i + 1:]
                read = next((j for j, x in enumerate(after) if x.startswith("ds_read")), None)
                if read is not None and any(x.startswith("s_waitcnt") and "vmcnt" in x for x in after[:read]):
                    problems.append(f"{name}: a vmcnt wait between a barrier and its ds_read (the next step's "
                                    "loads no longer overlap the reads)")
        rows.setdefault(key, {})[kind] = (loop["instructions"] / steps, loop["valu"] / steps, k["vgpr"],
                                          loop["load_trips"] / steps)
    if direct == 0:
        problems.append("no direct-fill kernel in the assembly")
    if ahead == 0:
        problems.append("no two-steps-ahead kernel in the assembly")
    for key, r in sorted(rows.items()):
        for kind, label in (("direct", "direct"), ("two_ahead", "two steps ahead")):
            if "staged" in r and kind in r:
                s, d = r["staged"], r[kind]
                print(f"{arch} {codegen_report.short_name(key)}, {label}: per K step {s[0]:.1f} -> {d[0]:.1f} "
                      f"instructions, {s[1]:.1f} -> {d[1]:.1f} VALU, {s[3]:.2f} -> {d[3]:.2f} load round trips; "
                      f"VGPRs {s[2]} -> {d[2]}")
    for p in problems:
        print("FAIL", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

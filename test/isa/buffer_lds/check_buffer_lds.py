#!/usr/bin/env python3
"""Checks the device code of buffer_lds.hip (arch/buffer_lds.hpp's pipeline): each kernel
buffer_lds_<form> loads with `buffer_load_<form> ... offen lds` after setting M0, waits for vmcnt
before every s_barrier (the barrier does not wait for the loads into LDS itself on gfx942), and
after each barrier reads LDS with no vmcnt wait in between: the next stage's load stays in flight
while the current stage is read. --arch gfx950 also requires the 16-byte form.

usage: check_buffer_lds.py <buffer_lds.s> --arch gfx942|gfx950
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "tools"))
import codegen_report  # noqa: E402

FORMS = ["ubyte", "ushort", "dword"]


def functions(path):
    """{kernel: [instruction, ...]} of the assembly (tools/codegen_report.py reads the kernels)."""
    bodies = codegen_report.kernel_bodies(open(path).read())
    return {k: [l.split(";")[0].strip() for l in body if codegen_report.is_instruction(l)] for k, body in bodies.items()}


def check_kernel(name, form, lines):
    problems = []
    loads = [i for i, l in enumerate(lines) if l.split()[0] == f"buffer_load_{form}"]
    if not loads:
        return [f"{name}: no buffer_load_{form}"]
    for i in loads:
        if not re.search(r"\boffen lds$", lines[i]):
            problems.append(f"{name}: `{lines[i]}` is not a direct-to-LDS load (offen lds)")
        if not any(l.startswith("s_mov_b32 m0,") for l in lines[:i]):
            problems.append(f"{name}: `{lines[i]}` without M0 set before it")
    barriers = [i for i, l in enumerate(lines) if l == "s_barrier"]
    if len(barriers) < 3:
        problems.append(f"{name}: {len(barriers)} s_barrier, want the loop's two and the last tile's")
    for b in barriers:
        waits = [l for l in lines[:b] if l.startswith("s_waitcnt")]
        if not waits or "vmcnt(0)" not in waits[-1]:
            problems.append(f"{name}: the s_barrier at instruction {b} is not preceded by s_waitcnt vmcnt(0)")
        after = lines[b + 1:]
        read = next((j for j, l in enumerate(after) if l.startswith("ds_read")), None)
        if read is None:
            problems.append(f"{name}: no ds_read after the s_barrier at instruction {b}")
        elif any(l.startswith("s_waitcnt") and "vmcnt" in l for l in after[:read]):
            problems.append(f"{name}: a vmcnt wait between the s_barrier at instruction {b} and its ds_read "
                            "(the next stage's load no longer overlaps the read)")
    return problems


def main():
    args = sys.argv[1:]
    gfx950 = "--arch" in args and args[args.index("--arch") + 1] == "gfx950"
    paths = [a for a in args if not a.startswith("--") and a not in ("gfx942", "gfx950")]
    fns = functions(paths[0])
    problems = []
    for form in FORMS + (["dwordx4"] if gfx950 else []):
        name = f"buffer_lds_{form}"
        if name not in fns:
            problems.append(f"no kernel {name}")
            continue
        problems += check_kernel(name, form, fns[name])
    for p in problems:
        print("FAIL", p)
    if problems:
        return 1
    forms = FORMS + (["dwordx4"] if gfx950 else [])
    print(f"ok: {', '.join('buffer_load_' + f + ' ... lds' for f in forms)}; vmcnt waited before each barrier, "
          "none between a barrier and its ds_read")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Compiles every public header of wavekit on its own as HIP (device and host passes).

    check_headers_hip.py --include-dir include --work DIR [--exclude wavekit/emu/] -- <compiler and flags>

Each header gets a translation unit that includes only it, checked with -fsyntax-only; the CPU
emulator's headers (wavekit/emu/) are not HIP code and are excluded by the caller. Prints each
failure with the compiler's messages; exits 1 if any header does not compile alone.
"""
import argparse
import concurrent.futures
import os
import pathlib
import subprocess
import sys


def main():
    if "--" not in sys.argv:
        sys.exit("usage: check_headers_hip.py --include-dir D --work W [--exclude PREFIX]... -- compiler flags...")
    split = sys.argv.index("--")
    ap = argparse.ArgumentParser()
    ap.add_argument("--include-dir", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--exclude", action="append", default=[])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args(sys.argv[1:split])
    command = sys.argv[split + 1:]
    root = pathlib.Path(args.include_dir)
    headers = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.suffix in (".hpp", ".h"))
    headers = [h for h in headers if not any(h.startswith(e) for e in args.exclude)]
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)

    def check(header):
        tu = work / (header.replace("/", "_").replace(".", "_") + ".hip")
        tu.write_text(f"#include <{header}>\n")
        r = subprocess.run(command + ["-fsyntax-only", str(tu)], capture_output=True, text=True)
        return header, r.returncode, r.stdout + r.stderr

    failures = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for header, rc, out in pool.map(check, headers):
            if rc != 0:
                failures += 1
                print(f"FAIL {header} does not compile alone as HIP:\n{out}")
    print(f"{len(headers)} headers compiled alone as HIP; {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

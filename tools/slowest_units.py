#!/usr/bin/env python3
"""Print the slowest build steps (translation units, device compiles) from a .ninja_log.

Compile time is a budget, spent mostly on template instantiation (wavekit keeps one heavy
instantiation per translation unit and prefers plain loops to recursive metaprogramming): every
build through the scripts prints this list so a template that got expensive is seen the day it lands.
"""
import os
import sys


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "build/ci/.ninja_log"
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    latest = {}
    build_dir = os.path.dirname(os.path.abspath(path))
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            start, end, _mtime, output, _hash = line.rstrip("\n").split("\t")
            if os.path.isabs(output):  # custom commands may log absolute outputs
                output = os.path.relpath(output, build_dir)
            latest[output] = int(end) - int(start)  # later entries are newer builds
    units = [(ms, out) for out, ms in latest.items() if out.endswith((".o", ".obj", ".s"))]
    units.sort(reverse=True)
    print(f"Slowest {min(count, len(units))} of {len(units)} compile steps (last build of each):")
    for ms, out in units[:count]:
        print(f"  {ms / 1000:7.2f} s  {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""An emulated benchmark's --benchmark_format=json output is valid JSON with its counters and no time.

    check_bench_json.py <benchmark binary> <filter>

Runs the binary with --benchmark_format=json and the filter, parses stdout as JSON, and checks
that it names the emulated target, that every run has a name and counters, and that no run has a
time field (on the emulator a time would be the CPU's emulating the kernel, not the kernel's).
"""
import json
import subprocess
import sys


def main():
    binary, filt = sys.argv[1], sys.argv[2]
    out = subprocess.run([binary, "--benchmark_format=json", "--benchmark_filter=" + filt],
                         capture_output=True, text=True, check=True).stdout
    doc = json.loads(out)
    runs = doc["benchmarks"]
    problems = []
    if "wavekit_emulated_target" not in doc.get("context", {}):
        problems.append("the context does not name the emulated target")
    if not runs:
        problems.append("no run matched " + filt)
    for run in runs:
        if "name" not in run or len(run) < 3:
            problems.append("a run without a name or counters: %r" % run)
        for key in ("real_time", "cpu_time", "time_unit"):
            if key in run:
                problems.append("%s has a time field %s" % (run.get("name"), key))
    for p in problems:
        print("FAIL", p)
    print("%d runs, valid JSON; %d problems" % (len(runs), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""wavekit_perf_model --profile/--launch, the model's input for kernels that are not wavekit's:

- every published calibration pair's command (the report's JSON holds it: the pair's profile rows,
  as tools/codegen_report.py profile prints them, and its launch descriptions) predicts the time the
  calibration reports for that pair: the seed's predictions come from its profiles alone;
- `tools/codegen_report.py profile` on a wavekit kernel's assembly gives a row the command takes;
- malformed rows and descriptions are refused (exit 2) with a message naming the field.

  test_perf_model_foreign.py --model wavekit_perf_model --asm KERNEL.s
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def run(model, args):
    return subprocess.run([model] + args, capture_output=True, text=True)


def predicted(out):
    m = re.search(r"predicted ([0-9.]+) us on (\S+), interval ([0-9.]+) to ([0-9.]+) us", out)
    return (float(m.group(1)), float(m.group(3)), float(m.group(4))) if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--asm", required=True, help="a wavekit kernel's assembly (a codegen output)")
    args = ap.parse_args()

    data = json.loads(subprocess.run([args.model], capture_output=True, text=True, check=True).stdout)
    pairs = data["calibration"]["pairs"]
    check(len(pairs) >= 6, f"the calibration has its published pairs ({len(pairs)})")
    for p in pairs:
        argv = shlex.split(p["command"])
        check(argv[0] == "wavekit_perf_model", f"{p['id']}: the command names the tool")
        r = run(args.model, argv[1:])
        got = predicted(r.stdout)
        check(r.returncode == 0 and got is not None and abs(got[0] - p["us"]) <= 0.005 + 1e-4 * p["us"],
              f"{p['id']}: the command predicts the calibration's {p['us']:.2f} us (got {got}, rc {r.returncode})")
        if got:
            check(got[1] <= got[0] <= got[2], f"{p['id']}: the prediction lies in its interval {got[1:]}")

    # A wavekit kernel through the same path: its profile row from its assembly.
    prof = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "codegen_report.py"), "profile", "--arch",
                           "gfx942", args.asm], capture_output=True, text=True)
    row = prof.stdout.splitlines()[0] if prof.stdout else ""
    check(prof.returncode == 0 and row.startswith("target=gfx942 "), f"codegen_report.py profile prints a row: {row[:60]}")
    launch = "workgroups=608,waves=4,iterations=32,loaded=4e8,dram=5e7,written=1e7,lds=1e6"
    r = run(args.model, ["--profile", row, "--launch", launch])
    check(r.returncode == 0 and predicted(r.stdout) is not None, "the row and a launch give a prediction")
    two = run(args.model, ["--profile", row, "--launch", launch, "--profile", "none", "--launch",
                           "workgroups=100,loaded=1e6,dram=1e6,written=1e6"])
    lines = [l for l in two.stdout.splitlines() if l.startswith("launch ")]
    check(two.returncode == 0 and len(lines) == 2 and predicted(two.stdout)[0] > predicted(r.stdout)[0],
          "two launches add up")

    # Refusals: exit 2 and the field named.
    for argv, needle in (
            (["--launch", launch], "give its kernel's --profile first"),
            (["--profile", row.replace("occupancy=", "occupancy=x"), "--launch", launch], "occupancy=x"),
            (["--profile", row.replace("target=gfx942", "target=gfx90a"), "--launch", launch], "target=gfx90a"),
            (["--profile", row, "--launch", launch.replace("loaded=4e8,", "")], "missing loaded="),
            (["--profile", row, "--launch", launch.replace("waves=4", "waves=40")], "waves=40"),
            (["--profile", row, "--launch", "workgroups=-3,loaded=0,dram=0,written=0"], "workgroups=-3"),
            (["--profile", row, "--launch", "workgroups"], "is not key=value"),
            (["--profile", row], "no --launch given"),
            (["--frobnicate", "1"], "unknown argument --frobnicate")):
        r = run(args.model, argv)
        check(r.returncode == 2 and needle in r.stderr, f"refused with '{needle}' (rc {r.returncode}: {r.stderr[:80]!r})")

    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

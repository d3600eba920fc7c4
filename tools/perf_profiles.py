#!/usr/bin/env python3
"""Write include/wavekit/planning/model/codegen_profiles.hpp from the codegen reports (report.json per
target, tools/codegen_report.py): the figures the performance model reads, one row per kernel.

  perf_profiles.py --out FILE REPORT.json [REPORT.json ...]
  perf_profiles.py --check FILE REPORT.json ...   fail (naming the fix) if FILE is stale
"""
import argparse
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INSTANCE_LIST = os.path.join(ROOT, "include", "wavekit", "planning", "instances.hpp")
FAMILY_LINE = re.compile(r'^    \{"([a-z0-9_]+)", "([a-z0-9_]+)", "([^"]*)", "([^"]*)", "([^"]*)"\},$')


def families(path=INSTANCE_LIST):
    """The instance families of planning/instances.hpp: (op, name, configs, variants) per line."""
    out = []
    with open(path) as f:
        for line in f:
            m = FAMILY_LINE.match(line.rstrip("\n"))
            if m:
                out.append((m.group(1), m.group(2), m.group(3), m.group(4).split()))
    return out


def config_ids(configs):
    """The config ids of a list header (its X(...) lines, as codegen/CMakeLists.txt reads them)."""
    with open(os.path.join(ROOT, "include", "wavekit", configs)) as f:
        return re.findall(r"\n  X\(([a-z0-9_]+),", f.read())


def listed(instance, fams):
    """Whether a report's instance is one the list names: a hand-written family's name, or
    <name>_<config>_<variant> of a family with a config list."""
    for _, name, configs, variants in fams:
        if not configs and instance == name:
            return True
        if configs and any(instance == f"{name}_{c}_{v}" for c in config_ids(configs) for v in variants):
            return True
    return False


def rows(reports):
    out = []
    for path in reports:
        with open(path) as f:
            data = json.load(f)
        arch = data["arch"]
        for k in data["kernels"]:
            instance = k["source"][: -len("_" + arch + ".s")] if k["source"].endswith("_" + arch + ".s") \
                else k["source"][: -len(".s")]
            loop = k.get("loop") or {}
            out.append((arch, instance, k["name"], k["vgpr"], k["agpr"], k["lds"], k["occupancy"],
                        loop.get("instructions", 0), loop.get("mfma", 0), float(loop.get("mfma_work", 0.0)),
                        float(loop.get("mfma_cycles", 0.0)), loop.get("barriers", 0), loop.get("valu", 0),
                        loop.get("vmem_loads", 0), float(loop.get("load_cover", 0.0)), loop.get("mfma_kind", "")))
    out.sort(key=lambda r: (r[0], r[1], r[2]))
    return out


def render(reports):
    text = HEADER
    for r in rows(reports):
        text += (f"    kernel_profile{{arch::target::{r[0]}, \"{r[1]}\", \"{r[2]}\", {r[3]}, {r[4]}, {r[5]}, {r[6]}, "
                 f"{r[7]}, {r[8]}, {r[9]:.1f}, {r[10]:.1f}, {r[11]}, {r[12]}, {r[13]}, {r[14]:.3f}, \"{r[15]}\"}},\n")
    return text + "};\n// clang-format on\n\n}  // namespace wavekit::planning\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--check")
    ap.add_argument("reports", nargs="+")
    args = ap.parse_args()
    fams = families()
    unlisted = sorted({r[1] for r in rows(args.reports) if not listed(r[1], fams)})
    if unlisted:
        print("FAIL the codegen reports hold instances that include/wavekit/planning/instances.hpp does not list: "
              + ", ".join(unlisted))
        return 1
    text = render(args.reports)
    if args.check:
        with open(args.check) as f:
            if f.read() != text:
                print(f"FAIL {args.check} is stale against the codegen reports; regenerate it with "
                      "`cmake --build --preset ci --target perf_profiles`")
                return 1
        print(f"{args.check} matches the codegen reports")
        return 0
    with open(args.out, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

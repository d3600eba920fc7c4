"""Shared command line of the dump-and-check tests (wavekit_add_dump_check in test/CMakeLists.txt):
run the C++ dumper into a work directory and return that directory."""
import argparse
import os
import subprocess


def run_dumper(description):
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--dumper", required=True, help="the C++ program that writes wavekit's answers")
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    subprocess.run([args.dumper, args.workdir], check=True)
    return args.workdir

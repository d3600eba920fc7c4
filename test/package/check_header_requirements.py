#!/usr/bin/env python3
"""Every public header stops a compile it cannot serve with one sentence naming the requirement.

    check_header_requirements.py --include-dir include --expect REGEX -- <compiler and flags>

Each header (but wavekit/version.hpp, which any compile may read) gets a translation unit that
includes only it, compiled with -fsyntax-only by the given command (one that breaks a requirement:
-std=c++17, or an AMDGPU device pass without HIP). The compile must fail; its first error must
match REGEX (the #error of wavekit/core/requirements.hpp), and the only other error allowed is
the fatal include that stops the compile there. Exits 1 otherwise, printing what the compiler said.
"""
import argparse
import concurrent.futures
import os
import pathlib
import re
import subprocess
import sys
import tempfile

STOP = "compilation stops here"


def main():
    if "--" not in sys.argv:
        sys.exit("usage: check_header_requirements.py --include-dir D --expect REGEX -- compiler flags...")
    split = sys.argv.index("--")
    ap = argparse.ArgumentParser()
    ap.add_argument("--include-dir", required=True)
    ap.add_argument("--expect", required=True)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args(sys.argv[1:split])
    command = sys.argv[split + 1:]
    root = pathlib.Path(args.include_dir)
    headers = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.suffix in (".hpp", ".h"))
    headers = [h for h in headers if h != "wavekit/version.hpp"]
    expect = re.compile(args.expect)
    work = pathlib.Path(tempfile.mkdtemp(prefix="wavekit_requirements_"))

    def check(header):
        tu = work / (header.replace("/", "_").replace(".", "_") + ".cpp")
        tu.write_text(f"#include <{header}>\n")
        r = subprocess.run(command + ["-fsyntax-only", f"-I{root}", str(tu)], capture_output=True, text=True)
        out = r.stdout + r.stderr
        errors = [line for line in out.splitlines() if re.search(r"\b(error|fatal error):", line)]
        problem = None
        if r.returncode == 0:
            problem = "compiled, but must stop with the requirement's #error"
        elif not errors or not expect.search(errors[0]):
            problem = "the first error is not the requirement's #error"
        elif any(STOP not in e for e in errors[1:]):
            problem = "errors other than the requirement's follow it"
        return header, problem, out

    failures = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for header, problem, out in pool.map(check, headers):
            if problem:
                failures += 1
                print(f"FAIL {header}: {problem}:\n{out}")
    print(f"{len(headers)} headers stop with the requirement; {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

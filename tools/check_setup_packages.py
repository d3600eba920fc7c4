#!/usr/bin/env python3
"""Checks that scripts/setup-debian.sh installs everything the configure step found.

The configure step (cmake/WavekitDependencies.cmake) writes one line per external program or
library it found: the Debian package it expects to provide it, the path, and what it is for. For
each line this fails when
  - the expected package is not in setup-debian.sh's `packages=(...)` list, or
  - dpkg says the file belongs to a package that neither that list nor anything it depends on
    (recursively) installs.
A file that no Debian package owns (a tool installed by hand, a pip cmake) is reported and
checked only by its expected package. Exit 77 (skipped) where there is no dpkg.

    check_setup_packages.py --setup scripts/setup-debian.sh --manifest build/ci/wavekit-dependencies.tsv
"""
import argparse
import os
import re
import shutil
import subprocess
import sys


def setup_packages(path):
    """The words of the `packages=( ... )` array of setup-debian.sh (comments dropped)."""
    text = open(path).read()
    match = re.search(r"^packages=\((.*?)^\)", text, re.S | re.M)
    if not match:
        sys.exit(f"{path}: no packages=( ... ) list")
    words = []
    for line in match.group(1).splitlines():
        words += line.split("#")[0].split()
    return set(words)


def installed_dependency_graph():
    """{package: set of packages it depends on (all alternatives)}, and {virtual: providers}."""
    out = subprocess.run(
        ["dpkg-query", "-W", "-f=${Package}\t${db:Status-Status}\t${Pre-Depends}, ${Depends}\t${Provides}\n"],
        capture_output=True, text=True, check=True).stdout
    depends, providers = {}, {}
    for line in out.splitlines():
        name, state, deps, provides = (line.split("\t") + ["", "", ""])[:4]
        if state != "installed":
            continue
        names = set()
        for clause in deps.split(","):
            for alternative in clause.split("|"):
                word = alternative.strip().split(" ")[0].split(":")[0]
                if word:
                    names.add(word)
        depends[name] = names
        for p in provides.split(","):
            word = p.strip().split(" ")[0]
            if word:
                providers.setdefault(word, set()).add(name)
    return depends, providers


def closure(roots, depends, providers):
    seen, todo = set(), list(roots)
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        for d in depends.get(p, ()):
            todo.append(d)
            todo.extend(providers.get(d, ()))
    return seen


def owners(path):
    """Packages dpkg says own `path` (as given, then with links resolved); empty if none."""
    found = set()
    for candidate in dict.fromkeys([path, os.path.realpath(path)]):
        r = subprocess.run(["dpkg-query", "-S", candidate], capture_output=True, text=True)
        if r.returncode == 0:
            for line in r.stdout.splitlines():
                # "pkg1, pkg2:amd64: /path"  (diversions start with "diversion by")
                if line.startswith("diversion"):
                    continue
                head = line.rsplit(": ", 1)[0]
                for p in head.split(","):
                    found.add(p.strip().split(":")[0])
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--setup", required=True)
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--without", action="append", default=[],
                    help="check as if setup-debian.sh did not name this package (the test of this check)")
    args = ap.parse_args()
    if not shutil.which("dpkg-query"):
        print("no dpkg here: nothing to check against Debian's packages")
        return 77
    named = setup_packages(args.setup) - set(args.without)
    depends, providers = installed_dependency_graph()
    provided = closure(named, depends, providers)
    problems, checked = [], 0
    for line in open(args.manifest):
        if line.startswith("#") or not line.strip():
            continue
        package, path, use = line.rstrip("\n").split("\t")
        checked += 1
        if package not in named:
            problems.append(f"{path} ({use}) comes from the Debian package '{package}', "
                            f"which {args.setup} does not install")
            continue
        own = owners(path)
        if not own:
            print(f"note: {path} ({use}) belongs to no Debian package here; expected from '{package}'")
        elif not own & provided:
            problems.append(f"{path} ({use}) belongs to {', '.join(sorted(own))}, which {args.setup} "
                            f"does not install (not even as a dependency of what it names)")
    for p in problems:
        print("FAIL " + p)
    print(f"{checked} files the configure step found; {len(problems)} from packages setup-debian.sh misses")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

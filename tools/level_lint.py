#!/usr/bin/env python3
"""Fails on a header that includes a level above its own (README.md, "Each level includes only the
levels below it").

The levels of include/wavekit, lowest first:

    core (and the top-level headers) < arch < tile < warp < block < planning < ops < host

A header of level L may include headers of L and of the levels below it, never one above: a part
of tile/ that needed block/ would lift tile/ above block/ (the parts two ops share would then
depend on a whole block-level op). No header of include/wavekit includes the emulator
(wavekit/emu/...): it plugs into arch/ through arch/platform_hooks.hpp.

    level_lint.py [--root DIR]   DIR holds include/wavekit (default: the repository)
    level_lint.py --self-test    the check on planted trees: it must name each upward include

Prints each violation as file:line and exits 1 if there is any.
"""
import argparse
import os
import re
import sys
import tempfile

LEVELS = ["core", "arch", "tile", "warp", "block", "planning", "ops", "host"]
RANK = {name: i for i, name in enumerate(LEVELS)}
INCLUDE = re.compile(r'^\s*#\s*include\s+"wavekit/([^"]+)"')


def level_of(relative):
    """The level of a path relative to include/wavekit: its first directory, or core for a
    top-level header (version.hpp)."""
    head = relative.split("/", 1)
    return head[0] if len(head) == 2 else "core"


def violations(root):
    base = os.path.join(root, "include", "wavekit")
    if not os.path.isdir(base):
        sys.exit(f"level_lint: {base} is not a directory")
    found = []
    for directory, _, files in os.walk(base):
        for name in sorted(files):
            if not name.endswith(".hpp"):
                continue
            path = os.path.join(directory, name)
            own = level_of(os.path.relpath(path, base).replace(os.sep, "/"))
            if own not in RANK:
                found.append(f"{path}: level {own}/ is not one of {', '.join(LEVELS)}")
                continue
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = m.group(1)
                    to = level_of(target)
                    if to == "emu":
                        found.append(f"{path}:{number}: {own}/ includes the emulator ({target}); "
                                     "the emulator plugs in through arch/platform_hooks.hpp")
                    elif to not in RANK:
                        found.append(f"{path}:{number}: {own}/ includes {target}, of no level")
                    elif RANK[to] > RANK[own]:
                        found.append(f"{path}:{number}: {own}/ includes {target}: {to}/ is above {own}/ "
                                     f"({' < '.join(LEVELS)})")
    return found


def self_test():
    """Plants headers in a temporary tree: a tile/ header that includes block/, an arch/ header that
    includes the emulator, and a block/ one that includes tile/ and core/ (allowed); the check must
    name the first two and only them."""
    headers = {
        "tile/upward.hpp": '#include "wavekit/core/platform.hpp"\n#include "wavekit/block/part.hpp"\n',
        "arch/emulated.hpp": '#include "wavekit/emu/runtime.hpp"\n',
        "block/part.hpp": '#include "wavekit/tile/upward.hpp"\n#include "wavekit/core/platform.hpp"\n',
        "version.hpp": "",
    }
    with tempfile.TemporaryDirectory() as root:
        for relative, text in headers.items():
            path = os.path.join(root, "include", "wavekit", relative)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        found = violations(root)
    expected = ["tile/upward.hpp:2: tile/ includes block/part.hpp", "arch/emulated.hpp:1: arch/ includes the emulator"]
    missing = [e for e in expected if not any(e in v for v in found)]
    if missing or len(found) != len(expected):
        print("level_lint self-test: expected exactly", expected, "got", found)
        return 1
    print("level_lint self-test: both planted includes named, nothing else")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    found = violations(args.root)
    for v in found:
        print(v)
    if found:
        print(f"level_lint: {len(found)} include(s) against the levels")
        return 1
    print("level_lint: every header includes only its level and those below it")
    return 0


if __name__ == "__main__":
    sys.exit(main())

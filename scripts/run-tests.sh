#!/usr/bin/env bash
# Installs what is needed, builds everything with the `ci` preset (CPU build + gfx942 codegen
# report), prints the ten slowest translation units, and runs the whole test suite.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
scripts/setup-debian.sh
cmake --preset ci
cmake --build --preset ci
.venv/bin/python3 tools/slowest_units.py build/ci/.ninja_log
ctest --preset ci

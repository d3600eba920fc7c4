#!/usr/bin/env bash
# Measures what CI meets on a new machine: a fresh clone of HEAD built and tested with no compiler
# cache (CCACHE_DISABLE=1), as scripts/run-tests.sh does it, on the cores this machine has. Prints
# the build, test and total minutes and fails when the total passes the budget (45 minutes by
# default: CI's limit is 90, the budget leaves room for a slower or shared machine).
#
#   scripts/time-cold-run.sh [budget_minutes]    (WAVEKIT_COLD_DIR: where to clone; default a temp dir)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
budget=${1:-45}
dir=${WAVEKIT_COLD_DIR:-$(mktemp -d /tmp/wavekit-cold.XXXXXX)}
rm -rf "$dir"
git clone -q "$root" "$dir"
cd "$dir"
export CCACHE_DISABLE=1
start=$(date +%s)
scripts/setup-debian.sh > setup.log 2>&1
cmake --preset ci > configure.log 2>&1
configured=$(date +%s)
cmake --build --preset ci > build.log 2>&1
built=$(date +%s)
.venv/bin/python3 tools/slowest_units.py build/ci/.ninja_log | tee slowest_units.txt
set +e
ctest --preset ci > ctest.log 2>&1
rc=$?
set -e
tested=$(date +%s)
minutes() { awk -v s="$1" 'BEGIN { printf "%.1f", s / 60 }'; }
echo "cold run of $(git rev-parse --short HEAD) on $(nproc) cores in $dir:"
echo "  configure $(minutes $((configured - start))) min, build $(minutes $((built - configured))) min," \
     "tests $(minutes $((tested - built))) min; total $(minutes $((tested - start))) min (budget $budget)"
grep -E "tests passed|tests failed" ctest.log || true
if [ "$rc" -ne 0 ]; then
  echo "FAIL: the test suite failed (ctest.log)"
  exit 1
fi
if [ $((tested - start)) -gt $((budget * 60)) ]; then
  echo "FAIL: over the $budget-minute budget"
  exit 1
fi

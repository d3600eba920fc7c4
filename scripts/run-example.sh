#!/usr/bin/env bash
# Installs what is needed, builds the main example and runs it. Until the block-scaled GEMM lands
# the main example is the numerics self-check followed by the gfx942 codegen report.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
scripts/setup-debian.sh
cmake --preset ci
cmake --build --preset ci --target numerics_selfcheck codegen_report_gfx942
build/ci/examples/numerics_selfcheck/numerics_selfcheck build/ci/codegen/gfx942/report.md

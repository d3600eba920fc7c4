#!/usr/bin/env bash
# Installs what is needed, builds the main example and runs it: wavekit's block-scaled fp8 GEMM on
# an amd-fp8-mm test shape, on the CPU emulator (gfx942), checked against the host reference.
# Arguments are passed on: scripts/run-example.sh M N K [k|mn].
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
scripts/setup-debian.sh
cmake --preset ci
cmake --build --preset ci --target gemm_fp8_blockscale_example
build/ci/examples/gemm_fp8_blockscale/gemm_fp8_blockscale "$@"

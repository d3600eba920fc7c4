#!/usr/bin/env bash
# Installs what wavekit's build, tests and examples need on Debian bookworm:
#   - Debian packages (only those missing; uses sudo when not root)
#   - a Python virtual environment in .venv (on Debian's python3) with the pinned packages of
#     tools/requirements.txt, and PyPI's CMake 3.22.6 in .venv/cmake-3.22 (the oldest CMake
#     wavekit's consumers may use; a package test builds a consumer with it)
# Safe to run repeatedly; it does nothing when everything is present. The configure step looks up
# every program and library below and names its package when one is missing; the test
# "unit.setup: ..." fails when it found one whose package this list does not name.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

packages=(
  cmake ninja-build ccache            # build
  clang-19 lld-19 llvm-19             # host compiler, AMDGPU device codegen, llvm-dis/llvm-as
  binutils                            # ld, run by clang-19 to link host programs
  clang-tools-19                      # clang-offload-bundler, run by clang-19 for HIP objects
  g++                                 # the test that host headers compile with g++
  libamdhip64-dev rocm-device-libs    # HIP headers and device libraries for gfx942 codegen
  catch2 libbenchmark-dev             # tests and benchmarks
  libboost-context-dev                # fibers of the CPU emulator
  libclang-rt-19-dev                  # ThreadSanitizer runtime: the emulator's data-race check
  clang-format-19                     # format check
  python3 python3-venv                # codegen report, cross-checks
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "wavekit setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Debian's python3, whatever else is first on PATH: its package is the one named above.
venv="$root/.venv"
if [ ! -x "$venv/bin/python3" ] || ! grep -qx "home = /usr/bin" "$venv/pyvenv.cfg" 2>/dev/null; then
  echo "wavekit setup: creating $venv"
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv"
fi
if ! "$venv/bin/python3" - "$root/tools/requirements.txt" <<'PY' 2>/dev/null; then
import sys
from importlib.metadata import version
for line in open(sys.argv[1]):
    spec = line.split("#")[0].strip()
    if spec:
        name, wanted = spec.split("==")
        assert version(name) == wanted, name
PY
  echo "wavekit setup: installing Python packages into $venv"
  "$venv/bin/python3" -m pip install -q --disable-pip-version-check -r "$root/tools/requirements.txt"
fi
# The oldest CMake wavekit's consumers may use, for test/package's consumer build: PyPI's, in its
# own folder so that it never shadows the system cmake.
cmake_min="$venv/cmake-3.22"
if [ "$("$cmake_min/cmake/data/bin/cmake" --version 2>/dev/null | head -n1)" != "cmake version 3.22.6" ]; then
  echo "wavekit setup: installing CMake 3.22.6 into $cmake_min"
  rm -rf "$cmake_min"
  "$venv/bin/python3" -m pip install -q --disable-pip-version-check --target "$cmake_min" cmake==3.22.6
fi

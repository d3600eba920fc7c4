#!/bin/sh
# A stand-in for clang's driver whose -### lists a helper it could not find by its bare name, as
# clang-19 does for clang-offload-bundler without clang-tools-19.
echo ' "/usr/lib/llvm-19/bin/clang" "-cc1" "-triple" "amdgcn-amd-amdhsa"' >&2
echo ' "clang-offload-bundler" "-type=o"' >&2

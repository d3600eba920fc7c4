#!/bin/bash
# Compile the kernels RadeonFlow's published GEMM times ran (shared/reference/problems.md 1) and print
# the performance model's profile row of each: the rows tools/perf_model/published_pairs.hpp holds.
# Needs sources that are not wavekit's and are not fetched by CI; pass their paths:
#
#   tools/foreign_kernels/profile_radeonflow.sh RADEONFLOW HIP_INCLUDE ROCWMMA_INCLUDE DEVICE_LIBS OUT
#
#   RADEONFLOW       a RadeonFlow_Kernels checkout at 685749e5af9bc8a774f0f88e2d99c05b603f4c66
#   HIP_INCLUDE      HIP headers of the ROCm 6.3 line (hip_fp8.h, hip_bf16.h: Debian's HIP 5.2 has neither)
#   ROCWMMA_INCLUDE  rocWMMA 1.6 (ROCm 6.3) headers: the directory holding rocwmma/
#   DEVICE_LIBS      the device libraries wavekit's build derives (build/ci/amdgcn-bitcode)
#   OUT              a directory for the wrappers, assembly and rows
#
# Flags are wavekit's codegen flags but for the contraction: RadeonFlow's build passes none, so
# clang's HIP default (-ffp-contract=fast-honor-pragmas) is what the timed kernels were compiled
# with. The kernel sources are included unmodified; a wrapper per instance instantiates the
# template arguments RadeonFlow's launcher passes for each benchmark shape.
set -euo pipefail
if [ $# -ne 5 ]; then sed -n 2,18p "$0"; exit 2; fi
RF=$(realpath "$1") HIP=$(realpath "$2") WMMA=$(realpath "$3") LIBS=$(realpath "$4") OUT=$5
TOOL=$(dirname "$(realpath "$0")")/../codegen_report.py
mkdir -p "$OUT"
cat > "$OUT/common.hpp" <<EOW
// Includes RadeonFlow's kernel sources as src/gemm/gemm_launcher.cpp does.
#define PARAMETERIZE_LIBRARY
#include "$RF/src/gemm/gemm_kernel.cpp"
#include "$RF/src/gemm/transpose_kernel.cpp"
#undef PARAMETERIZE_LIBRARY
EOW
gemm() {  # name M N K SPLITK: launch_gemm's gemm_kernel instance (256 x 128 x 128, 512 threads)
  local out=float
  [ "$5" = 1 ] && out=__BF16_TYPE
  printf '#include "common.hpp"\ntemplate __global__ void gemm_kernel::gemm_kernel<__FP8_TYPE, float, %s, %s, %s, %s / %s, 256, 128, 128, 128, 512, 4, 2, %s, %s, 16>(const __FP8_TYPE (*)[%s], const __FP8_TYPE (*)[%s], %s (*)[%s], const float (*)[%s], const float (*)[ceil_div(%s, 128)]);\n' \
    "$out" "$2" "$3" "$4" "$5" "$4" "$4" "$4" "$4" "$out" "$3" "$2" "$3" > "$OUT/$1.hip"
}
reduce() {  # name M N SPLITK
  printf '#include "common.hpp"\ntemplate __global__ void gemm_kernel::reduce_kernel<%s, %s, %s, 256>(const float (*)[%s][%s], __hip_bfloat16 (*)[%s]);\n' \
    "$2" "$3" "$4" "$2" "$3" "$3" > "$OUT/$1.hip"
}
transpose() {  # name DIM0 DIM1 TILE BLOCK VEC: transpose_fp8<DIM0, DIM1>'s instance
  printf '#include "common.hpp"\ntemplate __global__ void transpose_kernel::transpose_kernel<__FP8_TYPE, %s, %s, %s, %s, %s>(__FP8_TYPE *, const __FP8_TYPE *);\n' \
    "$2" "$3" "$4" "$5" "$6" > "$OUT/$1.hip"
}
gemm gemm_c0 1024 1536 7168 4; reduce reduce_c0 1024 1536 4
transpose transpose_b_c0 7168 1536 128 1024 8; transpose transpose_a_c0 7168 1024 64 256 4
gemm gemm_c1 1024 3072 1536 2; reduce reduce_c1 1024 3072 2
transpose transpose_b_c1 1536 3072 64 512 4; transpose transpose_a_c1 1536 1024 64 1024 4
gemm gemm_c2 1024 576 7168 8; reduce reduce_c2 1024 576 8
transpose transpose_b_c2 7168 576 64 512 4; transpose transpose_a_c2 7168 1024 64 256 4
gemm gemm_c3 1024 7168 256 1
transpose transpose_b_c3 256 7168 64 256 8; transpose transpose_a_c3 256 1024 64 256 4
gemm gemm_c4 1024 7168 2048 1
transpose transpose_b_c4 2048 7168 128 512 8; transpose transpose_a_c4 2048 1024 64 1024 4
gemm gemm_c5 1024 4608 7168 2; reduce reduce_c5 1024 4608 2
transpose transpose_b_c5 7168 4608 128 512 8; transpose transpose_a_c5 7168 1024 64 256 4
for w in "$OUT"/*.hip; do
  n=${w%.hip}
  # -I, not --hip-path, for the newer headers: clang drops an -I that repeats its HIP path, and
  # Debian's /usr/include (HIP 5.2) would come first.
  clang++-19 -x hip -std=c++20 -O3 --cuda-device-only -ffp-contract=fast-honor-pragmas --hip-path=/usr \
    --rocm-device-lib-path="$LIBS" -I"$HIP" -I"$WMMA" -DTEST_ON_HIP -DHIP_ENABLE_WARP_SYNC_BUILTINS \
    --offload-arch=gfx942 -w -S -o "$n.s" "$w"
  echo "$(basename "$n"): $(python3 "$TOOL" profile --arch gfx942 "$n.s")"
done

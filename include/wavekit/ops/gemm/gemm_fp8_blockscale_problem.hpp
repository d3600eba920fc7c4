// The block-scaled fp8 GEMM (DeepSeek-V3 style), host side: problem, arguments, validation.
//
//   C (M, N) bf16 = sum over K blocks of 128:  a_scale(m, kb) * b_scale(n / 128, kb) *
//                                              sum_k A(m, k) * B(n, k)
// A and B are fp8 (e4m3fnuz on gfx942, e4m3fn on gfx950) with fp32 scales: one per row of A per
// 128 K (1x128), one per 128x128 block of B. Two storage orders, both read directly:
//
//   layout::k_contiguous   A [M][K], B [N][K], a_scale [M][K/128], b_scale [ceil(N/128)][K/128]
//   layout::mn_contiguous  A [K][M], B [K][N], a_scale [K/128][M], b_scale [K/128][ceil(N/128)]
//                          (the amd-fp8-mm reference problem's order)
//
// C is [M][N] row-major. Legal shapes: M >= 1, N a multiple of 16, K a multiple of 128; in the
// mn_contiguous order M must also be a multiple of 16 (its rows of A are 16-byte vector loads).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "wavekit/core/layout.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/status.hpp"

namespace wavekit::ops {

inline constexpr int blockscale_k = 128;  // the scale block along K (and along N for B)

struct gemm_fp8_blockscale_problem {
  int m = 0, n = 0, k = 0;
  layout order = layout::k_contiguous;

  int k_blocks() const { return k / blockscale_k; }
  int n_blocks() const { return (n + blockscale_k - 1) / blockscale_k; }
  std::string str() const {
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " + to_string(order);
  }
};

template <class Fp8>
struct gemm_fp8_blockscale_args {
  const Fp8* a = nullptr;
  const Fp8* b = nullptr;
  const float* a_scale = nullptr;
  const float* b_scale = nullptr;
  bf16* c = nullptr;
  void* workspace = nullptr;  // fp32 split-K partials; see gemm_fp8_blockscale_workspace_bytes
  std::size_t workspace_bytes = 0;
};

// Shape and argument checks shared by every config; run before any launch.
template <class Fp8>
status validate_blockscale(const gemm_fp8_blockscale_problem& p, const gemm_fp8_blockscale_args<Fp8>& a) {
  const std::string what = "gemm_fp8_blockscale " + p.str() + ": ";
  if (p.m <= 0 || p.n <= 0 || p.k <= 0) return {status_code::bad_shape, what + "M, N and K must be positive"};
  if (p.n % 16) return {status_code::bad_shape, what + "N must be a multiple of 16"};
  if (p.k % blockscale_k) return {status_code::bad_shape, what + "K must be a multiple of 128 (the scale block)"};
  if (p.order == layout::mn_contiguous && p.m % 16)
    return {status_code::bad_alignment,
            what + "in the mn_contiguous order M must be a multiple of 16 (16-byte rows of A); use k_contiguous"};
  if (!a.a || !a.b || !a.a_scale || !a.b_scale || !a.c)
    return {status_code::null_pointer, what + "a, b, a_scale, b_scale and c must be non-null"};
  auto misaligned = [](const void* ptr, std::uintptr_t bytes) { return reinterpret_cast<std::uintptr_t>(ptr) % bytes; };
  if (misaligned(a.a, 16) || misaligned(a.b, 16))
    return {status_code::bad_alignment, what + "a and b must be 16-byte aligned (16-byte vector loads)"};
  if (misaligned(a.a_scale, 4) || misaligned(a.b_scale, 4) || misaligned(a.c, 4))
    return {status_code::bad_alignment, what + "a_scale, b_scale and c must be 4-byte aligned"};
  // Buffer loads address each tensor with 32-bit byte offsets.
  constexpr std::size_t limit = std::numeric_limits<std::int32_t>::max();
  const std::size_t m = p.m, n = p.n, k = p.k;
  if (m * k > limit || n * k > limit || m * n * 2 > limit || m * p.k_blocks() * 4 > limit)
    return {status_code::too_large, what + "a tensor exceeds 2^31 - 1 bytes (32-bit buffer offsets)"};
  return status::success();
}

}  // namespace wavekit::ops

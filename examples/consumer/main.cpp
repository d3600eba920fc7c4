// A host program that includes wavekit headers from an installed or embedded copy: quantize a
// row to fp8 with a 1x128 scale and to MXFP4 and check the round trip, then ask the block-scaled
// GEMM's plan query for a legal and an illegal problem. Plain C++ with no HIP: test/package builds
// it with clang and with g++.
#include <cmath>
#include <cstdio>
#include <vector>

#include <wavekit/core/numeric_types.hpp>
#include <wavekit/host/quantize_blockscale.hpp>
#include <wavekit/host/quantize_mx.hpp>
#include <wavekit/ops/gemm_fp8_blockscale/plan.hpp>

int main() {
  std::vector<float> row(128);
  for (int i = 0; i < 128; ++i) row[i] = std::sin(0.1f * float(i)) * 3.0f;
  const auto fp8 = wavekit::host::quantize_fp8_1x128<wavekit::fp8_e4m3fn>(row, 1, 128);
  const auto mx = wavekit::host::quantize_mx<wavekit::fp4_e2m1>(row, 1, 128);
  float fp8_err = 0.0f, mx_err = 0.0f;
  for (int i = 0; i < 128; ++i) {
    fp8_err = std::fmax(fp8_err, std::fabs(fp8.value_at(0, i) - row[i]));
    mx_err = std::fmax(mx_err, std::fabs(mx.value_at(0, i) - row[i]));
  }
  std::printf("consumer: fp8 1x128 max error %.4g, mxfp4 max error %.4g\n", fp8_err, mx_err);

  const wavekit::ops::gemm_fp8_blockscale::problem good{1024, 576, 7168, wavekit::layout::mn_contiguous};
  const wavekit::ops::gemm_fp8_blockscale::problem bad{1024, 576, 7000, wavekit::layout::mn_contiguous};
  const auto plan = wavekit::ops::gemm_fp8_blockscale::select_plan(good, 0, wavekit::arch::target::gfx942);
  const auto refused = wavekit::ops::gemm_fp8_blockscale::workspace_bytes(bad, wavekit::arch::target::gfx942);
  if (!plan || refused) return 1;
  std::printf("consumer: plan without workspace: %s%s; %s\n", plan.value().name.c_str(),
              plan.value().workspace_limited ? " (fewer K splits than with workspace)" : "",
              refused.error().message().c_str());
  // e4m3 keeps 3 mantissa bits (relative error <= 2^-4); fp4 1 bit (<= 2^-2 of a block's top binade).
  return fp8_err <= 3.0f / 16 && mx_err <= 1.0f ? 0 : 1;
}

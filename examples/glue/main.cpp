// wavekit's inference glue on one decode step of a DeepSeek-V3-sized layer (bf16): the residual
// added and the row normalized (RMSNorm), quantized to fp8 with 1x128 scales in the block-scaled
// GEMM's A order; then an MLP's gated activation SwiGLU(gate | up) quantized the same way. Both
// against the host references (codes and scales bit for bit, except that the device's expf, which
// the emulator models, may move a SwiGLU code by a step from the reference's host expf). On the
// CPU emulator it also prints the bytes moved against the ideal (inputs read once, outputs written
// once); on a GPU, the times.
//
//   glue [tokens hidden d [k|mn]]   default: 16 7168 2304 k
//   glue --help
#include <hip/hip_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "wavekit/arch/device.hpp"
#include "wavekit/host/reference_rmsnorm_quant.hpp"
#include "wavekit/host/reference_swiglu_quant.hpp"
#include "wavekit/ops/rmsnorm_quant.hpp"
#include "wavekit/ops/swiglu_quant.hpp"

using namespace wavekit;
namespace rq = wavekit::ops::rmsnorm_quant;
namespace sq = wavekit::ops::swiglu_quant;

namespace {

template <class U>
U* upload(const std::vector<U>& v) {
  U* d = nullptr;
  hipMalloc(&d, v.size() * sizeof(U));
  hipMemcpy(d, v.data(), v.size() * sizeof(U), hipMemcpyHostToDevice);
  return d;
}
template <class U>
std::vector<U> download(const U* d, std::size_t n) {
  std::vector<U> v(n);
  hipMemcpy(v.data(), d, n * sizeof(U), hipMemcpyDeviceToHost);
  return v;
}
std::vector<bf16> random_values(std::size_t n, std::uint32_t seed, float offset) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<bf16> v(n);
  for (bf16& e : v) e = saturate_cast<bf16>(offset + normal(rng));
  return v;
}

// Codes off the reference (more than `steps` apart, or NaN where it is not) and scales off it.
template <class Fp8>
long mismatches(const host::fp8_rows<Fp8>& ref, const std::vector<Fp8>& q, const std::vector<float>& scales,
                layout order, int steps) {
  long bad = 0;
  for (int r = 0; r < ref.rows; ++r)
    for (int c = 0; c < ref.cols; ++c) {
      const Fp8 want = ref.q[std::size_t(r) * ref.cols + c], got = q[ref.q_at(r, c, order)];
      bad += std::abs(int(want.bits) - int(got.bits)) > steps;
      if (c % 128 == 0) {
        const float s = scales[ref.scale_at(r, c, order)], t = ref.scales[std::size_t(r) * (ref.cols / 128) + c / 128];
        bad += std::abs(s - t) > float(steps) * 0x1p-23f * t;
      }
    }
  return bad;
}

template <class Fp8>
int run(int tokens, int hidden, int d, layout order) {
  const std::size_t n = std::size_t(tokens) * hidden, m = std::size_t(tokens) * d;
  const auto x = random_values(n, 1, 0.0f), residual = random_values(n, 2, 0.0f),
             weight = random_values(hidden, 3, 1.0f);
  const auto gate_up = random_values(2 * m, 4, 0.0f);
  bf16 *d_x = upload(x), *d_res = upload(residual), *d_w = upload(weight), *d_gu = upload(gate_up);
  Fp8 *d_qn = nullptr, *d_qs = nullptr;
  float *d_sn = nullptr, *d_ss = nullptr;
  hipMalloc(&d_qn, n), hipMalloc(&d_sn, n / 128 * 4), hipMalloc(&d_qs, m), hipMalloc(&d_ss, m / 128 * 4);

  const rq::problem pn{tokens, hidden, scale_granularity::group_1x128, order, rq::residual_mode::add};
  const sq::problem ps{tokens, d, scale_granularity::group_1x128, order};
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  auto start = std::chrono::steady_clock::now();
  status s = rmsnorm_quant(pn, rq::args<bf16, Fp8>{d_x, d_res, d_w, d_qn, d_sn, 1.0f, 1e-6f}, nullptr);
  hipDeviceSynchronize();
  const double norm_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
#if defined(WAVEKIT_EMULATOR)
  const emu::launch_counters norm_counters = emu::last_launch_counters();
#endif
  if (!s.ok()) return std::printf("%s\n", s.message().c_str()), 1;
  start = std::chrono::steady_clock::now();
  s = swiglu_quant(ps, sq::args<bf16, Fp8>{d_gu, d_qs, d_ss, 1.0f}, nullptr);
  hipDeviceSynchronize();
  const double swiglu_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
#if defined(WAVEKIT_EMULATOR)
  const emu::launch_counters swiglu_counters = emu::last_launch_counters();
#endif
  if (!s.ok()) return std::printf("%s\n", s.message().c_str()), 1;

  const auto norm_ref = host::reference_rmsnorm_quant<bf16, Fp8>(x, residual, weight, tokens, hidden, 1e-6f,
                                                                 scale_granularity::group_1x128, 1.0f, rq::row_threads);
  const auto swiglu_ref =
      host::reference_swiglu_quant<bf16, Fp8>(gate_up, tokens, d, scale_granularity::group_1x128, 1.0f);
  const int steps = 1;  // SwiGLU: the device's expf against the host's
  long bad_residual = 0;
  const auto new_residual = download(d_res, n);
  for (std::size_t i = 0; i < n; ++i) bad_residual += new_residual[i].bits != norm_ref.residual[i].bits;
  const long bad_norm = mismatches(norm_ref.out, download(d_qn, n), download(d_sn, n / 128), order, 0);
  const long bad_swiglu = mismatches(swiglu_ref.out, download(d_qs, m), download(d_ss, m / 128), order, steps);

  std::printf("glue: %d tokens, bf16, fp8 for %s with 1x128 scales in the %s order\n", tokens,
              to_string(arch::current_device_arch().kind), to_string(order));
  std::printf("rmsnorm_quant (hidden %d): %ld residual values, %ld codes or scales off the reference\n", hidden,
              bad_residual, bad_norm);
  std::printf("swiglu_quant (d %d): %ld codes or scales off the reference\n", d, bad_swiglu);
#if defined(WAVEKIT_EMULATOR)
  const double norm_read = double(n) * 4 + hidden * 2.0, norm_written = double(n) * 3 + double(n) / 32;
  const double swiglu_read = double(m) * 4, swiglu_written = double(m) + double(m) / 32;
  std::printf(
      "rmsnorm_quant bytes: read %.0f (ideal %.0f, ratio %.3f; the weight by %llu workgroups), written %.0f "
      "(ratio %.3f)\n",
      double(norm_counters.global_bytes_read), norm_read, double(norm_counters.global_bytes_read) / norm_read,
      static_cast<unsigned long long>(norm_counters.blocks), double(norm_counters.global_bytes_written),
      double(norm_counters.global_bytes_written) / norm_written);
  std::printf("swiglu_quant bytes: read %.0f (ratio %.3f), written %.0f (ratio %.3f)\n",
              double(swiglu_counters.global_bytes_read), double(swiglu_counters.global_bytes_read) / swiglu_read,
              double(swiglu_counters.global_bytes_written),
              double(swiglu_counters.global_bytes_written) / swiglu_written);
  (void)norm_seconds, (void)swiglu_seconds;
#else
  std::printf("time: rmsnorm_quant %.1f us, swiglu_quant %.1f us (one run each, no warm-up)\n", norm_seconds * 1e6,
              swiglu_seconds * 1e6);
#endif
  hipFree(d_x), hipFree(d_res), hipFree(d_w), hipFree(d_gu), hipFree(d_qn), hipFree(d_sn), hipFree(d_qs), hipFree(d_ss);
  const long bad = bad_residual + bad_norm + bad_swiglu;
  std::printf("%ld values off the reference\n", bad);
  return bad ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage = "usage: glue [tokens hidden d [k|mn]]\n";
  if (argc == 2 && std::string(argv[1]) == "--help") return std::printf("%s", usage), 0;
  if (argc != 1 && argc != 4 && argc != 5) return std::fprintf(stderr, "%s", usage), 2;
  int v[3] = {16, 7168, 2304};
  for (int i = 1; i < 4 && i < argc; ++i) {
    char* end = nullptr;
    const long x = std::strtol(argv[i], &end, 10);
    if (*end || x <= 0 || x > (1 << 20))
      return std::fprintf(stderr, "the sizes must be positive integers\n%s", usage), 2;
    v[i - 1] = int(x);
  }
  layout order = layout::k_contiguous;
  if (argc == 5) {
    const std::string o = argv[4];
    if (o != "k" && o != "mn") return std::fprintf(stderr, "the order is k or mn\n%s", usage), 2;
    order = o == "k" ? layout::k_contiguous : layout::mn_contiguous;
  }
  if (arch::current_device_arch().kind == arch::target::host)
    return std::fprintf(stderr, "glue: the device is neither gfx942 nor gfx950\n"), 2;
  return arch::with_device_fp8([&](auto fp8_format) { return run<decltype(fp8_format)>(v[0], v[1], v[2], order); });
}

// Every op once on the emulator, built under a sanitizer (emu/test/CMakeLists.txt builds it under
// ThreadSanitizer and under AddressSanitizer + UBSan). Under TSan the emulator's bookkeeping is not
// checked, so TSan must stay quiet, and a race it reports would be one in a kernel (race_probe
// proves planted ones are found); under ASan and UBSan nothing in the ops' host code, the emulator
// or the kernels may touch memory it does not own or compute undefined behaviour. Each call is also
// checked against its host reference where the test support has one. On gfx942: the GEMMs
// (block-scaled, direct, scaled, half), MLA decode (one split and several; lse absent), MoE routing
// and the MoE layer, RMSNorm and SwiGLU with fp8 quantization, and four host threads calling
// gemm_half at once. On gfx950: the MX ops, the MX GEMM and the MoE layer over MXFP4 weights (the
// other ops run the same emulator builtins there).
// Prints one line per op; the exit status counts the failures.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "wavekit/arch/target.hpp"

#if WAVEKIT_TARGET_GFX950
#include "support/gemm_mx_case.hpp"
#include "support/moe_mx_case.hpp"
#include "support/moe_routing_ids.hpp"
#include "wavekit/ops/gemm_mx.hpp"
#include "wavekit/ops/moe.hpp"
#else
#include "support/blockscale_case.hpp"
#include "support/device_upload.hpp"
#include "support/gemm_fp8_scaled_case.hpp"
#include "support/gemm_half_case.hpp"
#include "support/mla_case.hpp"
#include "support/moe_case.hpp"
#include "wavekit/arch/gfx942.hpp"
#include "wavekit/host/reference_moe_routing.hpp"
#include "wavekit/ops/gemm_fp8_blockscale.hpp"
#include "wavekit/ops/gemm_fp8_direct.hpp"
#include "wavekit/ops/gemm_fp8_scaled.hpp"
#include "wavekit/ops/gemm_half.hpp"
#include "wavekit/ops/mla_decode.hpp"
#include "wavekit/ops/moe.hpp"
#include "wavekit/ops/rmsnorm_quant.hpp"
#include "wavekit/ops/swiglu_quant.hpp"
#endif

using namespace wavekit;

namespace {

int failures = 0;

// Reports one op: its status, and the outputs outside the reference's bound.
void report(const char* op, const status& s, int bad = 0) {
  const bool ok = s.ok() && bad == 0;
  failures += !ok;
  std::printf("%s: %s%s\n", op, ok ? "ok" : "FAILED", s.ok() ? (bad ? " (outputs outside the bound)" : "") : "");
  if (!s.ok()) std::printf("  %s\n", s.message().c_str());
}

#if WAVEKIT_TARGET_GFX950

void run_gemm_mx() {
  namespace gx = ops::gemm_mx;
  test::gemm_mx_case<fp4_e2m1, bf16> t(
      gx::problem{40, 80, 512, gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::plain}, 1);
  gx::plan_info ran;
  const status s = wavekit::gemm_mx(t.p, t.args(), nullptr, &ran);
  report("gemm_mx", s, s.ok() ? t.check(ran.plan.splits, "gemm_mx") : 0);
}

// The MoE layer over pre-shuffled MXFP4 weights (x and the gated product quantized inside).
void run_moe_mxfp4() {
  namespace moe = ops::moe;
  using cfg = ops::gemm_mx::config_decode;
  const moe::problem p{37, 512, 256, 7, 3, 0, 7, layout::k_contiguous};
  const std::size_t ws = moe::plan_workspace(p, cfg::block_m, sizeof(bf16), moe::weight_format::mxfp4).bytes;
  test::moe_mx_case<bf16> t(p, test::random_ids_with_shared(p.tokens, 2, 6, 11), 1, ws, true);
  const status s = moe::launch<cfg>(p, t.args(), arch::target::gfx950, nullptr);
  report("moe (MXFP4 weights)", s, s.ok() ? t.check(cfg::block_m, "moe mxfp4") : 0);
}

#else

using fp8 = arch::gfx942::fp8;

void run_gemm_half() {
  test::gemm_half_case<bf16, bf16> t({40, 80, 256, layout::k_contiguous}, 1);
  ops::gemm_half::plan_info ran;
  const status s = wavekit::gemm_half(t.p, t.args(), nullptr, &ran);
  report("gemm_half", s, s.ok() ? t.check(ran.plan.splits, "gemm_half") : 0);
}

void run_gemm_fp8_blockscale() {
  test::blockscale_case<fp8> t({40, 256, 384, layout::k_contiguous}, 2);
  ops::gemm_fp8_blockscale::plan_info ran;
  const status s = wavekit::gemm_fp8_blockscale(t.p, t.args(), nullptr, &ran);
  report("gemm_fp8_blockscale", s, s.ok() ? t.check(t.reference(), ran.plan.splits, "gemm_fp8_blockscale") : 0);
}

void run_gemm_fp8_scaled() {
  namespace gs = ops::gemm_fp8_scaled;
  test::gemm_fp8_scaled_case<fp8, bf16> t(
      {40, 80, 256, layout::k_contiguous, gs::scale_granularity::row, gs::scale_granularity::tensor}, 3);
  gs::plan_info ran;
  const status s = wavekit::gemm_fp8_scaled(t.p, t.args(), nullptr, &ran);
  report("gemm_fp8_scaled", s, s.ok() ? t.check(ran.plan.splits, "gemm_fp8_scaled") : 0);
}

void run_gemm_fp8_direct() {
  const int m = 64, n = 96, k = 128;
  std::mt19937 rng(4);
  std::uniform_int_distribution<int> small(-2, 2);
  std::vector<fp8> a(std::size_t(m) * k), b(std::size_t(n) * k);
  for (auto& v : a) v = saturate_cast<fp8>(float(small(rng)));
  for (auto& v : b) v = saturate_cast<fp8>(float(small(rng)));
  fp8 *da = test::upload(a), *db = test::upload(b);
  float* dc = nullptr;
  hipMalloc(&dc, sizeof(float) * m * n);
  const status s = ops::gemm_fp8_direct::launch<fp8>({da, db, dc, m, n, k}, nullptr);
  std::vector<float> c(std::size_t(m) * n);
  hipMemcpy(c.data(), dc, sizeof(float) * c.size(), hipMemcpyDeviceToHost);
  int bad = 0;  // small integers: every sum is exact
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float want = 0;
      for (int kk = 0; kk < k; ++kk)
        want += to_float(a[std::size_t(i) * k + kk]) * to_float(b[std::size_t(j) * k + kk]);
      bad += c[std::size_t(i) * n + j] != want;
    }
  report("gemm_fp8_direct", s, s.ok() ? bad : 0);
  hipFree(da), hipFree(db), hipFree(dc);
}

// Several splits (the decode and the reduce kernel), and the absent lse (allowed).
void run_mla_decode() {
  namespace mla = ops::mla_decode;
  test::mla_case<bf16> t(16, {70, 1, 0, 33}, {1, 1, 1, 1}, 0, 5);
  const mla::split_plan plan{32, 3};
  mla::args<bf16, bf16> a = t.args(plan);
  const status s = wavekit::mla_decode(t.p, t.view(), a, plan, nullptr);
  report("mla_decode", s, s.ok() ? t.check("mla_decode") : 0);
  a.lse = nullptr;
  report("mla_decode (no lse)", wavekit::mla_decode(t.p, t.view(), a, plan, nullptr));
}

// Routing on the device, its ids checked against the reference, then the layer over those ids.
void run_moe() {
  namespace moe = ops::moe;
  const moe::routing_problem rp{37, 8, 2};
  std::mt19937 rng(6);
  std::normal_distribution<float> n(0.0f, 2.0f);
  std::vector<float> logits(std::size_t(rp.tokens) * rp.experts);
  for (float& v : logits) v = n(rng);
  float *d_logits = test::upload(logits), *d_weights = nullptr;
  int* d_ids = nullptr;
  hipMalloc(&d_ids, std::size_t(rp.tokens) * rp.top_k * sizeof(int));
  hipMalloc(&d_weights, std::size_t(rp.tokens) * rp.top_k * sizeof(float));
  const status routed =
      wavekit::moe_route(rp, moe::softmax_topk{}, moe::routing_args<float>{d_logits, d_ids, d_weights}, nullptr);
  std::vector<int> ids(std::size_t(rp.tokens) * rp.top_k);
  hipMemcpy(ids.data(), d_ids, ids.size() * sizeof(int), hipMemcpyDeviceToHost);
  report("moe_route", routed, routed.ok() && ids != host::reference_route(logits, rp, moe::softmax_topk{}).ids);
  hipFree(d_logits), hipFree(d_ids), hipFree(d_weights);

  const moe::problem p{rp.tokens, 256, 96, rp.experts, rp.top_k, 0, rp.experts, layout::mn_contiguous};
  test::moe_case<bf16> t(p, ids, 7, moe::workspace_bytes(p).value());
  const status s = wavekit::moe(p, t.args(), nullptr);
  report("moe", s, s.ok() ? t.check("moe") : 0);
}

template <class T>
std::vector<T> random_values(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<T> v(n);
  for (T& e : v) e = saturate_cast<T>(normal(rng));
  return v;
}

void run_rmsnorm_quant() {
  namespace rq = ops::rmsnorm_quant;
  const rq::problem p{7, 256, scale_granularity::group_1x128, layout::k_contiguous, rq::residual_mode::add};
  const std::size_t n = std::size_t(p.tokens) * p.hidden;
  bf16 *x = test::upload(random_values<bf16>(n, 8)), *residual = test::upload(random_values<bf16>(n, 9)),
       *weight = test::upload(random_values<bf16>(p.hidden, 10));
  fp8* q = test::upload(std::vector<fp8>(n));
  float* scales = test::upload(std::vector<float>(n / 128));
  report("rmsnorm_quant", wavekit::rmsnorm_quant(p, rq::args<bf16, fp8>{x, residual, weight, q, scales}, nullptr));
  hipFree(x), hipFree(residual), hipFree(weight), hipFree(q), hipFree(scales);
}

void run_swiglu_quant() {
  namespace sq = ops::swiglu_quant;
  const sq::problem p{7, 256, scale_granularity::group_1x128, layout::k_contiguous};
  const std::size_t n = std::size_t(p.tokens) * p.d;
  bf16* x = test::upload(random_values<bf16>(2 * n, 11));
  fp8* q = test::upload(std::vector<fp8>(n));
  float* scales = test::upload(std::vector<float>(n / 128));
  report("swiglu_quant", wavekit::swiglu_quant(p, sq::args<bf16, fp8>{x, q, scales}, nullptr));
  hipFree(x), hipFree(q), hipFree(scales);
}

// Four host threads call gemm_half at once, each on its own problem, buffers and stream; each
// result must have the bits of the same call made alone.
void run_gemm_half_from_threads() {
  constexpr int threads = 4;
  auto problem_of = [](int t) { return ops::gemm_half::problem{40 + 8 * t, 80, 256, layout::k_contiguous}; };
  auto call = [&](int t, std::vector<bf16>& out) {
    test::gemm_half_case<bf16, bf16> c(problem_of(t), 20 + t);
    hipStream_t stream;
    hipStreamCreate(&stream);
    const status s = wavekit::gemm_half(c.p, c.args(), stream);
    hipStreamDestroy(stream);
    out.resize(std::size_t(c.p.m) * c.p.n);
    hipMemcpy(out.data(), c.c, out.size() * sizeof(bf16), hipMemcpyDeviceToHost);
    return s;
  };
  std::vector<std::vector<bf16> > alone(threads), together(threads);
  std::vector<status> statuses(threads);
  for (int t = 0; t < threads; ++t) statuses[t] = call(t, alone[t]);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      const status s = call(t, together[t]);
      if (!s.ok()) statuses[t] = s;
    });
  for (std::thread& t : pool) t.join();
  int differ = 0;
  status first_bad;
  for (int t = 0; t < threads; ++t) {
    differ += together[t].size() != alone[t].size() ||
              std::memcmp(together[t].data(), alone[t].data(), alone[t].size() * sizeof(bf16)) != 0;
    if (!statuses[t].ok() && first_bad.ok()) first_bad = statuses[t];
  }
  report("gemm_half from 4 host threads", first_bad, differ);
}

#endif

}  // namespace

int main() {
#if WAVEKIT_TARGET_GFX950
  run_gemm_mx();
  run_moe_mxfp4();
#else
  run_gemm_half();
  run_gemm_fp8_blockscale();
  run_gemm_fp8_scaled();
  run_gemm_fp8_direct();
  run_mla_decode();
  run_moe();
  run_rmsnorm_quant();
  run_swiglu_quant();
  run_gemm_half_from_threads();
#endif
  return failures;
}

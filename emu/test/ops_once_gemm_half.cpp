// ops_once's bf16 GEMM on gfx942: gemm_half, and four host threads calling it at once (ops_once.cpp
// says what is checked).
#include <hip/hip_runtime.h>

#include "wavekit/arch/target.hpp"

#if !WAVEKIT_TARGET_GFX950
#include <cstring>
#include <thread>
#include <vector>

#include "ops_once.hpp"
#include "support/gemm_half_case.hpp"
#include "wavekit/ops/gemm_half.hpp"

using namespace wavekit;

namespace ops_once {

void run_gemm_half() {
  test::gemm_half_case<bf16, bf16> t({40, 80, 256, layout::k_contiguous}, 1);
  ops::gemm_half::plan_info ran;
  const status s = wavekit::gemm_half(t.p, t.args(), nullptr, &ran);
  report("gemm_half", s, s.ok() ? t.check(ran.plan.splits, "gemm_half") : 0);
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
}  // namespace ops_once

#endif

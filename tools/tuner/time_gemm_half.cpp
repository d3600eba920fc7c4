// The bf16/fp16 GEMM's candidates timed on the GPU (tuner/gpu_timing.hpp): A, B and C bf16.
#include "tuner/gpu_timing.hpp"
#include "wavekit/ops/gemm_half.hpp"

namespace wavekit::tuner {

result<std::vector<double>> time_plans(const ops::gemm_half::problem& p, const std::vector<ops::gemm_half::plan>& plans,
                                       arch::target) {
  namespace gh = ops::gemm_half;
  const std::size_t m = p.m, n = p.n, k = p.k;
  gpu::buffer a(2 * m * k, gpu::bf16_byte), b(2 * n * k, gpu::bf16_byte), c(2 * m * n, gpu::bf16_byte);
  gpu::buffer workspace(gpu::largest_workspace(plans, [&](int splits) { return gh::workspace_bytes(p, splits); }));
  for (const gpu::buffer* buf : {&a, &b, &c, &workspace})
    if (!buf->ok()) return status{status_code::launch_failed, "tuner: cannot allocate the operands of " + p.str()};
  const gh::args<bf16, bf16> args{a.as<bf16>(), b.as<bf16>(), c.as<bf16>(), workspace.as<void>(), workspace.bytes()};
  return gpu::time_each(
      plans,
      [&](gh::plan pl) {
        return gh::with_config(pl.config,
                               [&](auto cfg) { return gh::launch<decltype(cfg)>(p, args, pl.splits, nullptr); });
      },
      [](gh::plan pl) { return gh::plan_name(pl); });
}

}  // namespace wavekit::tuner

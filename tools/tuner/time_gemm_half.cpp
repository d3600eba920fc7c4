// The bf16/fp16 GEMM's candidates timed on the GPU (tuner/gpu_timing.hpp): A and B bf16 or fp16, C
// in the same type or fp32, as the dtypes name them (op_cases.hpp's gemm_half_case::dtypes).
#include "tuner/gpu_timing.hpp"
#include "wavekit/ops/gemm_half.hpp"

namespace wavekit::tuner {

namespace {

namespace gh = ops::gemm_half;

template <class T, class Out>
result<std::vector<double>> time_with(const gh::problem& p, const std::vector<gh::plan>& plans) {
  const std::size_t m = p.m, n = p.n, k = p.k;
  // bf16 and fp16 both read the pattern as finite values near 1 (0.5 to 2 in fp16); fp32 C is
  // written, never read, so its pattern does not matter.
  gpu::buffer a(2 * m * k, gpu::bf16_byte), b(2 * n * k, gpu::bf16_byte), c(sizeof(Out) * m * n, gpu::bf16_byte);
  gpu::buffer workspace(gpu::largest_workspace(plans, [&](int splits) { return gh::workspace_bytes(p, splits); }));
  for (const gpu::buffer* buf : {&a, &b, &c, &workspace})
    if (!buf->ok()) return status{status_code::launch_failed, "tuner: cannot allocate the operands of " + p.str()};
  const gh::args<T, Out> args{a.as<T>(), b.as<T>(), c.as<Out>(), workspace.as<void>(), workspace.bytes()};
  return gpu::time_each(
      plans,
      [&](gh::plan pl) {
        return gh::with_config(pl.config,
                               [&](auto cfg) { return gh::launch<decltype(cfg)>(p, args, pl.splits, nullptr); });
      },
      [](gh::plan pl) { return gh::plan_name(pl); });
}

}  // namespace

result<std::vector<double>> gemm_half_case::time_plans(const gh::problem& p, const std::vector<gh::plan>& plans,
                                                       arch::target, const std::string& dtypes) {
  if (dtypes == gh::tuning_dtypes<fp16, fp16>()) return time_with<fp16, fp16>(p, plans);
  if (dtypes == gh::tuning_dtypes<bf16, float>()) return time_with<bf16, float>(p, plans);
  if (dtypes == gh::tuning_dtypes<fp16, float>()) return time_with<fp16, float>(p, plans);
  return time_with<bf16, bf16>(p, plans);
}

}  // namespace wavekit::tuner

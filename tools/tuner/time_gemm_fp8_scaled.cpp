// The scaled fp8 GEMM's candidates timed on the GPU (tuner/gpu_timing.hpp): A and B in the fp8
// format of the device's target, per-row and per-column fp32 scales of 1 (the problem's), C bf16
// or fp16 as the dtypes name it.
#include "tuner/gpu_timing.hpp"
#include "wavekit/arch/matrix_formats.hpp"
#include "wavekit/ops/gemm_fp8_scaled.hpp"

namespace wavekit::tuner {

namespace {

template <class Fp8, class Out>
result<std::vector<double>> time_with(const ops::gemm_fp8_scaled::problem& p,
                                      const std::vector<ops::gemm_fp8_scaled::plan>& plans, arch::target t) {
  namespace gs = ops::gemm_fp8_scaled;
  const std::size_t m = p.m, n = p.n, k = p.k;
  gpu::buffer a(m * k, gpu::fp8_byte), b(n * k, gpu::fp8_byte);
  gpu::buffer a_scale(4 * m, gpu::fp32_one_byte), b_scale(4 * n, gpu::fp32_one_byte),
      c(sizeof(Out) * m * n, gpu::bf16_byte);
  gpu::buffer workspace(gpu::largest_workspace(plans, [&](int splits) { return gs::workspace_bytes(p, splits); }));
  for (const gpu::buffer* buf : {&a, &b, &a_scale, &b_scale, &c, &workspace})
    if (!buf->ok()) return status{status_code::launch_failed, "tuner: cannot allocate the operands of " + p.str()};
  const gs::args<Fp8, Out> args{a.as<Fp8>(), b.as<Fp8>(),          a_scale.as<float>(), b_scale.as<float>(),
                                c.as<Out>(), workspace.as<void>(), workspace.bytes()};
  return gpu::time_each(
      plans,
      [&](gs::plan pl) {
        return gs::with_config(pl.config,
                               [&](auto cfg) { return gs::launch<decltype(cfg)>(p, args, pl.splits, t, nullptr); });
      },
      [](gs::plan pl) { return gs::plan_name(pl); });
}

}  // namespace

result<std::vector<double>> gemm_fp8_scaled_case::time_plans(const ops::gemm_fp8_scaled::problem& p,
                                                             const std::vector<ops::gemm_fp8_scaled::plan>& plans,
                                                             arch::target t, const std::string& dtypes) {
  using fp8_942 = arch::fp8_of<arch::target::gfx942>;
  using fp8_950 = arch::fp8_of<arch::target::gfx950>;
  if (dtypes == ops::gemm_fp8_scaled::tuning_dtypes<fp16>(t))
    return t == arch::target::gfx950 ? time_with<fp8_950, fp16>(p, plans, t) : time_with<fp8_942, fp16>(p, plans, t);
  return t == arch::target::gfx950 ? time_with<fp8_950, bf16>(p, plans, t) : time_with<fp8_942, bf16>(p, plans, t);
}

}  // namespace wavekit::tuner

// The block-scaled fp8 GEMM's candidates timed on the GPU (tuner/gpu_timing.hpp): A and B in the
// fp8 format of the device's target, 1x128 and 128x128 fp32 scales of 1, C bf16.
#include "tuner/gpu_timing.hpp"
#include "wavekit/arch/matrix_formats.hpp"
#include "wavekit/ops/gemm_fp8_blockscale.hpp"

namespace wavekit::tuner {

namespace {

template <class Fp8>
result<std::vector<double>> time_with(const ops::gemm_fp8_blockscale::problem& p,
                                      const std::vector<ops::gemm_fp8_blockscale::plan>& plans) {
  namespace gb = ops::gemm_fp8_blockscale;
  const std::size_t m = p.m, n = p.n, k = p.k, groups = p.k_groups();
  gpu::buffer a(m * k, gpu::fp8_byte), b(n * k, gpu::fp8_byte);
  gpu::buffer a_scale(4 * m * groups, gpu::fp32_one_byte),
      b_scale(4 * std::size_t(p.n_groups()) * groups, gpu::fp32_one_byte);
  gpu::buffer c(2 * m * n, gpu::bf16_byte);
  gpu::buffer workspace(gpu::largest_workspace(plans, [&](int splits) { return gb::workspace_bytes(p, splits); }));
  for (const gpu::buffer* buf : {&a, &b, &a_scale, &b_scale, &c, &workspace})
    if (!buf->ok()) return status{status_code::launch_failed, "tuner: cannot allocate the operands of " + p.str()};
  const gb::args<Fp8> args{a.as<Fp8>(),  b.as<Fp8>(),          a_scale.as<float>(), b_scale.as<float>(),
                           c.as<bf16>(), workspace.as<void>(), workspace.bytes()};
  return gpu::time_each(
      plans,
      [&](gb::plan pl) {
        return gb::with_config(pl.config,
                               [&](auto cfg) { return gb::launch<decltype(cfg)>(p, args, pl.splits, nullptr); });
      },
      [](gb::plan pl) { return gb::plan_name(pl); });
}

}  // namespace

result<std::vector<double>> gemm_fp8_blockscale_case::time_plans(
    const ops::gemm_fp8_blockscale::problem& p, const std::vector<ops::gemm_fp8_blockscale::plan>& plans,
    arch::target t,
    const std::string&) {  // one set: the target's fp8, C bf16
  return t == arch::target::gfx950 ? time_with<arch::fp8_of<arch::target::gfx950>>(p, plans)
                                   : time_with<arch::fp8_of<arch::target::gfx942>>(p, plans);
}

}  // namespace wavekit::tuner

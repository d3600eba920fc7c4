// The MX GEMM's candidates timed on the GPU (tuner/gpu_timing.hpp): MXFP4 or MXFP8 A and B with
// e8m0 scales of 1, or a bf16 A quantized in the kernel and MXFP4 B; C bf16; B plain.
#include "tuner/gpu_timing.hpp"
#include "wavekit/ops/gemm_mx.hpp"

namespace wavekit::tuner {

namespace {

namespace gx = ops::gemm_mx;

template <class Args>
result<std::vector<double>> time_with(const gx::problem& p, const std::vector<gx::plan>& plans, arch::target t,
                                      const Args& args) {
  return gpu::time_each(
      plans, [&](gx::plan pl) { return gx::launch_plan(p, args, pl, t, nullptr); },
      [](gx::plan pl) { return gx::plan_name(pl); });
}

}  // namespace

result<std::vector<double>> gemm_mx_case::time_plans(const gx::problem& p, const std::vector<gx::plan>& plans,
                                                     arch::target t,
                                                     const std::string&) {  // the problem holds the form; C bf16
  const std::size_t m = p.m, n = p.n, k = p.k, groups = k / gx::scale_block;
  const bool fp4 = p.format == gx::mx_format::mxfp4;
  auto data_byte = fp4 ? gpu::fp4x2_byte : gpu::fp8_byte;
  const std::size_t a_bytes = p.a == gx::a_storage::mx ? (fp4 ? m * k / 2 : m * k) : 2 * m * k;
  gpu::buffer a(a_bytes, p.a == gx::a_storage::mx ? data_byte : gpu::bf16_byte), b(fp4 ? n * k / 2 : n * k, data_byte);
  gpu::buffer a_scale(m * groups, gpu::e8m0_byte), b_scale(n * groups, gpu::e8m0_byte), c(2 * m * n, gpu::bf16_byte);
  gpu::buffer workspace(gpu::largest_workspace(plans, [&](int splits) { return gx::workspace_bytes(p, splits); }));
  for (const gpu::buffer* buf : {&a, &b, &a_scale, &b_scale, &c, &workspace})
    if (!buf->ok()) return status{status_code::launch_failed, "tuner: cannot allocate the operands of " + p.str()};
  if (p.a != gx::a_storage::mx) {
    const gx::args_quantizing_a<bf16, bf16> args{a.as<bf16>(), b.as<fp4x2_e2m1>(),   b_scale.as<e8m0>(),
                                                 c.as<bf16>(), workspace.as<void>(), workspace.bytes()};
    return time_with(p, plans, t, args);
  }
  if (fp4) {
    using storage = mx_storage_t<fp4_e2m1>;
    const gx::args<fp4_e2m1, bf16> args{a.as<storage>(), b.as<storage>(),      a_scale.as<e8m0>(), b_scale.as<e8m0>(),
                                        c.as<bf16>(),    workspace.as<void>(), workspace.bytes()};
    return time_with(p, plans, t, args);
  }
  using storage = mx_storage_t<fp8_e4m3fn>;
  const gx::args<fp8_e4m3fn, bf16> args{a.as<storage>(), b.as<storage>(),      a_scale.as<e8m0>(), b_scale.as<e8m0>(),
                                        c.as<bf16>(),    workspace.as<void>(), workspace.bytes()};
  return time_with(p, plans, t, args);
}

}  // namespace wavekit::tuner

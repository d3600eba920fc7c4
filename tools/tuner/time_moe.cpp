// The MoE layer's configs timed on the GPU (tuner/gpu_timing.hpp): bf16 or fp16 activations (as
// the dtypes name them; the expert weights of the half form in the same type), ids drawn as
// a router gives them (test/support/moe_routing_ids.hpp: the benchmarks' and the report's), routing
// weights of 1/top_k, each local expert's own gate, up and down tensors in the form the dtypes name
// (fp8 and e8m0 scales of 1; MX weights plain), out in the activations' type. Each config runs the whole layer: sort,
// the grouped GEMMs and the combine.
#include <cstring>

#include "support/moe_routing_ids.hpp"
#include "tuner/gpu_timing.hpp"
#include "wavekit/arch/matrix_formats.hpp"
#include "wavekit/ops/moe.hpp"

namespace wavekit::tuner {

namespace {

namespace mo = ops::moe;

// Byte i of a host array, for gpu::buffer's fill.
template <class T>
auto bytes_of(const std::vector<T>& host) {
  return [&host](std::size_t i) { return reinterpret_cast<const std::uint8_t*>(host.data())[i]; };
}

// One tensor of `bytes_each` bytes per local expert, and the device table of their pointers.
class expert_tensors {
 public:
  template <class Fill>
  expert_tensors(int experts, std::size_t bytes_each, Fill&& fill)
      : data_(std::size_t(experts) * bytes_each, fill), table_(pointers(experts, bytes_each)) {}
  bool ok() const { return data_.ok() && table_.ok(); }
  template <class T>
  const T* const* table() const {
    return table_.as<const T*>();
  }

 private:
  gpu::buffer pointers(int experts, std::size_t bytes_each) {
    std::vector<const std::uint8_t*> host(static_cast<std::size_t>(experts));
    for (std::size_t e = 0; e < host.size(); ++e) host[e] = data_.as<std::uint8_t>() + e * bytes_each;
    return gpu::buffer(host.size() * sizeof(void*), bytes_of(host));
  }
  gpu::buffer data_, table_;
};

// A projection's tensors per local expert: N x K weights and their scales.
struct projection {
  expert_tensors weights, scales;
};

projection make_projection(const moe_problem& p, std::size_t n, std::size_t k) {
  const int experts = p.layer.local_experts;
  switch (p.weights) {
    case mo::weight_format::half: return {{experts, 2 * n * k, gpu::bf16_byte}, {experts, 0, gpu::fp32_one_byte}};
    case mo::weight_format::fp8_blockscale:
      return {{experts, n * k, gpu::fp8_byte}, {experts, 4 * ((n + 127) / 128) * (k / 128), gpu::fp32_one_byte}};
    case mo::weight_format::mxfp4:
      return {{experts, n * k / 2, gpu::fp4x2_byte}, {experts, n * (k / 32), gpu::e8m0_byte}};
    case mo::weight_format::mxfp8: break;
  }
  return {{experts, n * k, gpu::fp8_byte}, {experts, n * (k / 32), gpu::e8m0_byte}};
}

template <class T>
result<std::vector<double>> time_layer(const moe_problem& p, const std::vector<mo::config_id>& plans, arch::target t) {
  const mo::problem& l = p.layer;
  const std::size_t tokens = l.tokens, hidden = l.hidden, dim = l.expert_dim;
  const std::vector<int> ids = test::random_ids(l.tokens, l.top_k, l.experts, 7);
  const std::vector<float> weights(ids.size(), 1.0f / float(l.top_k));
  gpu::buffer x(2 * tokens * hidden, gpu::bf16_byte), out(2 * tokens * hidden, gpu::bf16_byte);
  gpu::buffer d_ids(4 * ids.size(), bytes_of(ids)), d_weights(4 * weights.size(), bytes_of(weights));
  const projection gate = make_projection(p, dim, hidden), up = make_projection(p, dim, hidden),
                   down = make_projection(p, hidden, dim);
  std::size_t workspace_bytes = 0;
  for (mo::config_id id : plans) {
    const int tile_m = mo::with_config(id, [](auto cfg) { return decltype(cfg)::block_m; });
    workspace_bytes = std::max(workspace_bytes, mo::plan_workspace(l, tile_m, 2, p.weights).bytes);
  }
  gpu::buffer workspace(workspace_bytes);
  bool allocated = x.ok() && out.ok() && d_ids.ok() && d_weights.ok() && workspace.ok();
  for (const projection* pr : {&gate, &up, &down}) allocated = allocated && pr->weights.ok() && pr->scales.ok();
  if (!allocated) return status{status_code::launch_failed, "tuner: cannot allocate the layer " + l.str()};
  const T* xs = x.as<T>();
  const int* is = d_ids.as<int>();
  const float* ws = d_weights.as<float>();
  T* o = out.as<T>();
  auto name = [](mo::config_id id) { return mo::config_name(id); };

  if (p.weights == mo::weight_format::half) {
    const mo::args<T> a{xs,
                        is,
                        ws,
                        gate.weights.table<T>(),
                        up.weights.table<T>(),
                        down.weights.table<T>(),
                        o,
                        workspace.as<void>(),
                        workspace.bytes()};
    return gpu::time_each(
        plans,
        [&](mo::config_id id) {
          return mo::with_config(id, [&](auto cfg) { return mo::launch<decltype(cfg)>(l, a, nullptr); });
        },
        name);
  }
  if (p.weights == mo::weight_format::fp8_blockscale) {
    auto time_fp8 = [&]<class Fp8>() {
      const mo::blockscale_args<T, Fp8> a{xs,
                                          is,
                                          ws,
                                          gate.weights.table<Fp8>(),
                                          up.weights.table<Fp8>(),
                                          down.weights.table<Fp8>(),
                                          gate.scales.table<float>(),
                                          up.scales.table<float>(),
                                          down.scales.table<float>(),
                                          o,
                                          workspace.as<void>(),
                                          workspace.bytes()};
      return gpu::time_each(
          plans,
          [&](mo::config_id id) {
            return mo::blockscale::with_config(mo::blockscale_config_of(id),
                                               [&](auto cfg) { return mo::launch<decltype(cfg)>(l, a, nullptr); });
          },
          name);
    };
    return t == arch::target::gfx950 ? time_fp8.template operator()<arch::fp8_of<arch::target::gfx950>>()
                                     : time_fp8.template operator()<arch::fp8_of<arch::target::gfx942>>();
  }
  auto time_mx = [&]<class Elem>() {
    using storage = mx_storage_t<Elem>;
    mo::mx_args<T, Elem> a{xs,
                           is,
                           ws,
                           gate.weights.table<storage>(),
                           up.weights.table<storage>(),
                           down.weights.table<storage>(),
                           gate.scales.table<e8m0>(),
                           up.scales.table<e8m0>(),
                           down.scales.table<e8m0>(),
                           o,
                           workspace.as<void>(),
                           workspace.bytes()};
    a.gate_bytes = a.up_bytes = mo::mx_weight_bytes<Elem>(l.expert_dim, l.hidden);
    a.down_bytes = mo::mx_weight_bytes<Elem>(l.hidden, l.expert_dim);
    a.gate_scale_bytes = a.up_scale_bytes = mo::mx_scale_bytes(l.expert_dim, l.hidden, mo::b_layout::plain);
    a.down_scale_bytes = mo::mx_scale_bytes(l.hidden, l.expert_dim, mo::b_layout::plain);
    return gpu::time_each(
        plans,
        [&](mo::config_id id) {
          return mo::with_mx_config(id, [&](auto cfg) { return mo::launch<decltype(cfg)>(l, a, t, nullptr); });
        },
        name);
  };
  return p.weights == mo::weight_format::mxfp4 ? time_mx.template operator()<fp4_e2m1>()
                                               : time_mx.template operator()<fp8_e4m3fn>();
}

}  // namespace

result<std::vector<double>> moe_case::time_plans(const moe_problem& p, const std::vector<mo::config_id>& plans,
                                                 arch::target t, const std::string& dtypes) {
  if (dtypes == mo::tuning_dtypes<fp16>(p.weights, t)) return time_layer<fp16>(p, plans, t);
  return time_layer<bf16>(p, plans, t);
}

}  // namespace wavekit::tuner

// wavekit's MoE layer on one decode-like problem: router logits from a wavekit GEMM (x W_g^T,
// bf16 in, fp32 out), the softmax top-k router with a shared expert appended, then wavekit::moe
// (sort, gate, SiLU-gated up, weighted down, combine), all on the device with no host
// synchronisation in between; the
// result against a host reference of routing and layer, the largest error beside a bound from
// the activations' format. On the CPU emulator it also prints the bytes the layer read against
// the weights of the experts that had tokens (each is read once); on a GPU, the time.
//
//   moe [tokens experts top_k hidden expert_dim]   default: 16 64 6 1024 256 (plus a shared expert;
//                                                  experts a multiple of 16, the router GEMM's N)
//   moe --help                                     usage and exit codes (examples/common/cli.hpp)
#include <hip/hip_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cli.hpp"
#include "device_memory.hpp"
#include "wavekit/arch/device.hpp"
#include "wavekit/core/float_codec.hpp"
#include "wavekit/host/reference_moe.hpp"
#include "wavekit/host/reference_moe_routing.hpp"
#include "wavekit/ops/gemm_half.hpp"
#include "wavekit/ops/moe.hpp"

using namespace wavekit;
namespace moe = wavekit::ops::moe;

namespace {

using example::upload;

int run(int tokens, int routed, int top_k, int hidden, int dim) {
  using T = bf16;
  const int experts = routed + 1, k = top_k + 1;  // the shared expert is id `routed`, weight 1
  const moe::routing_problem rp{tokens, routed, top_k};
  const moe::problem p{tokens, hidden, dim, experts, k, 0, experts, layout::mn_contiguous};
  const ops::gemm_half::problem router_p{tokens, routed, hidden, layout::k_contiguous};
  // The three ops' own rules for these sizes on this device, before anything is allocated: the
  // router GEMM's, routing's and the layer's.
  const arch::target device = arch::current_device_arch().kind;
  if (status s = ops::gemm_half::supports(router_p, device); !s.ok()) return cli::refused(s);
  if (status s = moe::supports(rp, moe::softmax_topk{}, device); !s.ok()) return cli::refused(s);
  if (status s = moe::supports<moe::args<T>>(p, device); !s.ok()) return cli::refused(s);
  const result<std::size_t> bytes = moe::workspace_bytes(p);
  if (!bytes) return cli::refused(bytes.error());

  std::mt19937 rng(5);
  std::normal_distribution<float> n(0.0f, 1.0f);
  std::vector<T> x(std::size_t(tokens) * hidden), router(std::size_t(routed) * hidden);
  for (T& v : x) v = saturate_cast<T>(n(rng));
  for (T& v : router) v = saturate_cast<T>(n(rng) / std::sqrt(float(hidden)));
  host::moe_reference_weights<T> w;
  auto tensor = [&](int fan_in) {
    std::vector<T> m(std::size_t(hidden) * dim);
    for (T& v : m) v = saturate_cast<T>(n(rng) / std::sqrt(float(fan_in)));
    return m;
  };
  std::vector<T*> gate, up, down;
  for (int e = 0; e < experts; ++e) {
    w.gate.push_back(tensor(hidden)), w.up.push_back(tensor(hidden)), w.down.push_back(tensor(dim));
    gate.push_back(upload(w.gate.back())), up.push_back(upload(w.up.back())), down.push_back(upload(w.down.back()));
  }
  T* d_x = upload(x);
  T* d_router = upload(router);
  float* d_logits;
  hipMalloc(&d_logits, std::size_t(tokens) * routed * 4);
  T** d_gate = upload(gate);
  T** d_up = upload(up);
  T** d_down = upload(down);
  int* d_ids;
  float* d_weights;
  T* d_out;
  hipMalloc(&d_ids, std::size_t(tokens) * k * 4), hipMalloc(&d_weights, std::size_t(tokens) * k * 4);
  hipMalloc(&d_out, x.size() * sizeof(T));
  void* workspace;
  hipMalloc(&workspace, bytes.value());

#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  const auto start = std::chrono::steady_clock::now();
  // logits = x W_g^T (the router weight [experts][hidden], as nn.Linear keeps it), in fp32.
  status s = gemm_half(router_p, ops::gemm_half::args<T, float>{d_x, d_router, d_logits, nullptr, 0}, nullptr);
  if (s.ok())
    s = moe_route(rp, moe::softmax_topk{}, moe::routing_args<float>{d_logits, d_ids, d_weights, routed}, nullptr);
  moe::plan_info ran;
  if (s.ok())
    s = wavekit::moe(p, moe::args<T>{d_x, d_ids, d_weights, d_gate, d_up, d_down, d_out, workspace, bytes.value()},
                     nullptr, &ran);
  hipDeviceSynchronize();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!s.ok()) return cli::launch_failed(s);

  // The reference: the device's logits routed on the host (the GEMM has its own tests), which must
  // choose what the device chose, then the layer.
  std::vector<float> logits(std::size_t(tokens) * routed), weights(std::size_t(tokens) * k);
  std::vector<int> ids(std::size_t(tokens) * k);
  hipMemcpy(logits.data(), d_logits, logits.size() * 4, hipMemcpyDeviceToHost);
  hipMemcpy(ids.data(), d_ids, ids.size() * 4, hipMemcpyDeviceToHost);
  hipMemcpy(weights.data(), d_weights, weights.size() * 4, hipMemcpyDeviceToHost);
  const auto routing = host::reference_route(logits, rp, moe::softmax_topk{});
  int routing_differs = 0;
  for (int t = 0; t < tokens; ++t) {
    for (int j = 0; j < top_k; ++j) routing_differs += ids[t * k + j] != routing.ids[t * top_k + j];
    routing_differs += ids[t * k + top_k] != routed;
  }
  std::set<int> active;
  for (int id : ids) active.insert(id);
  const auto ref = host::reference_moe(p, x, ids, weights, w);
  std::vector<T> out(x.size());
  hipMemcpy(out.data(), d_out, out.size() * sizeof(T), hipMemcpyDeviceToHost);
  double worst = 0.0, worst_bound = 0.0;
  int bad = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    // The bound of test/support/moe_case.hpp: three bf16 ulps of the magnitude, two of the value.
    const double bound =
        (3 * 0x1p-7 + (hidden + dim) * 0x1p-23) * ref.magnitude[i] + 2 * 0x1p-7 * std::fabs(ref.out[i]);
    const double err = std::fabs(double(widen_to_float(out[i])) - ref.out[i]);
    bad += !(err <= bound);
    if (err > worst) worst = err, worst_bound = bound;
  }
  std::printf("moe: %d tokens, top %d of %d routed experts + 1 shared, hidden %d, expert dim %d, bf16\n", tokens, top_k,
              routed, hidden, dim);
  std::printf("config: %s; %zu experts had tokens\n", ran.name.c_str(), active.size());
  std::printf("routing: %d choices differ from the host's\n", routing_differs);
  std::printf("largest error %.3g (its bound %.3g); %d outputs outside their bounds\n", worst, worst_bound, bad);
#if defined(WAVEKIT_EMULATOR)
  const double weight_bytes = double(active.size()) * 3 * hidden * dim * sizeof(T);
  std::printf("bytes read %.2f MB; active experts' weights %.2f MB; ratio %.3f\n",
              double(emu::accumulated_counters().global_bytes_read) / 1e6, weight_bytes / 1e6,
              double(emu::accumulated_counters().global_bytes_read) / weight_bytes);
  (void)seconds;
#else
  std::printf("time %.1f us (routing + layer, one run, no warm-up)\n", seconds * 1e6);
#endif
  return bad || routing_differs ? cli::exit_mismatch : cli::exit_ok;
}

const char* const usage =
    "usage: moe [tokens experts top_k hidden expert_dim]\n"
    "Runs a bf16 MoE layer on the device: the router GEMM (wavekit::gemm_half, fp32 logits), the softmax\n"
    "top-k router with a shared expert appended (wavekit::moe_route), then wavekit::moe; checks the routing\n"
    "and the output against host references and prints the largest error beside its bound.\n"
    "  tokens       tokens in the batch (default 16)\n"
    "  experts      routed experts (default 64; a multiple of 16, the router GEMM's N), plus one shared\n"
    "  top_k        routed experts per token (default 6)\n"
    "  hidden       the model's width (default 1024)\n"
    "  expert_dim   each expert's intermediate width (default 256)";

}  // namespace

int main(int argc, char** argv) {
  const cli::command_line cmd(argc, argv, "moe", usage);
  if (cmd.help_asked()) return cmd.print_help();
  if (cmd.count() != 0 && cmd.count() != 5) return cmd.wrong_count("none or tokens experts top_k hidden expert_dim");
  int tokens = 16, experts = 64, top_k = 6, hidden = 1024, expert_dim = 256;
  if (cmd.count() == 5 &&
      !(cmd.read_int(1, "tokens", tokens) && cmd.read_int(2, "experts", experts) && cmd.read_int(3, "top_k", top_k) &&
        cmd.read_int(4, "hidden", hidden) && cmd.read_int(5, "expert_dim", expert_dim)))
    return cli::exit_usage;
  return run(tokens, experts, top_k, hidden, expert_dim);
}

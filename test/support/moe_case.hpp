// A random MoE layer on the device (x, routing ids and weights, per-expert weight tensors behind
// device pointer tables, as amd-mixture-of-experts keeps one tensor per expert) and its check
// against host::reference_moe at a bound computed from T's precision: the device rounds the same
// intermediates to T (the gated product and the output; docs/moe.md), and fp32 accumulation in
// another order can flip each of those roundings by one unit in the last place (ulp). A flip of
// the gated product, and the fp32 gate and up accumulations' own error where they cancel, move the
// output by at most 2 ulp * magnitude; the output's rounding by ulp * |reference|:
// |out - reference| <= 2 ulp * magnitude + ulp * |reference| + the fp32 accumulation itself,
// magnitude being sum over choices of |w| * sum_d |h_d * down_dc|.
#pragma once

#include <hip/hip_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <type_traits>
#include <vector>

#include "support/device_upload.hpp"
#include "support/moe_routing_ids.hpp"
#include "wavekit/core/float_codec.hpp"
#include "wavekit/host/reference_moe.hpp"
#include "wavekit/ops/moe/problem.hpp"

namespace wavekit::test {

template <class T>
struct moe_case {
  ops::moe::problem p;
  std::vector<T> x;
  std::vector<int> ids;
  std::vector<float> weights;
  host::moe_reference_weights<T> w;
  T *d_x = nullptr, *d_out = nullptr;
  int* d_ids = nullptr;
  float* d_weights = nullptr;
  std::vector<T*> d_experts;  // every expert tensor
  T **d_gate = nullptr, **d_up = nullptr, **d_down = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;

  // ids: [tokens][top_k] global ids (any values; those outside the problem's experts go nowhere).
  // Values: x and the routing weights random, each expert's weights uniform with variance
  // 1 / fan_in (as the reference problem initialises them); experts without slots get no tensor
  // (their table entry is null: nothing reads it).
  moe_case(const ops::moe::problem& problem, std::vector<int> ids_, std::uint32_t seed, std::size_t workspace_size)
      : p(problem), ids(std::move(ids_)) {
    std::uint64_t state = 0x9E3779B97F4A7C15ull * (seed + 1);
    auto uniform = [&] {  // in [-1, 1), xorshift64*: fast enough for full-size experts
      state ^= state >> 12, state ^= state << 25, state ^= state >> 27;
      return float((state * 0x2545F4914F6CDD1Dull) >> 40) * 0x1p-23f - 1.0f;
    };
    x.resize(std::size_t(p.tokens) * p.hidden);
    for (T& v : x) v = saturate_cast<T>(1.7320508f * uniform());
    for (int i = 0; i < p.tokens * p.top_k; ++i) weights.push_back(0.525f + 0.475f * uniform());
    std::vector<bool> used(p.local_experts, false);
    for (int id : ids)
      if (id >= p.expert_begin && id < p.expert_begin + p.local_experts) used[id - p.expert_begin] = true;
    auto tensor = [&](bool needed, std::size_t count, int fan_in) {
      std::vector<T> m(needed ? count : 0);
      const float s = 1.7320508f / std::sqrt(float(fan_in));
      for (T& v : m) v = saturate_cast<T>(s * uniform());
      return m;
    };
    for (int e = 0; e < p.local_experts; ++e) {
      w.gate.push_back(tensor(used[e], std::size_t(p.hidden) * p.expert_dim, p.hidden));
      w.up.push_back(tensor(used[e], std::size_t(p.hidden) * p.expert_dim, p.hidden));
      w.down.push_back(tensor(used[e], std::size_t(p.hidden) * p.expert_dim, p.expert_dim));
    }
    d_x = upload(x), d_ids = upload(ids), d_weights = upload(weights);
    d_gate = table(w.gate), d_up = table(w.up), d_down = table(w.down);
    hipMalloc(&d_out, std::max<std::size_t>(x.size(), 1) * sizeof(T));
    hipMemset(d_out, 0xff, x.size() * sizeof(T));  // NaN where a result is missing
    workspace_bytes = workspace_size;
    hipMalloc(&workspace, std::max<std::size_t>(workspace_bytes, 1));
  }
  // Bytes of the weights of the experts that have slots.
  std::size_t active_weight_bytes() const {
    std::size_t bytes = 0;
    for (std::size_t e = 0; e < w.gate.size(); ++e)
      bytes += (w.gate[e].size() + w.up[e].size() + w.down[e].size()) * sizeof(T);
    return bytes;
  }
  ~moe_case() {
    for (T* q : d_experts) hipFree(q);
    hipFree(d_x), hipFree(d_out), hipFree(d_ids), hipFree(d_weights), hipFree(d_gate), hipFree(d_up), hipFree(d_down);
    hipFree(workspace);
  }
  moe_case(const moe_case&) = delete;
  moe_case& operator=(const moe_case&) = delete;

  template <class U>
  static U* upload(const std::vector<U>& v) {
    return test::upload(v);
  }
  T** table(const std::vector<std::vector<T>>& tensors) {
    std::vector<T*> pointers;
    for (const auto& m : tensors) {
      pointers.push_back(m.empty() ? nullptr : upload(m));
      if (pointers.back()) d_experts.push_back(pointers.back());
    }
    return upload(pointers);
  }

  ops::moe::args<T> args() const {
    return {d_x, d_ids, d_weights, d_gate, d_up, d_down, d_out, workspace, workspace_bytes};
  }

  std::vector<T> output() const {
    std::vector<T> got(x.size());
    hipMemcpy(got.data(), d_out, got.size() * sizeof(T), hipMemcpyDeviceToHost);
    return got;
  }

  host::moe_reference_result reference() const { return host::reference_moe(p, x, ids, weights, w); }

  int check(const char* label) const { return check_against(reference(), label); }
  int check_against(const host::moe_reference_result& ref, const char* label) const {
    const std::vector<T> got = output();
    const double ulp = std::is_same_v<T, bf16> ? 0x1p-7 : 0x1p-10;
    const double accumulation = (p.hidden + p.expert_dim) * 0x1p-23;
    int bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double g = widen_to_float(got[i]), e = ref.out[i];
      const double bound = (2 * ulp + accumulation) * ref.magnitude[i] + ulp * std::fabs(e) + 1e-30;
      if (!(std::fabs(g - e) <= bound) && bad++ < 5)
        std::printf("%s %s: out[%zu][%zu] = %.6g, reference %.6g (bound %.3g)\n", label, p.str().c_str(), i / p.hidden,
                    i % p.hidden, g, e, bound);
    }
    return bad;
  }
};

}  // namespace wavekit::test

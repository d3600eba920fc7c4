// A random MoE layer over fp8 block-scaled expert weights on the device (blockscale_args: each
// expert's gate, up and down tensors quantized 128x128 by host::quantize_fp8_128x128 in the
// problem's weight order, behind device pointer tables; every block of x and of the weights with a
// magnitude of its own, so a scale applied to the wrong block shows) and its check in three exact steps,
// reading the pipeline's intermediates from its workspace:
//   1. the device's 1x128 quantization of x (when x is given in T) and of every gated-product row
//      in use equals host::quantize_fp8_1x128 of the same values, bit for bit;
//   2. each gated-product row (T) against host::reference_moe_blockscale_up at a bound from T's
//      precision and the fp32 accumulation: the device rounds h where the reference does (from the
//      unrounded gate and up), so what remains is accumulation order (through SiLU, whose slope
//      is below 1.1) and one rounding flip of h:
//        |h - h_ref| <= |SiLU(g)| acc |u|_mag + 1.1 |u| acc |g|_mag + ulp |h_ref|
//   3. the output against host::reference_moe_blockscale_down fed the device's own quantized gated
//      product: the weighted rows stay fp32 and the sum is rounded once on both sides, so
//        |out - out_ref| <= acc magnitude + ulp |out_ref|
// ulp: T's relative spacing (2^-7 bf16, 2^-10 fp16); acc = (hidden + expert_dim) 2^-23.
#pragma once

#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "support/moe_case.hpp"
#include "wavekit/core/float_codec.hpp"
#include "wavekit/host/quantize_blockscale.hpp"
#include "wavekit/host/reference_moe_blockscale.hpp"
#include "wavekit/ops/moe/problem.hpp"

namespace wavekit::test {

// How the case hands x to the device: in T (quantized inside), or quantized already.
enum class moe_input { half, fp8_per_128, fp8_per_token };

// Where a pipeline's quantized intermediates lie in its workspace (both layouts have them).
struct moe_quantized_intermediates {
  std::size_t hidden, hidden_fp8, hidden_scale, x_fp8, x_scale;
  int rows;  // rows of the gated product
};

// Step 2's bound for gated-product value n of slot s (the header's formula).
inline double gated_product_bound(const host::moe_blockscale_up_result& up, std::size_t s, int n, double ulp,
                                  double acc) {
  const double g = up.gate[s][n], silu = g / (1.0 + std::exp(-g));
  return std::fabs(silu) * acc * up.up_magnitude[s][n] + 1.1 * std::fabs(up.up[s][n]) * acc * up.gate_magnitude[s][n] +
         ulp * std::fabs(up.h[s][n]) + 1e-30;
}

// Step 3: the output against the down half's reference, of the tokens `checked(token)` says;
// counts failures into bad (printing the first few).
template <class T, class Checked>
void check_moe_output(const ops::moe::problem& p, const std::vector<T>& got, const host::moe_reference_result& ref,
                      double ulp, double acc, Checked&& checked, const char* label, int& bad) {
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!checked(static_cast<int>(i / p.hidden))) continue;
    const double g = widen_to_float(got[i]), e = ref.out[i];
    const double bound = acc * ref.magnitude[i] + ulp * std::fabs(e) + 1e-30;
    if (!(std::fabs(g - e) <= bound) && bad++ < 25)
      std::printf("%s %s: out[%zu][%zu] = %.6g, reference %.6g (bound %.3g)\n", label, p.str().c_str(), i / p.hidden,
                  i % p.hidden, g, e, bound);
  }
}

template <class T, class Fp8>
struct moe_blockscale_case {
  ops::moe::problem p;
  moe_input input;
  std::vector<T> x;
  host::moe_blockscale_input<Fp8> xq;  // what the device reads (x quantized by the host rule)
  std::vector<int> ids;
  std::vector<float> weights;
  host::moe_blockscale_weights<Fp8> w;
  T *d_x = nullptr, *d_out = nullptr;
  Fp8* d_x_fp8 = nullptr;
  float* d_x_scale = nullptr;
  int* d_ids = nullptr;
  float* d_weights = nullptr;
  std::vector<void*> d_buffers;
  const Fp8 **d_gate = nullptr, **d_up = nullptr, **d_down = nullptr;
  const float **d_gate_scale = nullptr, **d_up_scale = nullptr, **d_down_scale = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;

  moe_blockscale_case(const ops::moe::problem& problem, std::vector<int> ids_, std::uint32_t seed,
                      std::size_t workspace_size, moe_input input_ = moe_input::half)
      : p(problem), input(input_), ids(std::move(ids_)) {
    std::uint64_t state = 0x9E3779B97F4A7C15ull * (seed + 1);
    auto uniform = [&] {  // in [-1, 1)
      state ^= state >> 12, state ^= state << 25, state ^= state >> 27;
      return float((state * 0x2545F4914F6CDD1Dull) >> 40) * 0x1p-23f - 1.0f;
    };
    // Each 128-column block of x and each 128x128 block of a weight gets its own magnitude (factors
    // 1/4 to 4), so that every scale the pipeline applies is one no other block shares.
    auto block_factor = [&] { return std::exp2(2.0f * uniform()); };
    x.resize(std::size_t(p.tokens) * p.hidden);
    for (std::size_t i = 0; i < x.size(); i += 128) {
      const float f = 1.7320508f * block_factor();
      for (std::size_t c = i; c < i + 128 && c < x.size(); ++c) x[c] = saturate_cast<T>(f * uniform());
    }
    for (int i = 0; i < p.tokens * p.top_k; ++i) weights.push_back(0.525f + 0.475f * uniform());
    quantize_input();
    std::vector<bool> used(p.local_experts, false);
    for (int id : ids)
      if (id >= p.expert_begin && id < p.expert_begin + p.local_experts) used[id - p.expert_begin] = true;
    const bool kc = p.weight_order == layout::k_contiguous;
    // An [n][k] tensor (n outputs, k inputs) of variance 1 / k, stored in the weight order.
    auto tensor = [&](bool needed, int n, int k) {
      host::blockscale_expert_tensor<Fp8> t;
      if (!needed) return t;
      const int rows = kc ? n : k, cols = kc ? k : n;
      std::vector<float> f(std::size_t(rows) * cols);
      const float s = 1.7320508f / std::sqrt(float(k));
      const int col_blocks = (cols + 127) / 128;
      std::vector<float> factor(std::size_t((rows + 127) / 128) * col_blocks);
      for (float& v : factor) v = block_factor();
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
          f[std::size_t(r) * cols + c] = s * factor[std::size_t(r / 128) * col_blocks + c / 128] * uniform();
      const auto q = host::quantize_fp8_128x128<Fp8>(f, rows, cols);
      t.q = q.data, t.scale = q.scales;
      return t;
    };
    for (int e = 0; e < p.local_experts; ++e) {
      w.gate.push_back(tensor(used[e], p.expert_dim, p.hidden));
      w.up.push_back(tensor(used[e], p.expert_dim, p.hidden));
      w.down.push_back(tensor(used[e], p.hidden, p.expert_dim));
    }
    d_x = upload(x), d_ids = upload(ids), d_weights = upload(weights);
    d_x_fp8 = upload(xq.q), d_x_scale = upload(xq.scale);
    auto tables = [&](const std::vector<host::blockscale_expert_tensor<Fp8>>& ts, const Fp8**& q, const float**& s) {
      std::vector<const Fp8*> qs;
      std::vector<const float*> ss;
      for (const auto& t : ts) {
        qs.push_back(t.q.empty() ? nullptr : upload(t.q));
        ss.push_back(t.q.empty() ? nullptr : upload(t.scale));
      }
      q = upload(qs), s = upload(ss);
    };
    tables(w.gate, d_gate, d_gate_scale);
    tables(w.up, d_up, d_up_scale);
    tables(w.down, d_down, d_down_scale);
    hipMalloc(&d_out, std::max<std::size_t>(x.size(), 1) * sizeof(T));
    hipMemset(d_out, 0xff, x.size() * sizeof(T));  // NaN where a result is missing
    workspace_bytes = workspace_size;
    hipMalloc(&workspace, std::max<std::size_t>(workspace_bytes, 1));
    d_buffers.push_back(workspace);
  }
  ~moe_blockscale_case() {
    for (void* q : d_buffers) hipFree(q);
    hipFree(d_out);
  }
  moe_blockscale_case(const moe_blockscale_case&) = delete;
  moe_blockscale_case& operator=(const moe_blockscale_case&) = delete;

  // Bytes of the weights (fp8 codes and fp32 block scales) of the experts that have slots.
  std::size_t active_weight_bytes() const {
    std::size_t bytes = 0;
    for (const auto* tensors : {&w.gate, &w.up, &w.down})
      for (const auto& t : *tensors) bytes += t.q.size() + t.scale.size() * 4;
    return bytes;
  }

  template <class U>
  U* upload(const std::vector<U>& v) {
    U* d = nullptr;
    hipMalloc(&d, std::max<std::size_t>(v.size(), 1) * sizeof(U));
    hipMemcpy(d, v.data(), v.size() * sizeof(U), hipMemcpyHostToDevice);
    d_buffers.push_back(d);
    return d;
  }

  // x as the device will read it: the host rule's 1x128 quantization (what the device's own
  // quantizer must reproduce), or per token: scale = amax / max_finite per row.
  void quantize_input() {
    const std::span<const T> xs(x);
    std::vector<float> f(xs.size());
    for (std::size_t i = 0; i < f.size(); ++i) f[i] = widen_to_float(xs[i]);
    if (input == moe_input::fp8_per_token) {
      xq.scaling = ops::moe::scale_granularity::row;
      const auto q = host::quantize_blockscale<Fp8>(f, p.tokens, p.hidden, 1, p.hidden);
      xq.q = q.data, xq.scale = q.scales;
    } else if (p.tokens > 0) {
      const auto q = host::quantize_fp8_1x128<Fp8>(f, p.tokens, p.hidden);
      xq.q = q.data, xq.scale = q.scales;
    }
  }

  ops::moe::blockscale_args<T, Fp8> args() const {
    ops::moe::blockscale_args<T, Fp8> a{input == moe_input::half ? d_x : nullptr,
                                        d_ids,
                                        d_weights,
                                        d_gate,
                                        d_up,
                                        d_down,
                                        d_gate_scale,
                                        d_up_scale,
                                        d_down_scale,
                                        d_out,
                                        workspace,
                                        workspace_bytes};
    if (input != moe_input::half) a.x_fp8 = d_x_fp8, a.x_scale = d_x_scale, a.x_scales = xq.scaling;
    return a;
  }

  std::vector<T> output() const {
    std::vector<T> got(x.size());
    hipMemcpy(got.data(), d_out, got.size() * sizeof(T), hipMemcpyDeviceToHost);
    return got;
  }

  template <class U>
  std::vector<U> read_workspace(std::size_t offset, std::size_t count) const {
    std::vector<U> v(count);
    hipMemcpy(v.data(), static_cast<const unsigned char*>(workspace) + offset, count * sizeof(U),
              hipMemcpyDeviceToHost);
    return v;
  }

  // The three steps of the header; row_slot[r] is the slot of gated-product row r (-1: unused).
  // Returns the number of failures (each printed, the first few per step).
  bool has_local_expert(int token) const {
    for (int j = 0; j < p.top_k; ++j) {
      const int id = ids[std::size_t(token) * p.top_k + j];
      if (id >= p.expert_begin && id < p.expert_begin + p.local_experts) return true;
    }
    return false;
  }

  // The three steps for the standard layout run with M tiles of tile_m rows: the workspace's
  // intermediates where plan_workspace puts them, each row's slot from the sort's output.
  int check_standard(int tile_m, const char* label) const {
    const ops::moe::workspace_layout at =
        ops::moe::plan_workspace(p, tile_m, sizeof(T), ops::moe::weight_format::fp8_blockscale);
    return check({at.hidden, at.hidden_fp8, at.hidden_scale, at.x_fp8, at.x_scale, at.cap.rows},
                 read_workspace<int>(at.sorted_slots, at.cap.rows), label);
  }

  // every_token: the output of every token is checked (the standard layout); false: only of tokens
  // with a local expert (the batched layout leaves the other rows unspecified).
  int check(const moe_quantized_intermediates& at, const std::vector<int>& row_slot, const char* label,
            bool every_token = true) const {
    const double ulp = std::is_same_v<T, bf16> ? 0x1p-7 : 0x1p-10;
    const double acc = (p.hidden + p.expert_dim) * 0x1p-23;
    const int dim = p.expert_dim;
    int bad = 0;
    // 1a. x's quantization, of the tokens with a local expert (the batched layout quantizes only
    // those).
    if (input == moe_input::half && p.tokens > 0) {
      const auto q = read_workspace<Fp8>(at.x_fp8, xq.q.size());
      const auto s = read_workspace<float>(at.x_scale, xq.scale.size());
      const int blocks = p.hidden / 128;
      for (int t = 0; t < p.tokens; ++t) {
        if (!has_local_expert(t)) continue;
        for (std::size_t i = std::size_t(t) * p.hidden; i < std::size_t(t + 1) * p.hidden; ++i)
          if (q[i].bits != xq.q[i].bits && bad++ < 3)
            std::printf("%s %s: x_fp8[%zu] = 0x%02x, host 0x%02x\n", label, p.str().c_str(), i, q[i].bits,
                        xq.q[i].bits);
        for (std::size_t i = std::size_t(t) * blocks; i < std::size_t(t + 1) * blocks; ++i)
          if (std::memcmp(&s[i], &xq.scale[i], 4) && bad++ < 6)
            std::printf("%s: x_scale[%zu] = %g, host %g\n", label, i, s[i], xq.scale[i]);
      }
    }
    const auto up = host::reference_moe_blockscale_up<T>(p, xq, ids, w);
    const auto hidden = read_workspace<T>(at.hidden, std::size_t(at.rows) * dim);
    const auto hidden_q = read_workspace<Fp8>(at.hidden_fp8, std::size_t(at.rows) * dim);
    const auto hidden_s = read_workspace<float>(at.hidden_scale, std::size_t(at.rows) * (dim / 128));
    std::vector<host::blockscale_tensor<Fp8>> h_q(std::size_t(p.tokens) * p.top_k);
    int covered = 0;
    for (int r = 0; r < at.rows; ++r) {
      const int s = row_slot[r];
      if (s < 0) continue;
      ++covered;
      // 2. The gated product.
      std::vector<float> row(dim);
      for (int n = 0; n < dim; ++n) {
        const double g = widen_to_float(hidden[std::size_t(r) * dim + n]), e = up.h[s][n];
        const double bound = gated_product_bound(up, std::size_t(s), n, ulp, acc);
        if (!(std::fabs(g - e) <= bound) && bad++ < 10)
          std::printf("%s %s: h[slot %d][%d] = %.6g, reference %.6g (bound %.3g)\n", label, p.str().c_str(), s, n, g, e,
                      bound);
        row[n] = static_cast<float>(g);
      }
      // 1b. Its quantization.
      auto host_q = host::quantize_fp8_1x128<Fp8>(row, 1, dim);
      for (int n = 0; n < dim; ++n)
        if (hidden_q[std::size_t(r) * dim + n].bits != host_q.data[n].bits && bad++ < 13)
          std::printf("%s: h_fp8[row %d][%d] = 0x%02x, host 0x%02x\n", label, r, n,
                      hidden_q[std::size_t(r) * dim + n].bits, host_q.data[n].bits);
      for (int b = 0; b < dim / 128; ++b)
        if (std::memcmp(&hidden_s[std::size_t(r) * (dim / 128) + b], &host_q.scales[b], 4) && bad++ < 16)
          std::printf("%s: h_scale[row %d][%d] = %g, host %g\n", label, r, b,
                      hidden_s[std::size_t(r) * (dim / 128) + b], host_q.scales[b]);
      h_q[s] = std::move(host_q);
    }
    // Every slot with a local expert has its row.
    int expected = 0;
    for (int id : ids) expected += id >= p.expert_begin && id < p.expert_begin + p.local_experts;
    if (covered != expected && bad++ < 20)
      std::printf("%s: %d gated-product rows in use, %d slots with a local expert\n", label, covered, expected);
    // 3. The output from the device's own quantized gated product.
    const auto ref = host::reference_moe_blockscale_down<T>(p, h_q, ids, weights, w);
    check_moe_output(p, output(), ref, ulp, acc, [&](int t) { return every_token || has_local_expert(t); }, label, bad);
    return bad;
  }
};

}  // namespace wavekit::test

// A random MoE layer over MX expert weights on the device (mx_args<T, Elem>, MXFP4 or MXFP8: each
// expert's gate, up and down tensors quantized by host::quantize_mx in nn.Linear's order, each
// 32-K block of x and of the weights with a magnitude of its own), optionally (MXFP4) in
// amd-moe-mxfp4's form: each expert's gate and up one fused [gate; up] tensor, weights and scales
// pre-shuffled by aiter's layouts (host/shuffle_mx.hpp), the tables pointing into them; optionally
// stored padded as aiter stores them (moe_mx_padding), the same logical weights. The call declares
// the bytes behind each pointer from the buffers it made. Its check, in the three exact steps of
// moe_blockscale_case (test/support/moe_blockscale_case.hpp), reading the workspace:
//   1. the device's MX form of x and of every gated-product row in use equals host::quantize_mx of
//      the same values, bit for bit (elements and e8m0 scales);
//   2. each gated-product row (T) against host::reference_moe_mx_up at moe_blockscale_case's
//      bound, acc being the scaled MFMA's accumulation bound (host::mfma_fp32_error_bound) over
//      hidden plus over expert_dim;
//   3. the output against host::reference_moe_mx_down fed the device's own MX gated product.
#pragma once

#include <hip/hip_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "support/moe_blockscale_case.hpp"
#include "wavekit/host/quantize_mx.hpp"
#include "wavekit/host/reference_gemm.hpp"
#include "wavekit/host/reference_moe_mx.hpp"
#include "wavekit/host/shuffle_mx.hpp"
#include "wavekit/ops/moe/mx_storage.hpp"
#include "wavekit/ops/moe/problem.hpp"

namespace wavekit::test {

// How a case draws its data: every 32-K block with a magnitude of its own (a scale applied to the
// wrong block shows), or as amd-moe-mxfp4's input generator does (x ~ N(0, 1) in T; gate and up
// ~ N(0, 1) / sqrt(hidden), down ~ N(0, 1) / sqrt(expert_dim), quantized to MX by the nearest-even
// quantizer as aiter's dynamic_mxfp4_quant; routed weights a softmax's, the shared expert (the
// last expert, where the ids name it) weight 1).
enum class moe_mx_data { blocks, reference_problem };

// How a case stores its weights (mx_args::hidden_pad, expert_dim_pad): 0, unpadded; else the
// tensors padded to these extents as aiter stores them, the pads filled with random bytes (elements
// and scales, NaN codes among them) the layer must never read, and gate and up one fused
// [gate; up] tensor (amd-moe-mxfp4's raw and pre-shuffled forms). The logical weights are the
// unpadded case's of the same seed.
struct moe_mx_padding {
  int hidden = 0, expert_dim = 0;
};

template <class T, class Elem = fp4_e2m1>
struct moe_mx_case {
  using storage = mx_storage_t<Elem>;
  static constexpr int elements_per_byte = host::mx_tensor<Elem>::elements_per_byte;
  ops::moe::problem p;
  bool preshuffled;
  mx_rounding rounding;  // the activations' element rounding (the call's and the host quantizer's)
  std::vector<T> x;
  host::mx_tensor<Elem> xq;  // the host's MX form of x (the device's quantizer must match it)
  std::vector<int> ids;
  std::vector<float> weights;
  host::moe_mx_weights<Elem> w;
  T *d_x = nullptr, *d_out = nullptr;
  int* d_ids = nullptr;
  float* d_weights = nullptr;
  const storage **d_gate = nullptr, **d_up = nullptr, **d_down = nullptr;
  const e8m0 **d_gate_scale = nullptr, **d_up_scale = nullptr, **d_down_scale = nullptr;
  std::vector<void*> d_buffers;
  std::vector<std::pair<const void*, std::size_t>> weight_allocations;  // the weights' and scales' buffers
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  moe_mx_padding pad;
  // The bytes behind each table pointer (mx_args' declared sizes).
  std::size_t gate_bytes = 0, up_bytes = 0, down_bytes = 0, gate_scale_bytes = 0, up_scale_bytes = 0,
              down_scale_bytes = 0;

  moe_mx_case(const ops::moe::problem& problem, std::vector<int> ids_, std::uint32_t seed, std::size_t workspace_size,
              bool preshuffled_, mx_rounding rounding_ = ops::moe::default_mx_rounding<Elem>,
              moe_mx_data drawn = moe_mx_data::blocks, moe_mx_padding padding = {})
      : p(problem), preshuffled(preshuffled_), rounding(rounding_), ids(std::move(ids_)), pad(padding) {
    if (preshuffled && !std::is_same_v<Elem, fp4_e2m1>)
      throw std::invalid_argument("moe_mx_case: pre-shuffled weights are MXFP4");
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f), weight(0.05f, 1.0f);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const bool reference_data = drawn == moe_mx_data::reference_problem;
    auto blocks = [&](int rows, int cols, float size) {  // each 32-column block its own magnitude
      std::vector<float> v(std::size_t(rows) * cols);
      for (std::size_t i = 0; i < v.size(); i += 32) {
        const float f = size * std::exp2(2.0f * unit(rng));
        for (std::size_t c = i; c < i + 32; ++c) v[c] = f * unit(rng);
      }
      return v;
    };
    // N(0, 1) / sqrt(fan_in), rounded to T as the problem's bf16 tensors are.
    auto gaussian = [&](int rows, int cols, float fan_in) {
      std::vector<float> v(std::size_t(rows) * cols);
      for (float& e : v) e = widen_to_float(saturate_cast<T>(normal(rng) / std::sqrt(fan_in)));
      return v;
    };
    std::vector<float> xf = reference_data ? gaussian(p.tokens, p.hidden, 1.0f) : blocks(p.tokens, p.hidden, 1.7f);
    x.resize(xf.size());
    for (std::size_t i = 0; i < x.size(); ++i) xf[i] = widen_to_float(x[i] = saturate_cast<T>(xf[i]));
    xq = host::quantize_mx<Elem>(std::span<const float>(xf), p.tokens, p.hidden, rounding);
    for (int i = 0; i < p.tokens * p.top_k; ++i) {
      if (!reference_data) {
        weights.push_back(weight(rng));
        continue;
      }
      // A softmax over the routed experts' logits (about 1 / routed each); the shared one 1.
      const int routed = p.experts - 1;
      weights.push_back(ids[std::size_t(i)] == routed ? 1.0f : std::exp(0.5f * normal(rng)) / float(routed));
    }
    std::vector<bool> used(p.local_experts, false);
    for (int id : ids)
      if (id >= p.expert_begin && id < p.expert_begin + p.local_experts) used[id - p.expert_begin] = true;
    auto tensor = [&](bool needed, int n, int k) {
      if (!needed) return host::mx_tensor<Elem>{};
      const std::vector<float> f = reference_data ? gaussian(n, k, float(k)) : blocks(n, k, 1.7f / std::sqrt(float(k)));
      return host::quantize_mx<Elem>(std::span<const float>(f), n, k);
    };
    for (int e = 0; e < p.local_experts; ++e) {
      w.gate.push_back(tensor(used[e], p.expert_dim, p.hidden));
      w.up.push_back(tensor(used[e], p.expert_dim, p.hidden));
      w.down.push_back(tensor(used[e], p.hidden, p.expert_dim));
    }
    d_x = upload(x), d_ids = upload(ids), d_weights = upload(weights);
    // The extents as stored, and the pads' values (their own generator: the logical data is the
    // unpadded case's).
    const int hp = pad.hidden ? pad.hidden : p.hidden, ep = pad.expert_dim ? pad.expert_dim : p.expert_dim;
    const bool fused = preshuffled || hp != p.hidden || ep != p.expert_dim;
    std::mt19937 pad_rng(seed ^ 0x5bd1e995u);
    auto padded = [&](const host::mx_tensor<Elem>& t, int rows, int cols) {
      if (rows == t.rows && cols == t.cols) return t;
      host::mx_tensor<Elem> q;
      q.rows = rows, q.cols = cols;
      q.data.resize(std::size_t(rows) * cols / elements_per_byte);
      q.scales.resize(std::size_t(rows) * (cols / 32));
      for (auto& b : q.data) b.bits = static_cast<std::uint8_t>(pad_rng());
      for (auto& b : q.scales) b.bits = static_cast<std::uint8_t>(pad_rng());
      const std::size_t row_bytes = std::size_t(t.cols) / elements_per_byte, blocks = std::size_t(t.cols) / 32;
      for (int r = 0; r < t.rows; ++r) {
        std::copy_n(t.data.begin() + r * row_bytes, row_bytes,
                    q.data.begin() + r * (std::size_t(cols) / elements_per_byte));
        std::copy_n(t.scales.begin() + r * blocks, blocks, q.scales.begin() + r * std::size_t(cols / 32));
      }
      return q;
    };
    // Each tensor's logical bytes (the emulator's read counts are over these).
    const std::size_t gate_logical = std::size_t(p.expert_dim) * p.hidden / elements_per_byte,
                      gate_scales_logical = std::size_t(p.expert_dim) * (p.hidden / 32);
    std::vector<const storage*> gate, up, down;
    std::vector<const e8m0*> gate_s, up_s, down_s;
    for (int e = 0; e < p.local_experts; ++e) {
      if (w.gate[e].data.empty()) {
        for (auto* v : {&gate, &up, &down}) v->push_back(nullptr);
        for (auto* v : {&gate_s, &up_s, &down_s}) v->push_back(nullptr);
        continue;
      }
      if (fused) {  // amd-moe-mxfp4's fused [gate; up] (shuffled as one tensor)
        host::mx_tensor<Elem> both = padded(w.gate[e], ep, hp);
        const host::mx_tensor<Elem> up_part = padded(w.up[e], ep, hp);
        both.rows *= 2;
        both.data.insert(both.data.end(), up_part.data.begin(), up_part.data.end());
        both.scales.insert(both.scales.end(), up_part.scales.begin(), up_part.scales.end());
        const auto [data, scales] = place(both, 2 * gate_logical, 2 * gate_scales_logical);
        // up's entry: row ep of the data and of the scales, in the layout's row stride
        const std::size_t up_data = std::size_t(ep) * (hp / elements_per_byte),
                          up_scales = std::size_t(ep) * (preshuffled ? padded_scale_cols(hp) : hp / 32);
        gate.push_back(data), up.push_back(data + up_data);
        gate_s.push_back(scales), up_s.push_back(scales + up_scales);
        gate_bytes = placed_bytes[0], up_bytes = placed_bytes[0] - up_data;
        gate_scale_bytes = placed_bytes[1], up_scale_bytes = placed_bytes[1] - up_scales;
      } else {
        const auto [g, gs] = place(w.gate[e], gate_logical, gate_scales_logical);
        gate_bytes = placed_bytes[0], gate_scale_bytes = placed_bytes[1];
        const auto [u, us] = place(w.up[e], gate_logical, gate_scales_logical);
        up_bytes = placed_bytes[0], up_scale_bytes = placed_bytes[1];
        gate.push_back(g), up.push_back(u), gate_s.push_back(gs), up_s.push_back(us);
      }
      const auto [d, ds] = place(padded(w.down[e], hp, ep), gate_logical, std::size_t(p.hidden) * (p.expert_dim / 32));
      down_bytes = placed_bytes[0], down_scale_bytes = placed_bytes[1];
      down.push_back(d), down_s.push_back(ds);
    }
    if (down_bytes == 0) {  // no expert has slots: the sizes the query gives
      gate_bytes = up_bytes = ops::moe::mx_weight_bytes<Elem>(ep, hp);
      down_bytes = ops::moe::mx_weight_bytes<Elem>(hp, ep);
      gate_scale_bytes = up_scale_bytes = ops::moe::mx_scale_bytes(ep, hp, layout());
      down_scale_bytes = ops::moe::mx_scale_bytes(hp, ep, layout());
    }
    d_gate = upload(gate), d_up = upload(up), d_down = upload(down);
    d_gate_scale = upload(gate_s), d_up_scale = upload(up_s), d_down_scale = upload(down_s);
    hipMalloc(&d_out, std::max<std::size_t>(x.size(), 1) * sizeof(T));
    hipMemset(d_out, 0xff, x.size() * sizeof(T));  // NaN where a result is missing
    workspace_bytes = workspace_size;
    hipMalloc(&workspace, std::max<std::size_t>(workspace_bytes, 1));
    d_buffers.push_back(workspace);
  }
  ~moe_mx_case() {
    for (void* q : d_buffers) hipFree(q);
    hipFree(d_out);
  }
  moe_mx_case(const moe_mx_case&) = delete;
  moe_mx_case& operator=(const moe_mx_case&) = delete;

  // e8m0_shuffle's padded scale columns of a K (core/mx_shuffle.hpp).
  static int padded_scale_cols(int k) { return (k / 32 + 7) / 8 * 8; }

  // A tensor on the device in the case's layout: its data and scales, their buffers' sizes in
  // placed_bytes. The emulator's read counts are over the logical bytes of each (data, scales: not
  // the pads', nor a shuffled scale tensor's padding).
  std::size_t placed_bytes[2] = {};
  std::pair<const storage*, const e8m0*> place(const host::mx_tensor<Elem>& t, std::size_t data_logical,
                                               std::size_t scales_logical) {
    auto weight = [&](const auto& v, std::size_t logical, std::size_t& size) {
      const auto* d = upload(v);
      weight_allocations.push_back({d, logical});
      size = v.size();
      return d;
    };
    if constexpr (std::is_same_v<Elem, fp4_e2m1>) {
      if (preshuffled)
        return {weight(host::shuffle_weight_16x16(std::span<const storage>(t.data), t.rows, t.cols / 2), data_logical,
                       placed_bytes[0]),
                weight(host::e8m0_shuffle(std::span<const e8m0>(t.scales), t.rows, t.cols / 32), scales_logical,
                       placed_bytes[1])};
    }
    return {weight(t.data, data_logical, placed_bytes[0]), weight(t.scales, scales_logical, placed_bytes[1])};
  }

  // The weights' bytes (elements and scales of the experts that have slots), and how many times
  // the last calls read them on the emulator: bytes read from their buffers over their bytes (1:
  // each read once).
  std::size_t weight_bytes() const {
    std::size_t bytes = 0;
    for (const auto& [ptr, size] : weight_allocations) bytes += size;
    return bytes;
  }
#if defined(WAVEKIT_EMULATOR)
  double weight_reads(const emu::launch_counters& c) const {
    double read = 0;
    for (const auto& [ptr, size] : weight_allocations) read += double(c.bytes_read_from(ptr));
    return read / double(weight_bytes());
  }
#endif

  template <class U>
  U* upload(const std::vector<U>& v) {
    U* d = nullptr;
    hipMalloc(&d, std::max<std::size_t>(v.size(), 1) * sizeof(U));
    hipMemcpy(d, v.data(), v.size() * sizeof(U), hipMemcpyHostToDevice);
    d_buffers.push_back(d);
    return d;
  }

  ops::moe::b_layout layout() const {
    return preshuffled ? ops::moe::b_layout::preshuffled : ops::moe::b_layout::plain;
  }

  ops::moe::mx_args<T, Elem> args() const {
    ops::moe::mx_args<T, Elem> a{.x = d_x,
                                 .ids = d_ids,
                                 .weights = d_weights,
                                 .gate = d_gate,
                                 .up = d_up,
                                 .down = d_down,
                                 .gate_scale = d_gate_scale,
                                 .up_scale = d_up_scale,
                                 .down_scale = d_down_scale,
                                 .out = d_out,
                                 .workspace = workspace,
                                 .workspace_bytes = workspace_bytes};
    a.weight_layout = layout();
    a.rounding = rounding;
    a.hidden_pad = pad.hidden, a.expert_dim_pad = pad.expert_dim;
    a.gate_bytes = gate_bytes, a.up_bytes = up_bytes, a.down_bytes = down_bytes;
    a.gate_scale_bytes = gate_scale_bytes, a.up_scale_bytes = up_scale_bytes, a.down_scale_bytes = down_scale_bytes;
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
  bool has_local_expert(int token) const {
    for (int j = 0; j < p.top_k; ++j) {
      const int id = ids[std::size_t(token) * p.top_k + j];
      if (id >= p.expert_begin && id < p.expert_begin + p.local_experts) return true;
    }
    return false;
  }

  // The header's three steps for a run with M tiles of tile_m rows; the number of failures.
  int check(int tile_m, const char* label) const {
    const ops::moe::workspace_layout at =
        ops::moe::plan_workspace(p, tile_m, sizeof(T), ops::moe::mx_weight_format<Elem>);
    const std::vector<int> row_slot = read_workspace<int>(at.sorted_slots, at.cap.rows);
    const double ulp = std::is_same_v<T, bf16> ? 0x1p-7 : 0x1p-10;
    const double acc =
        host::mfma_fp32_error_bound(p.hidden, 32, 1.0) + host::mfma_fp32_error_bound(p.expert_dim, 32, 1.0);
    const int dim = p.expert_dim, rows = at.cap.rows;
    int bad = 0;
    // 1a. x's MX form, of the tokens with a local expert.
    const int row_bytes = p.hidden / elements_per_byte, h_row_bytes = p.expert_dim / elements_per_byte;
    const auto q = read_workspace<storage>(at.x_fp8, xq.data.size());
    const auto qs = read_workspace<e8m0>(at.x_scale, xq.scales.size());
    for (int t = 0; t < p.tokens; ++t) {
      if (!has_local_expert(t)) continue;
      for (std::size_t i = std::size_t(t) * row_bytes; i < std::size_t(t + 1) * row_bytes; ++i)
        if (q[i].bits != xq.data[i].bits && bad++ < 3)
          std::printf("%s %s: x_mx[%zu] = 0x%02x, host 0x%02x\n", label, p.str().c_str(), i, q[i].bits,
                      xq.data[i].bits);
      for (std::size_t i = std::size_t(t) * (p.hidden / 32); i < std::size_t(t + 1) * (p.hidden / 32); ++i)
        if (qs[i].bits != xq.scales[i].bits && bad++ < 6)
          std::printf("%s: x_scale[%zu] = 0x%02x, host 0x%02x\n", label, i, qs[i].bits, xq.scales[i].bits);
    }
    const auto up = host::reference_moe_mx_up<T>(p, xq, ids, w);
    const auto hidden = read_workspace<T>(at.hidden, std::size_t(rows) * dim);
    const auto hq = read_workspace<storage>(at.hidden_fp8, std::size_t(rows) * h_row_bytes);
    const auto hs = read_workspace<e8m0>(at.hidden_scale, std::size_t(rows) * dim / 32);
    std::vector<host::mx_tensor<Elem>> h_q(std::size_t(p.tokens) * p.top_k);
    int covered = 0;
    for (int r = 0; r < rows; ++r) {
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
      // 1b. Its MX form.
      auto host_q = host::quantize_mx<Elem>(std::span<const float>(row), 1, dim, rounding);
      for (int i = 0; i < h_row_bytes; ++i)
        if (hq[std::size_t(r) * h_row_bytes + i].bits != host_q.data[i].bits && bad++ < 13)
          std::printf("%s: h_mx[row %d][%d] = 0x%02x, host 0x%02x\n", label, r, i,
                      hq[std::size_t(r) * h_row_bytes + i].bits, host_q.data[i].bits);
      for (int b = 0; b < dim / 32; ++b)
        if (hs[std::size_t(r) * dim / 32 + b].bits != host_q.scales[b].bits && bad++ < 16)
          std::printf("%s: h_scale[row %d][%d] = 0x%02x, host 0x%02x\n", label, r, b,
                      hs[std::size_t(r) * dim / 32 + b].bits, host_q.scales[b].bits);
      h_q[s] = std::move(host_q);
    }
    int expected = 0;
    for (int id : ids) expected += id >= p.expert_begin && id < p.expert_begin + p.local_experts;
    if (covered != expected && bad++ < 20)
      std::printf("%s: %d gated-product rows in use, %d slots with a local expert\n", label, covered, expected);
    // 3. The output from the device's own MX gated product.
    check_moe_output(
        p, output(), host::reference_moe_mx_down<T>(p, h_q, ids, weights, w), ulp, acc, [](int) { return true; }, label,
        bad);
    return bad;
  }
};

}  // namespace wavekit::test

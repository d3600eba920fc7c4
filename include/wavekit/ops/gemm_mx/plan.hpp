// What wavekit::gemm_mx runs for a problem, asked without running anything: the plan (config and K
// splits) and the workspace it needs. Plain C++ (no HIP):
//
//   namespace gx = wavekit::ops::gemm_mx;
//   auto plan = gx::select_plan(gx::problem{m, n, k, gx::mx_format::mxfp4}, workspace_bytes,
//                               wavekit::arch::target::gfx950);
//
// Plans are for gfx950 (the only target with scaled MFMAs; gfx942 gets a status) and come from the
// GEMM model (block/gemm_plan_model.hpp) at the format's matrix rate: every shipped config, K
// splits in powers of two up to 16 with at least 4 K steps each, limited by the workspace; for
// decode sizes (M <= 64) only configs whose M tile holds every row in one wave row, so B and its
// scales are read once.
#pragma once

#include <cstddef>
#include <string>

#include "wavekit/arch/target.hpp"
#include "wavekit/block/gemm_plan_model.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/core/result.hpp"
#include "wavekit/ops/gemm_mx/configs.hpp"
#include "wavekit/ops/gemm_mx/problem.hpp"

namespace wavekit::ops::gemm_mx {

struct plan {
  config_id config = config_id::large;
  int splits = 1;
};
using plan_info = block::gemm_plan_info<plan>;

// The K step (elements) of a config for a format.
template <class Cfg>
constexpr int block_k_of(mx_format f) {
  return f == mx_format::mxfp8 ? Cfg::template of<mx_format::mxfp8>::block_k
                               : Cfg::template of<mx_format::mxfp4>::block_k;
}

inline block::gemm_tile_facts facts(config_id id) {
  return with_config(id, [&](auto cfg) {
    using C = decltype(cfg);
    return block::gemm_tile_facts{C::block_m, C::block_n, C::wave_m, C::wave_n, C::shape::lds_bytes};
  });
}
inline int k_steps(const problem& p, config_id id) {
  return with_config(id, [&](auto cfg) { return ceil_div(p.k, block_k_of<decltype(cfg)>(p.format)); });
}
inline std::string plan_name(plan pl) {
  return with_config(pl.config, [&](auto cfg) { return decltype(cfg)::name(pl.splits); });
}

// The configs a kernel that quantizes a 16-bit A as it loads it can take: the A tile's K step in
// at most 8 16-byte chunks a thread (32 registers held across a step's MFMAs), every thread busy.
template <class C>
inline constexpr bool quantizes_a_config = [] {
  constexpr int chunks = C::block_m * C::shape::row_bytes * 4 / 16;  // 16-bit values of a K step
  return chunks % C::threads == 0 && chunks / C::threads <= 8;
}();
inline bool quantizes_a(config_id id) {
  return with_config(id, [](auto cfg) { return quantizes_a_config<decltype(cfg)>; });
}

// Estimated seconds of a plan on MI355X at the format's matrix rate; operand bytes include the
// scales (one byte per 32 elements).
inline double model_seconds(const problem& p, plan pl) {
  constexpr arch::target t = arch::target::gfx950;
  const double element = element_bits(p.format) / 8.0 + 1.0 / scale_block;
  const double a_element = p.a == a_storage::mx ? element : 2.0;
  const double tflops = p.format == mx_format::mxfp8 ? block::planned_facts(t).fp8_dense_tflops
                                                     : block::planned_facts(t).fp4_dense_tflops;
  return block::gemm_model_seconds(p.m, p.n, p.k, facts(pl.config), pl.splits, tflops, {a_element, element, 2}, t);
}

// Up to this M (the peer decode kernels' range) a plan keeps all rows in one M tile.
inline constexpr int decode_rows = 64;

inline plan choose_plan(const problem& p, std::size_t workspace) {
  plan best;
  double best_time = 1e30, best_work = 1e300;
  for (config_id id : all_configs) {
    if (p.a != a_storage::mx && !quantizes_a(id)) continue;
    // Decode sizes read the weights once: one M tile covers every row (split-K, not M tiles,
    // supplies the workgroups), and one wave row, since each wave reads its columns' scales.
    if (p.m <= decode_rows && (facts(id).block_m < p.m || facts(id).wave_m != facts(id).block_m)) continue;
    for (int splits = 1; splits <= 16; splits *= 2) {
      if (splits > 1 && (k_steps(p, id) / splits < 4 || workspace_bytes(p, splits) > workspace)) break;
      const double time = model_seconds(p, {id, splits});
      const double work = block::gemm_padded_flops(p.m, p.n, p.k, facts(id));
      if (block::gemm_model_prefers(time, work, best_time, best_work)) {
        best = {id, splits};
        best_time = std::min(best_time, time), best_work = work;
      }
    }
  }
  return best;
}

// The target rule of this op: gfx950's scaled MFMAs apply the MX scales; gfx942 has none.
inline status check_target(const problem& p, arch::target t) {
  const std::string what = "gemm_mx " + p.str();
  if (status s = block::check_plan_target(what, t); !s.ok()) return s;
  if (t != arch::target::gfx950)
    return {status_code::bad_config,
            what + ": MX formats run on gfx950's scaled MFMAs; " + arch::to_string(t) + " has none"};
  return status::success();
}

inline status validate_query(const problem& p, arch::target t) {
  if (status s = validate_shape(p); !s.ok()) return s;
  return check_target(p, t);
}

inline result<std::size_t> workspace_bytes(const problem& p, arch::target t) {
  if (status s = validate_query(p, t); !s.ok()) return s;
  return workspace_bytes(p, choose_plan(p, ~std::size_t{0}).splits);
}

inline result<plan_info> select_plan(const problem& p, std::size_t workspace, arch::target t) {
  if (status s = validate_query(p, t); !s.ok()) return s;
  return block::describe_plan(
      workspace, [&](std::size_t bytes) { return choose_plan(p, bytes); }, [](plan pl) { return plan_name(pl); },
      [&](int splits) { return workspace_bytes(p, splits); });
}

}  // namespace wavekit::ops::gemm_mx

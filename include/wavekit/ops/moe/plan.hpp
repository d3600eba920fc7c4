// Which grouped-GEMM config wavekit::moe runs for a problem, asked without running anything (plain
// C++, no HIP). The config's M tile is also the sort's padding unit. The choice is the performance
// model's (model.hpp) over the rows even routing gives each expert: few rows (decode) waste least
// in 16-row tiles, where each expert's weights are then read once; many rows reuse each weight tile
// over 64 or 128 rows.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <string>
#include <vector>

#include "wavekit/arch/target.hpp"

#include "wavekit/core/result.hpp"
#include "wavekit/ops/moe/configs.hpp"
#include "wavekit/ops/moe/configs_blockscale.hpp"
#include "wavekit/ops/moe/configs_mx.hpp"
#include "wavekit/ops/moe/model.hpp"
#include "wavekit/ops/moe/problem.hpp"
#include "wavekit/ops/moe/tuning.hpp"
#include "wavekit/perf/plan_choice.hpp"
#include "wavekit/tuning/plan_cache.hpp"
#include "wavekit/tuning/tuned_or_model.hpp"

namespace wavekit::ops::moe {

// The workspace query takes no target: bf16 / fp16 and fp8 weights plan for the MI300X, MX weights
// (gfx950 only) for the MI355X. The launches plan for the device's target within the workspace the
// call passes (choose_config), so a workspace sized by the query always suffices.
inline arch::target planned_target(weight_format weights) {
  return weights == weight_format::mxfp4 || weights == weight_format::mxfp8 ? arch::target::gfx950
                                                                            : arch::target::gfx942;
}

inline constexpr std::size_t unlimited_workspace = ~std::size_t{0};

// Whether config id's workspace (for bf16 / fp16 elements) fits in `workspace` bytes.
inline bool workspace_fits(const problem& p, weight_format weights, config_id id, std::size_t workspace) {
  return plan_workspace(p, block_m_of(id), 2, weights).bytes <= workspace;
}

// Whether config id can run p: the launch's rules at its M tile, the sort's and the down
// projection's rows (validate_layer_rows; every form's configs share these M tiles).
inline status check_config(const problem& p, config_id id) { return validate_layer_rows(p, block_m_of(id)); }

// The model's config on target t over even routing, among those that can run p (check_config) and
// whose workspace fits (the 16-row decode config needs the least of both, so one always fits a
// workspace the query sized): among the configs within the model's error of the fastest, the most
// robust (perf/plan_choice.hpp: the most waves in flight in the grouped GEMMs, then the deepest
// prefetch, then the fastest; the smallest M tile where all are equal). Decode sizes keep each
// expert's weights (and MX scales) read once (below).
inline config_id model_config(const problem& p, weight_format weights = weight_format::half,
                              arch::target t = arch::target::host, std::size_t workspace = unlimited_workspace) {
  if (t == arch::target::host) t = planned_target(weights);
  const std::vector<int> rows = even_expert_rows(p);
  // Decode sizes, as gemm_mx plans them: where an M tile of one wave row holds every expert's rows,
  // only such tiles. Each expert's weights are read once and no tile pads more rows than the
  // decode tile's; with MX weights each wave reads its columns' scales, which one wave row reads
  // once.
  const bool mx = weights == weight_format::mxfp4 || weights == weight_format::mxfp8;
  const int most_rows = rows.empty() ? 0 : *std::max_element(rows.begin(), rows.end());
  auto one_wave_row = [&](config_id id) {
    auto holds = [&](auto cfg) {
      using C = decltype(cfg);
      return C::block_m >= most_rows && C::wave_m == C::block_m;
    };
    return mx ? with_mx_config(id, holds) : with_config(id, holds);
  };
  const bool decode_rows = std::any_of(std::begin(all_configs), std::end(all_configs), one_wave_row);
  std::vector<perf::scored_plan<config_id>> candidates;
  for (config_id id : all_configs) {  // smallest M tile first
    if (!workspace_fits(p, weights, id, workspace) || !check_config(p, id).ok()) continue;
    if (decode_rows && !one_wave_row(id)) continue;
    const perf::op_time time = model_time(p, weights, id, rows, t);
    // A config whose kernels are not in the codegen report (MXFP8's larger tiles) is not judged.
    if (std::any_of(time.work.begin(), time.work.end(), [](const auto& w) { return !w.profile; })) continue;
    candidates.push_back(perf::score(id, time));
  }
  return candidates.empty() ? config_id::decode : perf::choose_within_model_error(candidates);
}

// The config wavekit::moe runs on target t (host: planned_target, what the workspace query plans
// for) with `workspace` bytes: the tuned tables' for p and the element types `dtypes`
// (tuning_dtypes<T>; empty: bf16 activations, what a query that does not know T asks for) when it
// can run p (check_config) and its workspace fits, else the model's (tuning/tuned_or_model.hpp).
inline config_id choose_config(const problem& p, weight_format weights = weight_format::half,
                               arch::target t = arch::target::host, std::size_t workspace = unlimited_workspace,
                               const std::string& dtypes = std::string()) {
  if (t == arch::target::host) t = planned_target(weights);
  static tuning::plan_cache<config_id> cache;  // each query's answer, kept (tuning/plan_cache.hpp)
  const std::string key_dtypes = dtypes.empty() ? tuning_dtypes<bf16>(weights, t) : dtypes;
  const tuning::query q(tuning_op, t, key_dtypes, workspace,
                        {p.tokens, p.hidden, p.expert_dim, p.experts, p.top_k, p.expert_begin, p.local_experts,
                         int(p.weight_order), int(weights)});
  return cache.get(q, [&] {
    return tuning::tuned_or_model<config_id>(
        tuning_key(p, t, arch::facts_for(t).compute_units, key_dtypes), tuned_config, tuning_value,
        [&] { return model_config(p, weights, t, workspace); }, [&](config_id id) { return check_config(p, id); },
        [&](config_id id) { return workspace_fits(p, weights, id, workspace); });
  });
}

inline std::string config_name(config_id id) {
  return with_config(id, [](auto cfg) { return decltype(cfg)::name(); });
}

inline blockscale::config_id choose_blockscale_config(const problem& p, arch::target t = arch::target::host,
                                                      std::size_t workspace = unlimited_workspace,
                                                      const std::string& dtypes = std::string()) {
  return blockscale_config_of(choose_config(p, weight_format::fp8_blockscale, t, workspace, dtypes));
}

inline std::string config_name(blockscale::config_id id) {
  return blockscale::with_config(id, [](auto cfg) { return decltype(cfg)::name(); });
}

// What the MoE plan query answers, as the GEMMs' (block/gemm_plan_model.hpp's gemm_plan_info): the
// config a call runs, the name of its kernels' config in the weights' form, its M tile (the sort's
// padding unit), and the workspace it uses next to what the config chosen with unlimited workspace
// would.
struct plan_info {
  config_id config = config_id::decode;  // the M-tile family every weight format's configs share
  std::string name;                      // e.g. "moe<16x64x64, w1x2, mfma16>"
  int block_m = 0;
  std::size_t workspace_bytes = 0;            // what this plan uses of the workspace
  std::size_t preferred_workspace_bytes = 0;  // what the plan chosen with unlimited workspace uses
  bool workspace_limited = false;             // this plan differs from that one for lack of workspace
};

// The name of config id's kernels for weights of the given format.
inline std::string config_name(config_id id, weight_format weights) {
  if (weights == weight_format::fp8_blockscale) return config_name(blockscale_config_of(id));
  if (weights == weight_format::mxfp4 || weights == weight_format::mxfp8)
    return with_mx_config(id, [](auto cfg) { return decltype(cfg)::name(); });
  return config_name(id);
}

// The plan wavekit::moe runs on target t for weights of the given format with `workspace` bytes and
// element types dtypes (tuning_dtypes<T>; the activations are 2 bytes wide, bf16 or fp16). The
// problem's rules are the caller's to check first (supports).
inline plan_info describe_plan(const problem& p, weight_format weights, arch::target t, std::size_t workspace,
                               const std::string& dtypes) {
  const config_id chosen = choose_config(p, weights, t, workspace, dtypes);
  const config_id preferred = choose_config(p, weights, t, unlimited_workspace, dtypes);
  const auto bytes = [&](config_id id) { return plan_workspace(p, block_m_of(id), 2, weights).bytes; };
  return {chosen,           config_name(chosen, weights), block_m_of(chosen), bytes(chosen),
          bytes(preferred), chosen != preferred};
}

// The workspace the chosen config needs, for elements of element_bytes (2: bf16 / fp16) and the
// given weights.
inline result<std::size_t> workspace_bytes(const problem& p, std::size_t element_bytes = 2,
                                           weight_format weights = weight_format::half) {
  if (status s = weights == weight_format::half             ? validate_shape(p)
                 : weights == weight_format::fp8_blockscale ? validate_blockscale_shape(p)
                                                            : validate_mx_shape(p);
      !s.ok())
    return s;
  const int tile_m = block_m_of(choose_config(p, weights));
  static_assert(config_decode::block_m == blockscale::config_decode::block_m &&
                    config_medium::block_m == blockscale::config_medium::block_m &&
                    config_prefill::block_m == blockscale::config_prefill::block_m,
                "moe: the fp8 configs share the bf16 / fp16 configs' M tiles (one plan, one workspace size)");
  if (status s = validate_layer_rows(p, tile_m); !s.ok()) return s;
  return plan_workspace(p, tile_m, element_bytes, weights).bytes;
}

}  // namespace wavekit::ops::moe

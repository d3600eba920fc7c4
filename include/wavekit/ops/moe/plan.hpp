// Which grouped-GEMM config wavekit::moe runs for a problem, asked without running anything (plain
// C++, no HIP). The config's M tile is also the sort's padding unit. The choice is the performance
// model's (model.hpp) over the rows even routing gives each expert: few rows (decode) waste least
// in 16-row tiles, where each expert's weights are then read once; many rows reuse each weight tile
// over 64 or 128 rows.
//
// The plan descriptor below is all the planning this op owns (planning/planner.hpp asks it). The
// tuned tables key a layer as
//   op moe; dtypes "<weights>,<activations>" ("bf16,bf16", "e4m3fnuz,bf16" for fp8 block-scaled
//   weights on gfx942, "mxfp4,bf16"); layout the weights' order; M the tokens (bucketed), n
//   expert_dim, k hidden, e_local the local experts, top_k the choices per token
// and name a config by its config_id_name ("decode", "medium", "prefill"; the fp8 and MX lists
// share the names), splits 1 (the grouped GEMMs do not split K).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wavekit/arch/target.hpp"
#include "wavekit/core/result.hpp"
#include "wavekit/ops/moe/configs.hpp"
#include "wavekit/ops/moe/configs_blockscale.hpp"
#include "wavekit/ops/moe/configs_mx.hpp"
#include "wavekit/ops/moe/model.hpp"
#include "wavekit/ops/moe/problem.hpp"
#include "wavekit/planning/planner.hpp"
#include "wavekit/planning/tables/key.hpp"
#include "wavekit/planning/tables/names.hpp"

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

// T: the activations (bf16 or fp16); the weights in `weights`' format, fp8 in target t's: the
// tables' dtypes.
template <class T>
std::string tuning_dtypes(weight_format weights, arch::target t) {
  std::string w = planning::dtype_name<T>();
  if (weights == weight_format::fp8_blockscale) w = planning::fp8_dtype_name(t);
  if (weights == weight_format::mxfp4) w = "mxfp4";
  if (weights == weight_format::mxfp8) w = "mxfp8";
  return w + "," + planning::dtype_name<T>();
}

// What a MoE plan depends on: the layer and its weights' format.
struct layer_plan_query {
  moe::problem p;
  weight_format weights = weight_format::half;
};

// The model's config on target t is chosen over even routing among the configs that can run p
// (check_config) and whose workspace fits (the 16-row decode config needs the least of both, so
// one always fits a workspace the query sized): among those within the model's error of the
// fastest, the most robust (planning/model/plan_choice.hpp: the most waves in flight in the
// grouped GEMMs, then the deepest prefetch, then the fastest; the smallest M tile where all are
// equal). Decode sizes keep each expert's weights (and MX scales) read once (candidates).
struct plan_descriptor {
  using problem = layer_plan_query;
  using plan = config_id;
  static constexpr const planning::instance_family& family = codegen_family;

  // The plan queries, which do not know T, ask for bf16 activations.
  static std::string dtypes(const problem& q, arch::target t) { return tuning_dtypes<bf16>(q.weights, t); }
  static planning::query query(const problem& q, std::size_t workspace, arch::target t, std::string_view dtypes) {
    const moe::problem& p = q.p;
    return {family.op,
            t,
            dtypes,
            workspace,
            {p.tokens, p.hidden, p.expert_dim, p.experts, p.top_k, p.expert_begin, p.local_experts, int(p.weight_order),
             int(q.weights)}};
  }
  static planning::key key(const problem& q, arch::target t, int cus, std::string dtypes) {
    return {.op = std::string(family.op),
            .arch = t,
            .cus = cus,
            .dtypes = std::move(dtypes),
            .layout = to_string(q.p.weight_order),
            .m_bucket = planning::m_bucket(q.p.tokens),
            .n = q.p.expert_dim,
            .k = q.p.hidden,
            .e_local = q.p.local_experts,
            .top_k = q.p.top_k};
  }
  template <class F>
  static void candidates(const problem& q, std::size_t workspace, arch::target t, F&& consider) {
    const moe::problem& p = q.p;
    const weight_format weights = q.weights;
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
    for (config_id id : all_configs) {  // smallest M tile first
      if (!workspace_fits(p, weights, id, workspace) || !check_config(p, id).ok()) continue;
      if (decode_rows && !one_wave_row(id)) continue;
      const planning::op_time time = model_time(p, weights, id, rows, t);
      // A config whose kernels are not in the codegen report (MXFP8's larger tiles) is not judged.
      if (std::any_of(time.work.begin(), time.work.end(), [](const auto& w) { return !w.profile; })) continue;
      consider(id, time, 0.0);
    }
  }
  // A config whose kernels the codegen report lacks everywhere it could run: the decode tile.
  static plan fallback(const problem&) { return config_id::decode; }
  static status check(const problem& q, plan id, arch::target) { return check_config(q.p, id); }
  static bool fits(const problem& q, plan id, std::size_t workspace) {
    return workspace_fits(q.p, q.weights, id, workspace);
  }
  static planning::value to_value(plan id) { return {config_id_name(id), 1}; }
  static std::optional<plan> from_value(const planning::value& v) {
    return planning::config_named(v.config, all_configs);
  }
};

// The tables' key of p with element types `dtypes` (tuning_dtypes) on a device of target t with
// `cus` compute units, and their value of a config: the descriptor's (tools/tuner writes them).
inline constexpr std::string_view tuning_op = plan_descriptor::family.op;
inline planning::key tuning_key(const problem& p, arch::target t, int cus, std::string dtypes) {
  return plan_descriptor::key({p}, t, cus, std::move(dtypes));
}
inline planning::value tuning_value(config_id id) { return plan_descriptor::to_value(id); }
inline std::optional<config_id> tuned_config(const planning::value& v) { return plan_descriptor::from_value(v); }

// The model's config for the layer on target t (host: planned_target) within `workspace` bytes.
inline config_id model_config(const problem& p, weight_format weights = weight_format::half,
                              arch::target t = arch::target::host, std::size_t workspace = unlimited_workspace) {
  if (t == arch::target::host) t = planned_target(weights);
  return planning::model_plan<plan_descriptor>({p, weights}, workspace, t);
}

// The config wavekit::moe runs on target t (host: planned_target, what the workspace query plans
// for) with `workspace` bytes and element types `dtypes` (tuning_dtypes<T>; empty: bf16
// activations): the tables' or the model's (planning/planner.hpp).
inline config_id choose_config(const problem& p, weight_format weights = weight_format::half,
                               arch::target t = arch::target::host, std::size_t workspace = unlimited_workspace,
                               std::string_view dtypes = {}) {
  if (t == arch::target::host) t = planned_target(weights);
  return planning::choose_plan<plan_descriptor>({p, weights}, workspace, t, dtypes);
}

inline std::string config_name(config_id id) {
  return with_config(id, [](auto cfg) { return decltype(cfg)::name(); });
}

inline blockscale::config_id choose_blockscale_config(const problem& p, arch::target t = arch::target::host,
                                                      std::size_t workspace = unlimited_workspace,
                                                      std::string_view dtypes = {}) {
  return blockscale_config_of(choose_config(p, weight_format::fp8_blockscale, t, workspace, dtypes));
}

inline std::string config_name(blockscale::config_id id) {
  return blockscale::with_config(id, [](auto cfg) { return decltype(cfg)::name(); });
}

// What the MoE plan query answers, as the GEMMs' (planning/gemm_plan.hpp's gemm_plan_info): the
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
                               std::string_view dtypes) {
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

// What the tuner knows of each op (plain C++, no HIP): the problem of a shape, its table key, the
// model's plan, and every plan the model weighs (the candidates a GPU run times). One case per op
// with the same members, so the tuner's driver is written once: op_case<entry> for each op of the
// registry (ops/registry.hpp) with a plan descriptor, the GEMMs' and the MoE layer's; the tuner
// knows exactly those ops (with_op_case).
//
// The model's plan is each op's own query with unlimited workspace (what its workspace_bytes
// query plans with): each op's model_plan. The candidates
// repeat each op's model loop (the configs it offers, K splits in powers of two up to 16 with at
// least 4 K steps each, and the op's own filters); test/planning/tables checks that the model's plan is
// always among them.
#pragma once

#include <cstddef>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "wavekit/arch/target.hpp"
#include "wavekit/core/layout.hpp"
#include "wavekit/core/math.hpp"
#include "wavekit/core/result.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/plan.hpp"
#include "wavekit/ops/gemm_fp8_scaled/plan.hpp"
#include "wavekit/ops/gemm_half/plan.hpp"
#include "wavekit/ops/gemm_mx/plan.hpp"
#include "wavekit/ops/moe/plan.hpp"
#include "wavekit/ops/registry.hpp"
#include "wavekit/planning/tables/key.hpp"

namespace wavekit::tuner {

// M x N x K; for the MoE layer tokens x expert_dim x hidden, with its routing (--experts, --top-k,
// --local-experts: the experts a token chooses from, its choices, and the first local_experts of
// them held here, all of them when 0). The GEMMs ignore the routing.
struct shape {
  int m, n, k;
  int experts = 0, top_k = 0, local_experts = 0;
  std::string str() const { return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k); }
};

inline constexpr std::size_t unlimited_workspace = ~std::size_t{0};

// K splits in powers of two up to 16 while each split keeps 4 K steps: the split rule every GEMM's
// model loop applies (with unlimited workspace).
template <class F>
void for_each_split(int k_steps, F&& f) {
  for (int splits = 1; splits <= 16 && (splits == 1 || k_steps / splits >= 4); splits *= 2) f(splits);
}

namespace detail {
inline result<layout> parse_order(std::string_view name) {
  if (name == "k_contiguous") return layout::k_contiguous;
  if (name == "mn_contiguous") return layout::mn_contiguous;
  return status{status_code::bad_shape, "layout '" + std::string(name) + "' is not k_contiguous or mn_contiguous"};
}
}  // namespace detail

// The tuner's case of the op whose registry entry is Op.
template <class Op>
struct op_case {
  static_assert(dependent_false<Op>,
                "tuner: an op with a plan descriptor (tuned tables) needs its op_case in tools/tuner/op_cases.hpp");
};

template <>
struct op_case<ops::gemm_fp8_blockscale::entry> {
  using problem = ops::gemm_fp8_blockscale::problem;
  using plan = ops::gemm_fp8_blockscale::plan;
  static constexpr std::string_view op = ops::gemm_fp8_blockscale::plan_queries::tuning_op;

  static std::vector<std::string> layouts() { return {"k_contiguous", "mn_contiguous"}; }
  static std::vector<std::string> dtypes(arch::target t) { return {ops::gemm_fp8_blockscale::tuning_dtypes(t)}; }
  static result<problem> make(shape s, std::string_view layout_name, std::string_view, arch::target t) {
    const result<layout> order = detail::parse_order(layout_name);
    if (!order) return order.error();
    const problem p{s.m, s.n, s.k, order.value()};
    if (status st = ops::gemm_fp8_blockscale::plan_queries::validate_query(p, t); !st.ok()) return st;
    return p;
  }
  static planning::key key(const problem& p, arch::target t, int cus, const std::string&) {
    return ops::gemm_fp8_blockscale::plan_queries::tuning_key(p, t, cus);
  }
  static plan model(const problem& p, arch::target t) {
    return ops::gemm_fp8_blockscale::plan_queries::model_plan(p, unlimited_workspace, t);
  }
  static std::vector<plan> candidates(const problem& p, arch::target) {
    namespace gb = ops::gemm_fp8_blockscale;
    std::vector<plan> plans;
    for (gb::config_id id : gb::all_configs) {
      if (id == gb::config_id::mfma32) continue;  // the model loop's exception: explicit use only
      for_each_split(p.k_groups(), [&](int splits) { plans.push_back({id, splits}); });
    }
    return plans;
  }
  static planning::value value(plan pl) { return ops::gemm_fp8_blockscale::plan_queries::tuning_value(pl); }
  static std::string name(plan pl) { return ops::gemm_fp8_blockscale::plan_name(pl); }
  // The candidates timed on the current device (tuner/gpu_timing.hpp); defined in the op's
  // time_<op>.cpp (a GPU build's), so a case without one fails the link.
  static result<std::vector<double>> time_plans(const problem& p, const std::vector<plan>& plans, arch::target t,
                                                const std::string& dtypes);
};
using gemm_fp8_blockscale_case = op_case<ops::gemm_fp8_blockscale::entry>;

template <>
struct op_case<ops::gemm_half::entry> {
  using problem = ops::gemm_half::problem;
  using plan = ops::gemm_half::plan;
  static constexpr std::string_view op = ops::gemm_half::plan_queries::tuning_op;

  static std::vector<std::string> layouts() { return {"k_contiguous", "mn_contiguous"}; }
  // bf16 or fp16 in, the same or fp32 out: each its own key (the one-call API asks its own).
  static std::vector<std::string> dtypes(arch::target) {
    namespace gh = ops::gemm_half;
    return {gh::tuning_dtypes<bf16, bf16>(), gh::tuning_dtypes<fp16, fp16>(), gh::tuning_dtypes<bf16, float>(),
            gh::tuning_dtypes<fp16, float>()};
  }
  static result<problem> make(shape s, std::string_view layout_name, std::string_view, arch::target t) {
    const result<layout> order = detail::parse_order(layout_name);
    if (!order) return order.error();
    const problem p{s.m, s.n, s.k, order.value()};
    if (status st = ops::gemm_half::plan_queries::validate_query(p, t); !st.ok()) return st;
    return p;
  }
  static planning::key key(const problem& p, arch::target t, int cus, const std::string& dtypes) {
    return ops::gemm_half::plan_queries::tuning_key(p, t, cus, dtypes);
  }
  static plan model(const problem& p, arch::target t) {
    return ops::gemm_half::plan_queries::model_plan(p, unlimited_workspace, t);
  }
  static std::vector<plan> candidates(const problem& p, arch::target) {
    namespace gh = ops::gemm_half;
    std::vector<plan> plans;
    for (gh::config_id id : gh::all_configs)
      for_each_split(gh::k_steps(p, id), [&](int splits) { plans.push_back({id, splits}); });
    return plans;
  }
  static planning::value value(plan pl) { return ops::gemm_half::plan_queries::tuning_value(pl); }
  static std::string name(plan pl) { return ops::gemm_half::plan_name(pl); }
  // The candidates timed on the current device (tuner/gpu_timing.hpp); defined in the op's
  // time_<op>.cpp (a GPU build's), so a case without one fails the link.
  static result<std::vector<double>> time_plans(const problem& p, const std::vector<plan>& plans, arch::target t,
                                                const std::string& dtypes);
};
using gemm_half_case = op_case<ops::gemm_half::entry>;

template <>
struct op_case<ops::gemm_fp8_scaled::entry> {
  using problem = ops::gemm_fp8_scaled::problem;
  using plan = ops::gemm_fp8_scaled::plan;
  static constexpr std::string_view op = ops::gemm_fp8_scaled::plan_queries::tuning_op;

  static std::vector<std::string> layouts() { return {"k_contiguous", "mn_contiguous"}; }
  // C bf16 or fp16, with per-row and per-column scales (the scales change no plan's work).
  static std::vector<std::string> dtypes(arch::target t) {
    return {ops::gemm_fp8_scaled::tuning_dtypes<bf16>(t), ops::gemm_fp8_scaled::tuning_dtypes<fp16>(t)};
  }
  static result<problem> make(shape s, std::string_view layout_name, std::string_view, arch::target t) {
    const result<layout> order = detail::parse_order(layout_name);
    if (!order) return order.error();
    using ops::gemm_fp8_scaled::scale_granularity;
    const problem p{s.m, s.n, s.k, order.value(), scale_granularity::row, scale_granularity::row};
    if (status st = ops::gemm_fp8_scaled::plan_queries::validate_query(p, t); !st.ok()) return st;
    return p;
  }
  static planning::key key(const problem& p, arch::target t, int cus, const std::string& dtypes) {
    return ops::gemm_fp8_scaled::plan_queries::tuning_key(p, t, cus, dtypes);
  }
  static plan model(const problem& p, arch::target t) {
    return ops::gemm_fp8_scaled::plan_queries::model_plan(p, unlimited_workspace, t);
  }
  static std::vector<plan> candidates(const problem& p, arch::target t) {
    namespace gs = ops::gemm_fp8_scaled;
    // For M <= 16 only plans within the read budget, where any config offers one (model_plan).
    auto within_budget = [&](gs::config_id id, int splits) {
      return gs::memory_read_bytes(p, id, splits, t) <= gs::skinny_read_budget * gs::ideal_bytes(p);
    };
    bool budget = false;
    if (p.m <= gs::skinny_max_m)
      for (gs::config_id id : gs::all_configs) budget = budget || (gs::offered(p, id, t) && within_budget(id, 1));
    std::vector<plan> plans;
    for (gs::config_id id : gs::all_configs) {
      if (!gs::offered(p, id, t)) continue;
      bool over = false;  // reads grow with the splits: past the budget once, past it for more
      for_each_split(gs::k_steps(p, id, t), [&](int splits) {
        over = over || (budget && !within_budget(id, splits));
        if (!over) plans.push_back({id, splits});
      });
    }
    return plans;
  }
  static planning::value value(plan pl) { return ops::gemm_fp8_scaled::plan_queries::tuning_value(pl); }
  static std::string name(plan pl) { return ops::gemm_fp8_scaled::plan_name(pl); }
  // The candidates timed on the current device (tuner/gpu_timing.hpp); defined in the op's
  // time_<op>.cpp (a GPU build's), so a case without one fails the link.
  static result<std::vector<double>> time_plans(const problem& p, const std::vector<plan>& plans, arch::target t,
                                                const std::string& dtypes);
};
using gemm_fp8_scaled_case = op_case<ops::gemm_fp8_scaled::entry>;

template <>
struct op_case<ops::gemm_mx::entry> {
  using problem = ops::gemm_mx::problem;
  using plan = ops::gemm_mx::plan;
  static constexpr std::string_view op = ops::gemm_mx::plan_queries::tuning_op;

  // The GPU run reads B plain (K-contiguous rows).
  static std::vector<std::string> layouts() { return {"k_contiguous"}; }
  // The three forms the GPU run times: MXFP4, MXFP8, and MXFP4 with a bf16 A quantized in the kernel.
  static std::vector<std::string> dtypes(arch::target) {
    return {dtypes_of(ops::gemm_mx::mx_format::mxfp4, ops::gemm_mx::a_storage::mx),
            dtypes_of(ops::gemm_mx::mx_format::mxfp8, ops::gemm_mx::a_storage::mx),
            dtypes_of(ops::gemm_mx::mx_format::mxfp4, ops::gemm_mx::a_storage::bf16)};
  }
  static result<problem> make(shape s, std::string_view layout_name, std::string_view dtypes, arch::target t) {
    namespace gx = ops::gemm_mx;
    if (layout_name != "k_contiguous")
      return status{status_code::bad_shape, "gemm_mx: the tuner runs layout k_contiguous only (B plain)"};
    for (gx::mx_format f : {gx::mx_format::mxfp4, gx::mx_format::mxfp8})
      for (gx::a_storage a : {gx::a_storage::mx, gx::a_storage::bf16})
        if (dtypes == dtypes_of(f, a)) {
          const problem p{s.m, s.n, s.k, f, a, gx::b_layout::plain};
          if (status st = gx::plan_queries::validate_query(p, t); !st.ok()) return st;
          return p;
        }
    return status{status_code::bad_shape, "gemm_mx: no form with dtypes '" + std::string(dtypes) + "'"};
  }
  static planning::key key(const problem& p, arch::target t, int cus, const std::string& dtypes) {
    return ops::gemm_mx::plan_queries::tuning_key(p, t, cus, dtypes);
  }
  static plan model(const problem& p, arch::target t) {
    return ops::gemm_mx::plan_queries::model_plan(p, unlimited_workspace, t);
  }
  static std::vector<plan> candidates(const problem& p, arch::target) {
    namespace gx = ops::gemm_mx;
    std::vector<plan> plans;
    for (gx::config_id id : gx::all_configs) {
      if (p.a != gx::a_storage::mx && !gx::quantizes_a(id)) continue;
      // Decode sizes: one M tile and one wave row hold every row (B and its scales read once).
      const planning::gemm_tile_facts f = gx::facts(id);
      if (p.m <= gx::decode_rows && (f.block_m < p.m || f.wave_m != f.block_m)) continue;
      for_each_split(gx::k_steps(p, id), [&](int splits) { plans.push_back({id, splits}); });
    }
    if (p.format == gx::mx_format::mxfp8 && p.m <= gx::gemv_rows_max) {
      int rows = 1;
      while (rows < p.m) rows *= 2;
      for_each_split(ceil_div(p.k, gx::gemv_config<1>::block_k),
                     [&](int splits) { plans.push_back({gx::config_id::decode, splits, rows}); });
    }
    return plans;
  }
  static planning::value value(plan pl) { return ops::gemm_mx::plan_queries::tuning_value(pl); }
  static std::string name(plan pl) { return ops::gemm_mx::plan_name(pl); }
  // The candidates timed on the current device (tuner/gpu_timing.hpp); defined in the op's
  // time_<op>.cpp (a GPU build's), so a case without one fails the link.
  static result<std::vector<double>> time_plans(const problem& p, const std::vector<plan>& plans, arch::target t,
                                                const std::string& dtypes);

 private:
  static std::string dtypes_of(ops::gemm_mx::mx_format f, ops::gemm_mx::a_storage a) {
    return ops::gemm_mx::tuning_dtypes<bf16>(ops::gemm_mx::problem{16, 16, 32, f, a, ops::gemm_mx::b_layout::plain});
  }
};
using gemm_mx_case = op_case<ops::gemm_mx::entry>;

// The MoE layer and its weights' form (the dtypes name it; the layer's problem does not hold it).
struct moe_problem {
  ops::moe::problem layer;
  ops::moe::weight_format weights;
};

// The MoE layer: its grouped GEMMs' M tile (decode 16, medium 64, prefill 128 rows), the same for
// every weights' form; the model's choice is over even routing (ops/moe/plan.hpp).
template <>
struct op_case<ops::moe::entry> {
  using problem = moe_problem;
  using plan = ops::moe::config_id;
  static constexpr std::string_view op = ops::moe::tuning_op;

  static std::vector<std::string> layouts() { return {"k_contiguous", "mn_contiguous"}; }
  // bf16 or fp16 activations with each weights' form the target runs (MX on gfx950 only).
  static std::vector<std::string> dtypes(arch::target t) {
    std::vector<std::string> all;
    for (ops::moe::weight_format w : forms(t)) all.push_back(ops::moe::tuning_dtypes<bf16>(w, t));
    for (ops::moe::weight_format w : forms(t)) all.push_back(ops::moe::tuning_dtypes<fp16>(w, t));
    return all;
  }
  static result<problem> make(shape s, std::string_view layout_name, std::string_view dtypes, arch::target t) {
    namespace mo = ops::moe;
    const result<layout> order = detail::parse_order(layout_name);
    if (!order) return order.error();
    if (s.experts < 1 || s.top_k < 1)
      return status{status_code::bad_shape, "moe: --experts and --top-k are required (the routing of the shapes)"};
    const mo::problem layer{
        s.m, s.k, s.n, s.experts, s.top_k, 0, s.local_experts ? s.local_experts : s.experts, order.value()};
    std::optional<mo::weight_format> w;
    for (mo::weight_format f : forms(t))
      if (dtypes == mo::tuning_dtypes<bf16>(f, t) || dtypes == mo::tuning_dtypes<fp16>(f, t)) w = f;
    if (!w) return status{status_code::bad_shape, "moe: no weights' form with dtypes '" + std::string(dtypes) + "'"};
    const result<std::size_t> bytes = mo::workspace_bytes(layer, 2, *w);  // the launch's shape and sort rules
    if (!bytes) return bytes.error();
    return problem{layer, *w};
  }
  static planning::key key(const problem& p, arch::target t, int cus, const std::string& dtypes) {
    return ops::moe::tuning_key(p.layer, t, cus, dtypes);
  }
  static plan model(const problem& p, arch::target t) { return ops::moe::model_config(p.layer, p.weights, t); }
  static std::vector<plan> candidates(const problem&, arch::target) {
    return {std::begin(ops::moe::all_configs), std::end(ops::moe::all_configs)};
  }
  static planning::value value(plan id) { return ops::moe::tuning_value(id); }
  static std::string name(plan id) { return ops::moe::config_name(id); }
  // The candidates timed on the current device (tuner/gpu_timing.hpp); defined in the op's
  // time_<op>.cpp (a GPU build's), so a case without one fails the link.
  static result<std::vector<double>> time_plans(const problem& p, const std::vector<plan>& plans, arch::target t,
                                                const std::string& dtypes);

 private:
  static std::vector<ops::moe::weight_format> forms(arch::target t) {
    using ops::moe::weight_format;
    if (t == arch::target::gfx950)
      return {weight_format::half, weight_format::fp8_blockscale, weight_format::mxfp4, weight_format::mxfp8};
    return {weight_format::half, weight_format::fp8_blockscale};
  }
};
using moe_case = op_case<ops::moe::entry>;

// f(Case{}) for the op named `op`, among the registry's ops with a plan descriptor; false when none
// has that name.
template <class F>
bool with_op_case(std::string_view op, F&& f) {
  bool found = false;
  ops::for_each_op([&](auto entry) {
    using Op = decltype(entry);
    if constexpr (!std::is_void_v<typename Op::descriptor>)
      if (!found && op == op_case<Op>::op) {
        found = true;
        f(op_case<Op>{});
      }
  });
  return found;
}

// The ops the tuner knows, in the registry's order: "gemm_fp8_blockscale, gemm_fp8_scaled, ...".
inline std::string op_names() {
  std::string names;
  ops::for_each_op([&](auto entry) {
    using Op = decltype(entry);
    if constexpr (!std::is_void_v<typename Op::descriptor>)
      names += (names.empty() ? "" : ", ") + std::string(op_case<Op>::op);
  });
  return names;
}

}  // namespace wavekit::tuner

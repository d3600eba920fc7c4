// wavekit's MLA decode attention (DeepSeek's absorbed MLA over a latent KV cache; bf16 or fp8
// queries, bf16 or fp8 cache): plan on the host, then launch with no host synchronisation (the
// launch can be captured in a HIP graph; a captured plan serves any lengths it covers).
//
//   namespace mla = wavekit::ops::mla_decode;
//   mla::problem p{batch, heads, mla::kv_layout::ragged, 1, cache_rows, 0, 1.0f / std::sqrt(576.0f)};
//   mla::sequences_view s{qo_indptr_host, kv_indptr_host, {}, {}};   // host copies of the tables
//   mla::split_plan plan = wavekit::mla_decode_plan(p, s).value();   // checks every rule, splits KV
//   std::size_t ws = mla::workspace_bytes(p, s, plan).value();
//   mla::args a{q, cache, qo_indptr, kv_indptr, nullptr, nullptr, out, lse, workspace, ws};
//   wavekit::status st = wavekit::mla_decode(p, s, a, plan, stream);
//
// Semantics, layouts and the rules: ops/mla_decode/problem.hpp; the plans (the grid of chunks, or
// for 32 rows a sequence or fewer the balanced schedule of resident workers: ops/mla_decode/
// balanced_split.hpp) and the model's choice: ops/mla_decode/plan.hpp, model.hpp; the kernels:
// ops/mla_decode/kernel.hpp. A step's layers share a balanced plan's schedule: every call after
// the first with args::schedule_ready = true.
// Without HIP, ops::mla_decode::supports<KV, Q>(problem, target[, plan]) answers whether the launch runs a problem on a
// target (with that plan), or gives its status (ops/mla_decode/supports.hpp; the README's support matrix is made from
// it). A plan from mla_decode_plan<KV> serves the cache type, heads and device it was made for; a plan written by hand
// ({chunk, splits}) any.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <hip/hip_runtime.h>

#include <string>
#include <type_traits>

#include "wavekit/arch/device.hpp"
#include "wavekit/arch/device_facts.hpp"
#include "wavekit/core/result.hpp"
#include "wavekit/ops/mla_decode/configs.hpp"
#include "wavekit/ops/mla_decode/kernel.hpp"
#include "wavekit/ops/mla_decode/model.hpp"
#include "wavekit/ops/mla_decode/plan.hpp"
#include "wavekit/ops/mla_decode/problem.hpp"
#include "wavekit/ops/mla_decode/supports.hpp"

namespace wavekit {

namespace ops::mla_decode {

inline std::string config_name(config_id id) {
  return with_config(id, [](auto cfg) { return decltype(cfg)::name(); });
}

}  // namespace ops::mla_decode

// The split plan for the current device (its CU count), a cache of KV elements (bf16, fp8 or MXFP4:
// the bytes a split reads) and queries of type Q (bf16 or fp8: over an fp8 cache, the fp8
// products' kernel), after checking the problem and the tables. The plan records the device, the
// cache type and the heads: mla_decode refuses it for another cache type, heads or device
// (plan.hpp).
template <class KV = bf16, class Q = bf16>
result<ops::mla_decode::split_plan> mla_decode_plan(const ops::mla_decode::problem& p,
                                                    const ops::mla_decode::sequences_view& s) {
  static_assert(ops::mla_decode::is_cache_type_v<KV>,
                "mla_decode_plan<KV>: the cache's element type, bf16, fp8_e4m3fnuz, fp8_e4m3fn or fp4x2_e2m1 (MXFP4)");
  namespace m = ops::mla_decode;
  if (status st = m::validate_sequences(p, s); !st.ok()) return st;
  return m::choose_plan(p, s, arch::current_device_arch().kind, m::kv_bits_of<KV>, m::q_bits_of<Q>);
}

// KV: bf16, the device's fp8 format (arch::fp8_of: e4m3fnuz on gfx942, e4m3fn on gfx950) with
// args::kv_scale, or fp4x2_e2m1 (MXFP4, gfx950) with args::kv_block_scales; Q: bf16 or that fp8
// format, with args::q_scale.
template <class KV, class Q>
status mla_decode(const ops::mla_decode::problem& p, const ops::mla_decode::sequences_view& s,
                  const ops::mla_decode::args<KV, Q>& a, const ops::mla_decode::split_plan& plan, hipStream_t stream) {
  namespace m = ops::mla_decode;
  if (status st = m::validate_sequences(p, s); !st.ok()) return st;
  const arch::device_arch& device = arch::current_device_arch();
  if constexpr (std::is_same_v<KV, fp4x2_e2m1>) {
    if (status st = arch::check_device_queried(device, "mla_decode"); !st.ok()) return st;
    if (status st = m::check_cache_type<KV>(p, device.kind); !st.ok()) return st;
  } else if constexpr (!std::is_same_v<KV, bf16>) {
    if (status st = arch::check_device_fp8_format<KV>(device, "mla_decode"); !st.ok()) return st;
  }
  if constexpr (!std::is_same_v<Q, bf16>)
    if (status st = arch::check_device_fp8_format<Q>(device, "mla_decode (argument q)"); !st.ok()) return st;
  if (status st = m::check_plan_device(p, plan, arch::facts_for(device.kind),
                                       std::string(arch::to_string(device.kind)) + " device");
      !st.ok())
    return st;
  return m::with_config(m::choose_config(p, s),
                        [&](auto cfg) { return m::launch<decltype(cfg)>(p, s, a, plan, stream); });
}

}  // namespace wavekit

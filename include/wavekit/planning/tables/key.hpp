// What a tuned table maps (plain C++, no HIP): a key naming a problem class on a device, and the
// plan (config name and K splits) measured fastest for it. Tables of these are text files
// (planning/tables/table_text.hpp); the process merges the shipped ones with the user's (planning/tables/registry.hpp).
//
// The key is exact in everything but M: N and K fix the weights a deployment runs, while M (the
// tokens of a batch) varies call to call, so M is bucketed to the next power of two and one
// measured M serves its neighbours. Each op spells its own dtypes and layout strings
// (ops/<op>/plan.hpp, its plan descriptor); the table only requires them to be plain words.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "wavekit/arch/target.hpp"

namespace wavekit::planning {

// M rounded up to a power of two: 1, 2, 4, ..., 1024, 2048, ...; M 513 to 1024 share bucket 1024,
// 6144 falls in 8192. M < 1 (no legal op problem) is bucket 1. Past 2^30 the bucket is 2^30.
constexpr int m_bucket(int m) {
  int bucket = 1;
  while (bucket < m && bucket < (1 << 30)) bucket *= 2;
  return bucket;
}

struct key {
  std::string op;                            // the op's name: "gemm_fp8_blockscale", "moe"
  arch::target arch = arch::target::gfx942;  // gfx942 or gfx950
  int cus = 0;                 // the device's compute units (MI300X 304, MI355X 256; smaller parts differ)
  std::string dtypes;          // element types as the op spells them ("e4m3fnuz,e4m3fnuz,bf16": A, B, C)
  std::string layout;          // the problem's storage order ("k_contiguous", "mn_contiguous")
  int m_bucket = 1;            // m_bucket(M); MoE: of the tokens
  int n = 0, k = 0;            // exact; MoE: n = expert_dim, k = hidden
  int e_local = 0, top_k = 0;  // MoE: local experts and choices per token; 0 for GEMMs

  auto operator<=>(const key&) const = default;
};

struct value {
  std::string config;  // the op's config name (config_id_name), or a plan name the op defines
  int splits = 1;      // K splits; 1 for ops that do not split K (MoE)

  bool operator==(const value&) const = default;
};

// A GEMM's key: M bucketed, N and K exact, no MoE fields.
inline key gemm_key(std::string op, arch::target t, int cus, std::string dtypes, std::string layout, int m, int n,
                    int k) {
  return {.op = std::move(op),
          .arch = t,
          .cus = cus,
          .dtypes = std::move(dtypes),
          .layout = std::move(layout),
          .m_bucket = m_bucket(m),
          .n = n,
          .k = k};
}

struct entry {
  planning::key key;
  planning::value value;
};

// "gfx942" / "gfx950" as a target; anything else (the host included) is no table target.
inline std::optional<arch::target> parse_target(std::string_view name) {
  if (name == "gfx942") return arch::target::gfx942;
  if (name == "gfx950") return arch::target::gfx950;
  return std::nullopt;
}

// The key as name=value fields ("op=gemm_half arch=gfx942 cus=304 ... top_k=0"): the miss log's
// line and messages that name a key.
inline std::string to_string(const key& k) {
  return "op=" + k.op + " arch=" + arch::to_string(k.arch) + " cus=" + std::to_string(k.cus) + " dtypes=" + k.dtypes +
         " layout=" + k.layout + " m_bucket=" + std::to_string(k.m_bucket) + " n=" + std::to_string(k.n) +
         " k=" + std::to_string(k.k) + " e_local=" + std::to_string(k.e_local) + " top_k=" + std::to_string(k.top_k);
}

// "<config>,<splits>" ("large,4"): how a value reads in the miss log and in messages.
inline std::string to_string(const value& v) { return v.config + "," + std::to_string(v.splits); }

}  // namespace wavekit::planning

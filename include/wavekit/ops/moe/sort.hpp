// MoE token sort, host side (plain C++, no HIP): the layout the grouped GEMMs read, built on the
// device from the routing's expert ids with no host synchronisation (ops/moe/sort_kernel.hpp).
//
// A slot is one (token, choice) pair, s = token * top_k + j. Slots whose expert is local (in
// [expert_begin, expert_begin + local_experts): all of them without expert parallelism) become
// rows of a sorted list, grouped by expert in expert order and, inside an expert, in slot order
// (so the list is the same on every run); each expert's rows are padded to a multiple of the
// grouped GEMM's M tile with padding rows (-1). Outputs:
//   counts[e]         slots of local expert e
//   offsets[e]        its first row; offsets[local_experts] = rows in use (padding included)
//   sorted_slots[r]   the slot of row r, -1 for padding
//   sorted_tokens[r]  its token (slot / top_k), -1 for padding: the row gather of stage 1's A
//   row_index[r]      r, -1 for padding: stage 2 reads only the rows in use
//   tile_expert[i]    the local expert of M tile i, -1 past the last tile in use
//   inverse[s]        the row of slot s, -1 where s's expert is not local
//   invalid_ids[0]    slots whose id is outside [0, experts): they go nowhere (device data is
//                     never read on the host, so this is where a caller finds out)
// Buffer sizes are known on the host from the shapes alone (capacity()): grids of the later
// kernels cover the capacity, and tiles past the ones in use exit at once.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "wavekit/core/status.hpp"

namespace wavekit::ops::moe {

inline constexpr int max_local_experts = 1024;  // LDS counters of the sort's one workgroup
// Ids a token's row holds at most (problem::top_k): a router's top_k (<= 16) and its shared
// experts (<= 16, ops/moe/routing.hpp). Nothing in the sort or the combine needs fewer.
inline constexpr int max_choices = 32;

struct sort_problem {
  int tokens, top_k;
  int experts;                      // ids are in [0, experts)
  int expert_begin, local_experts;  // the experts computed here
  int tile_m;                       // M tile of the grouped GEMMs
  std::string str() const {
    return std::to_string(tokens) + " tokens x top " + std::to_string(top_k) + ", experts [" +
           std::to_string(expert_begin) + ", " + std::to_string(std::int64_t{expert_begin} + local_experts) + ") of " +
           std::to_string(experts) + ", tile " + std::to_string(tile_m);
  }
};

struct sort_capacity {
  int rows;   // sorted rows at most: every slot plus each expert's padding
  int tiles;  // M tiles at most
};

// Each expert with slots pads to a tile: at most tile_m - 1 padding rows per expert that has any.
inline sort_capacity capacity(const sort_problem& p) {
  const long slots = long(p.tokens) * p.top_k;
  const long padded = slots + std::min<long>(p.local_experts, slots) * (p.tile_m - 1);
  const long rows = (padded + p.tile_m - 1) / p.tile_m * p.tile_m;
  return {static_cast<int>(rows), static_cast<int>(rows / p.tile_m)};
}

struct sort_outputs {
  int* counts = nullptr;         // [local_experts]
  int* offsets = nullptr;        // [local_experts + 1]
  int* sorted_slots = nullptr;   // [capacity.rows]
  int* sorted_tokens = nullptr;  // [capacity.rows]
  int* row_index = nullptr;      // [capacity.rows]
  int* tile_expert = nullptr;    // [capacity.tiles]
  int* inverse = nullptr;        // [tokens * top_k]
  int* invalid_ids = nullptr;    // [1]
};

// The rules of the ids a row holds and of the local experts (what: the op and problem, as statuses
// begin). The range's end in 64 bits: an expert_begin near INT_MAX must not wrap into range.
inline status check_expert_ids(text_ref what, int top_k, int experts, int expert_begin, int local_experts) {
  if (top_k < 1 || top_k > max_choices)
    return {status_code::bad_shape, what + "top_k must be in [1, " + std::to_string(max_choices) + "]"};
  if (experts < 1) return {status_code::bad_shape, what + "experts must be >= 1"};
  if (local_experts < 1 || local_experts > max_local_experts)
    return {status_code::bad_shape, what + "local_experts must be in [1, " + std::to_string(max_local_experts) + "]"};
  if (expert_begin < 0 || std::int64_t{expert_begin} + local_experts > experts)
    return {status_code::bad_shape,
            what + "the local experts [expert_begin, expert_begin + local_experts) must lie in [0, experts)"};
  return status::success();
}

inline status validate_sort_shape(const sort_problem& p) {
  const auto what = lazy([&] { return "moe sort " + p.str() + ": "; });
  if (p.tokens < 0) return {status_code::bad_shape, what + "tokens must be >= 0"};
  if (status s = check_expert_ids(what, p.top_k, p.experts, p.expert_begin, p.local_experts); !s.ok()) return s;
  if (p.tile_m < 16 || p.tile_m > 256 || p.tile_m % 16)
    return {status_code::bad_shape, what + "tile_m must be a multiple of 16 in [16, 256]"};
  const long slots = long(p.tokens) * p.top_k;
  if (slots + long(p.local_experts) * p.tile_m > std::numeric_limits<std::int32_t>::max() / 4)
    return {status_code::too_large, what + "the sorted rows exceed 32-bit buffer offsets"};
  return status::success();
}

inline status validate_sort(const sort_problem& p, const int* ids, const sort_outputs& o) {
  if (status s = validate_sort_shape(p); !s.ok()) return s;
  const auto what = lazy([&] { return "moe sort " + p.str() + ": "; });
  return check_pointer_arguments(what, {{"ids", ids, 4, "int32"},
                                        {"counts", o.counts, 4, "int32"},
                                        {"offsets", o.offsets, 4, "int32"},
                                        {"sorted_slots", o.sorted_slots, 4, "int32"},
                                        {"sorted_tokens", o.sorted_tokens, 4, "int32"},
                                        {"row_index", o.row_index, 4, "int32"},
                                        {"tile_expert", o.tile_expert, 4, "int32"},
                                        {"inverse", o.inverse, 4, "int32"},
                                        {"invalid_ids", o.invalid_ids, 4, "int32"}});
}

}  // namespace wavekit::ops::moe

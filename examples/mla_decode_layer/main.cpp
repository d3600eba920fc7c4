// One MLA decode layer, composed from wavekit's ops: a decode step of DeepSeek's attention as
// amd-mla-decode (the 2025 problem, shared/reference/problems.md) defines it, checked against the
// host reference of the whole layer (host/reference_mla_layer.hpp) at the problem's tolerance
// (rtol 2e-2, atol 8e-3), the output and the updated cache both.
//
//   q_lora = x Wq_down^T, kv_lora = x Wkv_down^T          wavekit::gemm_half (bf16)
//   append: cache[b][prefill] = kv_lora                   the problem's cache (rope part as computed)
//           and the attention cache's row: its rope part rotated at its position, as serving
//           engines store it (the absorbed kernel cannot rotate per row)
//   q = q_lora Wq_up^T; per head: q_nope W_UK (W_UK absorbed into the query: 128 -> 512 columns)
//       and q_rope rotated at position prefill            gemm_half, one batched call over the heads
//   attention over the latent rows                        wavekit::mla_decode (bf16 cache, pages
//                                                         of max_seq rows: one per sequence)
//   per head: o_latent W_UV^T (W_UV absorbed after it)    gemm_half, one batched call over the heads
//   y = o Wo^T                                            gemm_half
//
// The per-head GEMMs read and write the heads where they lie ([sequence][head][width] rows): row
// strides and a batch over the heads (core/gemm_view.hpp), no copies between them. Between the ops,
// copies for the cache rows and the RoPE (as the problem's reference computes it, in bf16 steps,
// from the host's table): the glue kernels below. W_UK is transposed once on the host, a weight
// preparation like an engine's at load.
//
//   mla_decode_layer [batch dim q_lora heads prefill max_seq]   default: 4 512 256 16 100 256
//   mla_decode_layer 128 7168 1536 128 512 8192                  the problem's size (on a GPU)
//   mla_decode_layer --help                                      usage and exit codes (examples/common/cli.hpp)
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cli.hpp"
#include "device_memory.hpp"
#include "wavekit/arch/device.hpp"
#include "wavekit/core/float_codec.hpp"
#include "wavekit/core/half_convert.hpp"
#include "wavekit/host/reference_mla_layer.hpp"
#include "wavekit/ops/gemm_half.hpp"
#include "wavekit/ops/mla_decode.hpp"

using namespace wavekit;
namespace mla = wavekit::ops::mla_decode;
namespace gh = wavekit::ops::gemm_half;
using layer = host::mla_layer_config;

namespace {

using example::upload;

// --- glue kernels: bf16 moved as its 16-bit patterns ---

// dst + g * dst_group + r * dst_row [0, width) = the same of src, for r < gridDim.x, g < gridDim.y.
__global__ void copy_rows(const std::uint16_t* src, long src_group, long src_row, std::uint16_t* dst, long dst_group,
                          long dst_row, int width) {
  const long g = blockIdx.y, r = blockIdx.x;
  for (int i = static_cast<int>(threadIdx.x); i < width; i += static_cast<int>(blockDim.x))
    dst[g * dst_group + r * dst_row + i] = src[g * src_group + r * src_row + i];
}

__device__ float from_bits(std::uint16_t b) { return __builtin_bit_cast(float, std::uint32_t{b} << 16); }
__device__ float round_bf16(float x) { return from_bits(half_bits_rne<bf16>(x)); }

// The 64 rope values at src + g * src_group + r * src_row rotated into the same place of dst, at
// position `position` (+ r where per_row): the problem's RoPE, each product and sum rounded to bf16
// (exact in fp32 before the rounding, so these are the host reference's bits). cos, sin:
// [position][32] bf16 (host::mla_rope_table).
__global__ void rotate_rows(const std::uint16_t* src, long src_group, long src_row, std::uint16_t* dst, long dst_group,
                            long dst_row, const std::uint16_t* cos, const std::uint16_t* sin, int position,
                            bool per_row) {
  const long g = blockIdx.y, r = blockIdx.x;
  const int i = static_cast<int>(threadIdx.x), half = layer::rope / 2;  // one thread a pair
  if (i >= half) return;
  const long p = position + (per_row ? r : 0);
  const std::uint16_t* x = src + g * src_group + r * src_row;
  std::uint16_t* out = dst + g * dst_group + r * dst_row;
  const float x1 = from_bits(x[i]), x2 = from_bits(x[i + half]);
  const float c = from_bits(cos[p * half + i]), s = from_bits(sin[p * half + i]);
  out[i] = half_bits_rne<bf16>(round_bf16(x1 * c) - round_bf16(x2 * s));
  out[i + half] = half_bits_rne<bf16>(round_bf16(x2 * c) + round_bf16(x1 * s));
}

template <class U>
U* device_array(std::size_t n) {
  U* d = nullptr;
  hipMalloc(&d, std::max<std::size_t>(n, 1) * sizeof(U));
  return d;
}
std::uint16_t* bits(bf16* p) { return reinterpret_cast<std::uint16_t*>(p); }

// C [m][n] = A [m][k] B [n][k]^T in bf16 (or p's batch of them), through one split-K workspace that
// grows as needed.
struct gemm_runner {
  void* workspace = nullptr;
  std::size_t bytes = 0;
  status operator()(int m, int n, int k, const bf16* a, const bf16* b, bf16* c) {
    return (*this)(gh::problem{m, n, k, layout::k_contiguous}, a, b, c);
  }
  status operator()(const gh::problem& p, const bf16* a, const bf16* b, bf16* c) {
    const result<std::size_t> need = gemm_half_workspace_bytes<gh::args<bf16, bf16>>(p);
    if (!need) return need.error();
    if (need.value() > bytes) {
      hipFree(workspace);
      hipMalloc(&workspace, need.value());
      bytes = need.value();
    }
    return gemm_half(p, gh::args<bf16, bf16>{a, b, c, workspace, bytes}, nullptr);
  }
  ~gemm_runner() { hipFree(workspace); }
};

std::vector<bf16> random_bf16(std::size_t n, float scale, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<bf16> v(n);
  for (bf16& x : v) x = saturate_cast<bf16>(normal(rng) * scale);
  return v;
}
std::vector<float> as_floats(const std::vector<bf16>& v) {
  std::vector<float> f(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) f[i] = widen_to_float(v[i]);
  return f;
}

// The attention's problem: one page of max_seq rows a sequence (the cache is [batch][max_seq]).
mla::problem attention_problem(const layer& c) {
  const float sm_scale = static_cast<float>(1.0 / std::sqrt(double(c.q_head())));
  return {c.batch, c.heads, mla::kv_layout::paged, c.max_seq, c.batch * c.max_seq, /*max_pages=*/1, sm_scale};
}

// The heads' q_nope W_UK: A is q [sequence][head][q_head] (head h's first nope columns), B W_UK^T
// [head][512][nope], C the attention's queries [sequence][head][576] (head h's first 512 columns).
gh::problem absorbed_query_problem(const layer& c) {
  gh::problem p{c.batch, layer::kv_lora, c.nope, layout::k_contiguous};
  const int row = layer::kv_lora + layer::rope;
  p.strides = {.lda = c.heads * c.q_head(), .ldc = c.heads * row};
  p.batch = {c.heads, c.q_head(), layer::kv_lora * c.nope, row};
  return p;
}
// The heads' o_latent W_UV^T: A is the attention's output [sequence][head][512], B head h's W_UV
// rows of kv_up ([head][kv_head][512], rows nope.. of each head), C [sequence][head][v].
gh::problem value_problem(const layer& c) {
  gh::problem p{c.batch, c.v, layer::kv_lora, layout::k_contiguous};
  p.strides = {.lda = c.heads * layer::kv_lora, .ldc = c.heads * c.v};
  p.batch = {c.heads, layer::kv_lora, c.kv_head() * layer::kv_lora, c.v};
  return p;
}

// The ops' own rules for the layer on device t: every GEMM's shape (C [m][n] = A [m][k] B [n][k]^T,
// as run() calls them), then the attention's problem with a bf16 cache.
status layer_supports(const layer& c, arch::target t) {
  const int bs = c.batch, H = c.heads, row = layer::kv_lora + layer::rope;
  const gh::problem gemms[] = {{bs, c.q_lora, c.dim, layout::k_contiguous},           // q_lora = x Wq_down^T
                               {bs, row, c.dim, layout::k_contiguous},                // kv_lora = x Wkv_down^T
                               {bs, H * c.q_head(), c.q_lora, layout::k_contiguous},  // q = q_lora Wq_up^T
                               absorbed_query_problem(c),                             // per head: q_nope W_UK
                               value_problem(c),                                      // per head: o_latent W_UV^T
                               {bs, c.dim, H * c.v, layout::k_contiguous}};           // y = o Wo^T
  for (const gh::problem& p : gemms)
    if (status s = gh::supports(p, t); !s.ok()) return s;
  return mla::supports<bf16>(attention_problem(c), t);
}

// A launch the ops accepted (supports() said yes) that failed: the call and its status, exit 1.
#define WAVEKIT_TRY(call)                                             \
  do {                                                                \
    if (const status st_ = (call); !st_.ok()) {                       \
      std::fprintf(stderr, "%s: %s\n", #call, st_.message().c_str()); \
      return cli::exit_mismatch;                                      \
    }                                                                 \
  } while (0)

int run(const layer& c) {
  const int bs = c.batch, H = c.heads, row = layer::kv_lora + layer::rope, qh = c.q_head(), kvh = c.kv_head();
  std::mt19937 rng(2025);
  // The problem's data: weights randn / sqrt(fan in), x and the prefilled cache rows randn, bf16.
  const std::vector<bf16> x = random_bf16(std::size_t(bs) * c.dim, 1.0f, rng);
  const std::vector<bf16> wq_down = random_bf16(std::size_t(c.q_lora) * c.dim, 1.0f / std::sqrt(float(c.dim)), rng);
  const std::vector<bf16> wkv_down = random_bf16(std::size_t(row) * c.dim, 1.0f / std::sqrt(float(c.dim)), rng);
  const std::vector<bf16> wq_up = random_bf16(std::size_t(H) * qh * c.q_lora, 1.0f / std::sqrt(float(c.q_lora)), rng);
  const std::vector<bf16> wkv_up = random_bf16(std::size_t(H) * kvh * layer::kv_lora, 1.0f / std::sqrt(512.0f), rng);
  const std::vector<bf16> wo = random_bf16(std::size_t(c.dim) * H * c.v, 1.0f / std::sqrt(float(H * c.v)), rng);
  std::vector<bf16> cache(std::size_t(bs) * c.max_seq * row, bf16{});
  {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (int b = 0; b < bs; ++b)
      for (std::size_t i = 0; i < std::size_t(c.prefill) * row; ++i)
        cache[std::size_t(b) * c.max_seq * row + i] = saturate_cast<bf16>(normal(rng));
  }
  // W_UK per head transposed to [512][128] (rows of kv_up: head h's k_nope part is [h * 256, + 128)).
  std::vector<bf16> w_uk_t(std::size_t(H) * layer::kv_lora * c.nope);
  for (int h = 0; h < H; ++h)
    for (int d = 0; d < c.nope; ++d)
      for (int l = 0; l < layer::kv_lora; ++l)
        w_uk_t[(std::size_t(h) * layer::kv_lora + l) * c.nope + d] =
            wkv_up[(std::size_t(h) * kvh + d) * layer::kv_lora + l];
  const host::mla_rope_table table(c.prefill + 1);
  std::vector<bf16> cos_bits(table.cos.size()), sin_bits(table.sin.size());
  for (std::size_t i = 0; i < table.cos.size(); ++i)
    cos_bits[i] = saturate_cast<bf16>(table.cos[i]), sin_bits[i] = saturate_cast<bf16>(table.sin[i]);

  bf16 *d_x = upload(x), *d_wq_down = upload(wq_down), *d_wkv_down = upload(wkv_down), *d_wq_up = upload(wq_up);
  bf16 *d_wkv_up = upload(wkv_up), *d_wo = upload(wo), *d_w_uk_t = upload(w_uk_t), *d_cache = upload(cache);
  bf16 *d_cos = upload(cos_bits), *d_sin = upload(sin_bits);
  bf16* d_att = device_array<bf16>(cache.size());  // the attention cache: rope parts rotated
  bf16 *d_q_lora = device_array<bf16>(std::size_t(bs) * c.q_lora),
       *d_kv_lora = device_array<bf16>(std::size_t(bs) * row);
  bf16 *d_q = device_array<bf16>(std::size_t(bs) * H * qh), *d_q_att = device_array<bf16>(std::size_t(bs) * H * row);
  bf16 *d_o_lat = device_array<bf16>(std::size_t(bs) * H * 512),
       *d_attn = device_array<bf16>(std::size_t(bs) * H * c.v);
  bf16* d_y = device_array<bf16>(std::size_t(bs) * c.dim);
  const long seq = long(c.max_seq) * row;  // a sequence's cache rows
  auto copy = [](dim3 grid, const bf16* src, long sg, long sr, bf16* dst, long dg, long dr, int width) {
    hipLaunchKernelGGL(copy_rows, grid, dim3(64), 0, nullptr, reinterpret_cast<const std::uint16_t*>(src), sg, sr,
                       bits(dst), dg, dr, width);
  };
  auto rotate = [&](dim3 grid, const bf16* src, long sg, long sr, bf16* dst, long dg, long dr, int position,
                    bool per_row) {
    hipLaunchKernelGGL(rotate_rows, grid, dim3(64), 0, nullptr, reinterpret_cast<const std::uint16_t*>(src), sg, sr,
                       bits(dst), dg, dr, reinterpret_cast<const std::uint16_t*>(d_cos),
                       reinterpret_cast<const std::uint16_t*>(d_sin), position, per_row);
  };
  // The attention cache of the prefilled rows, as the engine's prefill would have written it.
  if (c.prefill > 0) {
    copy(dim3(c.prefill, bs), d_cache, seq, row, d_att, seq, row, layer::kv_lora);
    rotate(dim3(c.prefill, bs), d_cache + layer::kv_lora, seq, row, d_att + layer::kv_lora, seq, row, 0, true);
  }

  // The decode step.
  gemm_runner gemm;
  WAVEKIT_TRY(gemm(bs, c.q_lora, c.dim, d_x, d_wq_down, d_q_lora));
  WAVEKIT_TRY(gemm(bs, row, c.dim, d_x, d_wkv_down, d_kv_lora));
  const long at = long(c.prefill) * row;  // the new row of each sequence
  copy(dim3(1, bs), d_kv_lora, row, 0, d_cache + at, seq, 0, row);
  copy(dim3(1, bs), d_kv_lora, row, 0, d_att + at, seq, 0, layer::kv_lora);
  rotate(dim3(1, bs), d_kv_lora + layer::kv_lora, row, 0, d_att + at + layer::kv_lora, seq, 0, c.prefill, false);
  WAVEKIT_TRY(gemm(bs, H * qh, c.q_lora, d_q_lora, d_wq_up, d_q));
  // q_rope rotated into the attention's queries; q_nope W_UK into their first 512 columns, every
  // head in one call.
  rotate(dim3(H, bs), d_q + c.nope, long(H) * qh, qh, d_q_att + layer::kv_lora, long(H) * row, row, c.prefill, false);
  WAVEKIT_TRY(gemm(absorbed_query_problem(c), d_q, d_w_uk_t, d_q_att));

  // Attention: one page of max_seq rows a sequence, prefill + 1 of them in use.
  std::vector<int> qo(bs + 1), lens(bs, c.prefill + 1), pages(bs);
  for (int b = 0; b <= bs; ++b) qo[b] = b;
  for (int b = 0; b < bs; ++b) pages[b] = b;
  const mla::problem p = attention_problem(c);
  const mla::sequences_view s{qo, {}, lens, pages};
  const result<mla::split_plan> plan = mla_decode_plan(p, s);
  if (!plan) return cli::refused(plan.error());
  const std::size_t ws = mla::workspace_bytes(p, s, plan.value()).value();
  void* workspace = ws ? device_array<unsigned char>(ws) : nullptr;
  int *d_qo = upload(qo), *d_lens = upload(lens), *d_pages = upload(pages);
  WAVEKIT_TRY(
      mla_decode(p, s, mla::args<bf16>{d_q_att, d_att, d_qo, nullptr, d_lens, d_pages, d_o_lat, nullptr, workspace, ws},
                 plan.value(), nullptr));

  // W_UV per head: rows [h * kv_head + nope, + v) of kv_up, K-contiguous as they are, every head in one call.
  WAVEKIT_TRY(gemm(value_problem(c), d_o_lat, d_wkv_up + std::size_t(c.nope) * layer::kv_lora, d_attn));
  WAVEKIT_TRY(gemm(bs, c.dim, H * c.v, d_attn, d_wo, d_y));
  if (hipDeviceSynchronize() != hipSuccess) return std::fprintf(stderr, "the device failed\n"), cli::exit_mismatch;

  // The host reference over a few sequences (all of a small batch), and the whole cache.
  std::vector<int> check;
  if (bs <= 4)
    for (int b = 0; b < bs; ++b) check.push_back(b);
  else
    check = {0, bs / 2, bs - 1};
  host::mla_layer_weights w{as_floats(wq_down), as_floats(wkv_down), as_floats(wq_up), as_floats(wkv_up),
                            as_floats(wo)};
  std::vector<float> ref_cache = as_floats(cache);
  const std::vector<float> ref_y = host::reference_mla_layer(c, w, as_floats(x), ref_cache, check);
  std::vector<bf16> y(std::size_t(bs) * c.dim), got_cache(cache.size());
  hipMemcpy(y.data(), d_y, y.size() * 2, hipMemcpyDeviceToHost);
  hipMemcpy(got_cache.data(), d_cache, got_cache.size() * 2, hipMemcpyDeviceToHost);
  const double rtol = 2e-2, atol = 8e-3;
  auto compare = [&](double got, double want, double& worst) {
    const double err = std::fabs(got - want);
    worst = std::max(worst, err / (atol + rtol * std::fabs(want)));
    return err <= atol + rtol * std::fabs(want);
  };
  int bad_y = 0, bad_cache = 0;
  double worst_y = 0, worst_cache = 0;
  for (int b : check)
    for (int i = 0; i < c.dim; ++i)
      bad_y += !compare(widen_to_float(y[std::size_t(b) * c.dim + i]), ref_y[std::size_t(b) * c.dim + i], worst_y);
  for (std::size_t i = 0; i < got_cache.size(); ++i)
    bad_cache += !compare(widen_to_float(got_cache[i]), ref_cache[i], worst_cache);

  std::printf("mla decode layer: batch %d, dim %d, q_lora %d, %d heads, position %d (cache of %d rows)\n", bs, c.dim,
              c.q_lora, H, c.prefill, c.max_seq);
  std::printf("attention: %s, %d splits of %d rows\n", mla::config_name(mla::choose_config(p, s)).c_str(),
              plan.value().splits, plan.value().chunk);
  std::printf("y (%zu sequences checked): largest error %.2f of the tolerance; %d outside\n", check.size(), worst_y,
              bad_y);
  std::printf("cache (%d sequences x %d rows): largest error %.2f of the tolerance; %d outside\n", bs, c.max_seq,
              worst_cache, bad_cache);
  std::printf("%s the problem's tolerance (rtol 2e-2, atol 8e-3)\n",
              bad_y + bad_cache ? "FAILED: not within" : "ok: within");
  for (bf16* d : {d_x, d_wq_down, d_wkv_down, d_wq_up, d_wkv_up, d_wo, d_w_uk_t, d_cache, d_cos, d_sin, d_att, d_q_lora,
                  d_kv_lora, d_q, d_q_att, d_o_lat, d_attn, d_y})
    hipFree(d);
  hipFree(workspace), hipFree(d_qo), hipFree(d_lens), hipFree(d_pages);
  return bad_y + bad_cache ? cli::exit_mismatch : cli::exit_ok;
}

const char* const usage =
    "usage: mla_decode_layer [batch dim q_lora heads prefill max_seq]\n"
    "Runs one decode step of DeepSeek's MLA attention layer (amd-mla-decode) composed from wavekit's ops\n"
    "(gemm_half for the projections, mla_decode for the attention, glue kernels between them) and checks\n"
    "the output and the updated cache against the host reference of the layer (rtol 2e-2, atol 8e-3).\n"
    "  batch     sequences (default 4)\n"
    "  dim       the model's width (default 512; a multiple of 16)\n"
    "  q_lora    the query's low rank (default 256; a multiple of 16)\n"
    "  heads     attention heads, 1 to 128 (default 16)\n"
    "  prefill   rows already in each sequence's cache: the new token's position (default 100; 0 or more)\n"
    "  max_seq   rows of each sequence's cache, more than prefill (default 256)\n"
    "The problem's own size, 128 7168 1536 128 512 8192, is for a GPU.";

}  // namespace

int main(int argc, char** argv) {
  const cli::command_line cmd(argc, argv, "mla_decode_layer", usage);
  if (cmd.help_asked()) return cmd.print_help();
  if (cmd.count() != 0 && cmd.count() != 6) return cmd.wrong_count("none or batch dim q_lora heads prefill max_seq");
  layer c{4, 512, 256, 16, 100, 256};
  if (cmd.count() == 6 && !(cmd.read_int(1, "batch", c.batch) && cmd.read_int(2, "dim", c.dim) &&
                            cmd.read_int(3, "q_lora", c.q_lora) && cmd.read_int(4, "heads", c.heads) &&
                            cmd.read_int(5, "prefill", c.prefill, 0) && cmd.read_int(6, "max_seq", c.max_seq)))
    return cli::exit_usage;
  if (c.prefill >= c.max_seq)
    return cmd.error("argument prefill: " + std::to_string(c.prefill) + " must be below max_seq (" +
                     std::to_string(c.max_seq) + "): the new row goes at position prefill");
  // The ops' own rules for these sizes on this device, before anything is allocated.
  if (status s = layer_supports(c, arch::current_device_arch().kind); !s.ok()) return cli::refused(s);
  return run(c);
}

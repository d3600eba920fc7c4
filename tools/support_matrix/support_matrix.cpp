// The README's support matrix, computed from every op's supports(problem, target): op x element
// types x layout x scales x target, each cell yes or no with the rule that refuses it (the
// launch's own status, shortened to its rule). Each row asks with a representative legal shape of
// the op, so only the types, layouts, scales and the target decide.
//
//   wavekit_support_matrix                    print the Markdown block
//   wavekit_support_matrix --write README.md  replace the block between the markers
//   wavekit_support_matrix --check README.md  exit 1 when the README's block differs
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "wavekit/arch/matrix_formats.hpp"
#include "wavekit/ops/gemm_bias_act/supports.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/supports.hpp"
#include "wavekit/ops/gemm_fp8_direct/supports.hpp"
#include "wavekit/ops/gemm_fp8_scaled/supports.hpp"
#include "wavekit/ops/gemm_half/supports.hpp"
#include "wavekit/ops/gemm_mx/supports.hpp"
#include "wavekit/ops/mla_decode/supports.hpp"
#include "wavekit/ops/moe/supports.hpp"
#include "wavekit/ops/rmsnorm_quant/supports.hpp"
#include "wavekit/ops/swiglu_quant/supports.hpp"

namespace {

using namespace wavekit;
using arch::target;

const char* const begin_marker = "<!-- support-matrix:begin -->";
const char* const end_marker = "<!-- support-matrix:end -->";

struct row {
  std::string op, elements, layout, scales;
  std::function<status(target)> ask;
};

template <class Fp8>
std::string fp8_name() {
  return std::is_same_v<Fp8, fp8_e4m3fnuz> ? "fp8 e4m3fnuz" : "fp8 e4m3fn";
}

// "yes", or "no: <rule>": a status reads "<op> <problem>: <rule>; <why>", the rule is the cell.
std::string cell(const status& s) {
  if (s.ok()) return "yes";
  std::string rule = s.message();
  if (std::size_t colon = rule.find(": "); colon != std::string::npos) rule = rule.substr(colon + 2);
  if (std::size_t semicolon = rule.find("; "); semicolon != std::string::npos) rule = rule.substr(0, semicolon);
  return "no: " + rule;
}

template <class Fp8>
void add_direct(std::vector<row>& rows) {
  namespace gd = ops::gemm_fp8_direct;
  rows.push_back({"gemm_fp8_direct", fp8_name<Fp8>() + " -> fp32", "k_contiguous", "none",
                  [](target t) { return gd::supports<Fp8>({256, 256, 1024}, t); }});
}

template <class Fp8>
void add_blockscale(std::vector<row>& rows) {
  for (layout order : {layout::k_contiguous, layout::mn_contiguous})
    rows.push_back({"gemm_fp8_blockscale", fp8_name<Fp8>() + " -> bf16", to_string(order), "1x128 A, 128x128 B fp32",
                    [order](target t) { return ops::gemm_fp8_blockscale::supports<Fp8>({64, 1536, 7168, order}, t); }});
}

template <class Fp8>
void add_scaled(std::vector<row>& rows) {
  using gran = ops::gemm_fp8_scaled::scale_granularity;
  for (layout order : {layout::k_contiguous, layout::mn_contiguous})
    for (gran g : {gran::tensor, gran::row})
      rows.push_back(
          {"gemm_fp8_scaled", fp8_name<Fp8>() + " -> bf16 / fp16", to_string(order),
           std::string("per ") + (g == gran::tensor ? "tensor" : "row of A / column of C") + " fp32",
           [order, g](target t) { return ops::gemm_fp8_scaled::supports<Fp8>({512, 4096, 4096, order, g, g}, t); }});
}

template <class Fp8>
void add_bias_act_fp8(std::vector<row>& rows, layout order) {
  rows.push_back({"gemm_bias_act", "bf16 / fp16 -> " + fp8_name<Fp8>() + ", + bias, activation", to_string(order),
                  "C per tensor fp32", [order](target t) {
                    return ops::gemm_bias_act::supports<Fp8>({{512, 4096, 4096, order}, activation::gelu_tanh}, t);
                  }});
}

std::vector<row> gemm_rows() {
  std::vector<row> rows;
  add_direct<fp8_e4m3fnuz>(rows), add_direct<fp8_e4m3fn>(rows);
  add_blockscale<fp8_e4m3fnuz>(rows), add_blockscale<fp8_e4m3fn>(rows);
  add_scaled<fp8_e4m3fnuz>(rows), add_scaled<fp8_e4m3fn>(rows);
  for (layout order : {layout::k_contiguous, layout::mn_contiguous})
    rows.push_back({"gemm_half", "bf16 / fp16 -> bf16 / fp16 / fp32", to_string(order), "none",
                    [order](target t) { return ops::gemm_half::supports({512, 4096, 4096, order}, t); }});
  for (layout order : {layout::k_contiguous, layout::mn_contiguous}) {
    rows.push_back({"gemm_bias_act", "bf16 / fp16 -> bf16 / fp16 / fp32, + bias, activation", to_string(order), "none",
                    [order](target t) {
                      return ops::gemm_bias_act::supports<bf16>({{512, 4096, 4096, order}, activation::gelu_tanh}, t);
                    }});
    add_bias_act_fp8<fp8_e4m3fnuz>(rows, order), add_bias_act_fp8<fp8_e4m3fn>(rows, order);
  }
  namespace gx = ops::gemm_mx;
  struct mx_form {
    gx::mx_format format;
    gx::a_storage a;
    gx::b_layout b;
    const char *elements, *layout;
  };
  for (const mx_form& f : {
           mx_form{gx::mx_format::mxfp8, gx::a_storage::mx, gx::b_layout::plain, "MXFP8 -> bf16 / fp16",
                   "k_contiguous"},
           mx_form{gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::plain, "MXFP4 -> bf16 / fp16",
                   "k_contiguous"},
           mx_form{gx::mx_format::mxfp4, gx::a_storage::mx, gx::b_layout::preshuffled, "MXFP4 -> bf16 / fp16",
                   "k_contiguous, B pre-shuffled"},
           mx_form{gx::mx_format::mxfp4, gx::a_storage::bf16, gx::b_layout::plain,
                   "A bf16 / fp16 quantized to MXFP4, B MXFP4", "k_contiguous"},
           mx_form{gx::mx_format::mxfp4, gx::a_storage::bf16, gx::b_layout::preshuffled,
                   "A bf16 / fp16 quantized to MXFP4, B MXFP4", "k_contiguous, B pre-shuffled"},
       })
    rows.push_back({"gemm_mx", f.elements, f.layout, "e8m0 per 32 K",
                    [f](target t) { return gx::supports({256, 4096, 4096, f.format, f.a, f.b}, t); }});
  return rows;
}

std::vector<row> layer_rows() {
  std::vector<row> rows;
  namespace moe = ops::moe;
  auto layer = [](layout order) { return moe::problem{64, 7168, 256, 257, 9, 0, 257, order}; };
  for (layout order : {layout::k_contiguous, layout::mn_contiguous})
    rows.push_back({"moe", "bf16 / fp16 weights", to_string(order), "none",
                    [=](target t) { return moe::supports<moe::args<bf16>>(layer(order), t); }});
  for (layout order : {layout::k_contiguous, layout::mn_contiguous}) {
    rows.push_back({"moe", "fp8 e4m3fnuz weights", to_string(order), "128x128 fp32 (activations 1x128)", [=](target t) {
                      return moe::supports<moe::blockscale_args<bf16, fp8_e4m3fnuz>>(layer(order), t);
                    }});
    rows.push_back({"moe", "fp8 e4m3fn weights", to_string(order), "128x128 fp32 (activations 1x128)",
                    [=](target t) { return moe::supports<moe::blockscale_args<bf16, fp8_e4m3fn>>(layer(order), t); }});
  }
  for (layout order : {layout::k_contiguous, layout::mn_contiguous}) {
    rows.push_back({"moe", "MXFP4 weights", to_string(order), "e8m0 per 32 K",
                    [=](target t) { return moe::supports<moe::mxfp4_args<bf16>>(layer(order), t); }});
    rows.push_back({"moe", "MXFP8 weights", to_string(order), "e8m0 per 32 K",
                    [=](target t) { return moe::supports<moe::mxfp8_args<bf16>>(layer(order), t); }});
  }
  rows.push_back({"moe", "MXFP4 weights", "k_contiguous, pre-shuffled", "e8m0 per 32 K", [=](target t) {
                    return moe::supports<moe::mxfp4_args<bf16>>(layer(layout::k_contiguous), t,
                                                                moe::b_layout::preshuffled);
                  }});
  rows.push_back({"moe", "MXFP8 weights", "k_contiguous, pre-shuffled", "e8m0 per 32 K", [=](target t) {
                    return moe::supports<moe::mxfp8_args<bf16>>(layer(layout::k_contiguous), t,
                                                                moe::b_layout::preshuffled);
                  }});
  // Stored as aiter stores them (mx_args' pads and declared sizes): an expert dim of 320 in
  // tensors padded to 512.
  rows.push_back(
      {"moe", "MXFP4 weights", "k_contiguous, pre-shuffled, padded (aiter's)", "e8m0 per 32 K", [=](target t) {
         const moe::problem p{64, 7168, 320, 257, 9, 0, 257, layout::k_contiguous};
         moe::mxfp4_args<bf16> a;
         a.weight_layout = moe::b_layout::preshuffled, a.hidden_pad = 7168, a.expert_dim_pad = 512;
         a.gate_bytes = a.up_bytes = moe::mx_weight_bytes<fp4_e2m1>(512, 7168);
         a.down_bytes = moe::mx_weight_bytes<fp4_e2m1>(7168, 512);
         a.gate_scale_bytes = a.up_scale_bytes = moe::mx_scale_bytes(512, 7168, moe::b_layout::preshuffled);
         a.down_scale_bytes = moe::mx_scale_bytes(7168, 512, moe::b_layout::preshuffled);
         return moe::supports(p, a, t);
       }});

  // The batched expert-parallel layout (moe_batched): DeepSeek-V3's experts, 8 of them local.
  auto batched = [](layout order) { return moe::batched_problem{8, 128, 7168, 2048, order}; };
  for (layout order : {layout::k_contiguous, layout::mn_contiguous}) {
    rows.push_back({"moe_batched", "bf16 / fp16 weights", to_string(order), "none",
                    [=](target t) { return moe::supports<moe::batched_args<bf16>>(batched(order), t); }});
    rows.push_back(
        {"moe_batched", "fp8 e4m3fnuz weights", to_string(order), "128x128 fp32 (activations 1x128)",
         [=](target t) { return moe::supports<moe::batched_blockscale_args<bf16, fp8_e4m3fnuz>>(batched(order), t); }});
    rows.push_back(
        {"moe_batched", "fp8 e4m3fn weights", to_string(order), "128x128 fp32 (activations 1x128)",
         [=](target t) { return moe::supports<moe::batched_blockscale_args<bf16, fp8_e4m3fn>>(batched(order), t); }});
  }
  // Routing (moe_route): a softmax top-k, and DeepSeek-V3's grouped sigmoid; logits in rows padded
  // to a router GEMM's N tile (logits_stride) as well as packed.
  rows.push_back({"moe_route", "fp32 / bf16 / fp16 logits, softmax top-k", "[tokens][experts], rows packed or padded",
                  "none", [](target t) { return moe::supports({64, 120, 8, 128}, moe::softmax_topk{}, t); }});
  rows.push_back({"moe_route", "fp32 / bf16 / fp16 logits, grouped sigmoid top-k",
                  "[tokens][experts], rows packed or padded", "none",
                  [](target t) { return moe::supports({64, 256, 8}, moe::grouped_sigmoid_topk{8, 4}, t); }});

  namespace mla = ops::mla_decode;
  for (mla::kv_layout kv : {mla::kv_layout::ragged, mla::kv_layout::paged}) {
    const mla::problem p = kv == mla::kv_layout::ragged ? mla::problem{4, 128, kv, 1, 8192, 0, 0.0417f}
                                                        : mla::problem{4, 128, kv, 64, 8192, 32, 0.0417f};
    const std::string cache = std::string(mla::to_string(kv)) + " cache";
    rows.push_back(
        {"mla_decode", "bf16 q and cache", cache, "none", [=](target t) { return mla::supports<bf16>(p, t); }});
    rows.push_back({"mla_decode", "fp8 e4m3fnuz q and cache", cache, "per tensor fp32",
                    [=](target t) { return mla::supports<fp8_e4m3fnuz>(p, t); }});
    rows.push_back({"mla_decode", "fp8 e4m3fn q and cache", cache, "per tensor fp32",
                    [=](target t) { return mla::supports<fp8_e4m3fn>(p, t); }});
    rows.push_back({"mla_decode", "bf16 q, MXFP4 cache", cache, "e8m0 per 32 (scale table)",
                    [=](target t) { return mla::supports<fp4x2_e2m1>(p, t); }});
  }
  return rows;
}

template <class Fp8>
void add_rmsnorm(std::vector<row>& rows) {
  for (scale_granularity s : {scale_granularity::tensor, scale_granularity::group_1x128})
    for (layout order : {layout::k_contiguous, layout::mn_contiguous}) {
      const std::string scales = s == scale_granularity::tensor ? "per tensor fp32" : "1x128 fp32";
      rows.push_back({"rmsnorm_quant", "bf16 / fp16 -> " + fp8_name<Fp8>(), to_string(order), scales, [=](target t) {
                        namespace rq = ops::rmsnorm_quant;
                        return rq::supports<Fp8>({64, 7168, s, order, rq::residual_mode::add}, t);
                      }});
    }
}

template <class Fp8>
void add_swiglu(std::vector<row>& rows) {
  for (scale_granularity s : {scale_granularity::tensor, scale_granularity::group_1x128})
    for (layout order : {layout::k_contiguous, layout::mn_contiguous}) {
      const std::string scales = s == scale_granularity::tensor ? "per tensor fp32" : "1x128 fp32";
      rows.push_back({"swiglu_quant", "bf16 / fp16 -> " + fp8_name<Fp8>(), to_string(order), scales,
                      [=](target t) { return ops::swiglu_quant::supports<Fp8>({64, 2048, s, order}, t); }});
    }
}

std::string table() {
  std::vector<row> rows = gemm_rows();
  for (row& r : layer_rows()) rows.push_back(std::move(r));
  add_rmsnorm<fp8_e4m3fnuz>(rows), add_rmsnorm<fp8_e4m3fn>(rows);
  add_swiglu<fp8_e4m3fnuz>(rows), add_swiglu<fp8_e4m3fn>(rows);
  std::ostringstream out;
  out << begin_marker << "\n"
      << "<!-- Generated by tools/support_matrix from each op's supports(); regenerate with\n"
      << "     cmake --build --preset ci --target support_matrix -->\n\n"
      << "| op | element types | layout | scales | gfx942 | gfx950 |\n"
      << "|---|---|---|---|---|---|\n";
  for (const row& r : rows)
    out << "| `" << r.op << "` | " << r.elements << " | " << r.layout << " | " << r.scales << " | "
        << cell(r.ask(target::gfx942)) << " | " << cell(r.ask(target::gfx950)) << " |\n";
  out << "\n" << end_marker;
  return out.str();
}

bool read_file(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  text = s.str();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string generated = table();
  if (argc == 1) {
    std::printf("%s\n", generated.c_str());
    return 0;
  }
  const std::string mode = argv[1];
  if (argc != 3 || (mode != "--write" && mode != "--check")) {
    std::fprintf(stderr, "usage: %s [--write|--check README.md]\n", argv[0]);
    return 2;
  }
  const std::string path = argv[2];
  std::string readme;
  if (!read_file(path, readme)) {
    std::fprintf(stderr, "support_matrix: cannot read %s\n", path.c_str());
    return 2;
  }
  const std::size_t begin = readme.find(begin_marker), end = readme.find(end_marker);
  if (begin == std::string::npos || end == std::string::npos || end < begin) {
    std::fprintf(stderr, "support_matrix: %s lacks the markers %s ... %s\n", path.c_str(), begin_marker, end_marker);
    return 2;
  }
  const std::size_t stop = end + std::string(end_marker).size();
  const std::string current = readme.substr(begin, stop - begin);
  if (mode == "--check") {
    if (current == generated) return 0;
    std::fprintf(stderr,
                 "support_matrix: the support matrix in %s is stale (an op's supports() changed).\n"
                 "Regenerate it with:\n  cmake --build --preset ci --target support_matrix\n",
                 path.c_str());
    return 1;
  }
  if (current == generated) return 0;
  std::ofstream out(path, std::ios::binary);
  out << readme.substr(0, begin) << generated << readme.substr(stop);
  return out ? 0 : 2;
}

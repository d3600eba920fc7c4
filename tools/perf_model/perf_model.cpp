// The performance model over every modelled op's benchmark shapes, as JSON for the report
// (tools/perf_report.py): per shape the plan the op's dispatch chooses, the model's time with its
// calibrated interval and its terms (include/wavekit/planning/model/launch_time.hpp), the codegen figures of
// the plan's kernel, and the peers' published times for the same problem
// (shared/reference/problems.md, docs/performance-model.md names each source). Also the
// calibration: the published code-and-time pairs (published_pairs.hpp), the fitted parameters and
// the error on the held-out pairs.
//
//   wavekit_perf_model                          the JSON above
//   wavekit_perf_model --calibrate --out F      fit, and write the fit as planning/model/calibration.hpp
//   wavekit_perf_model --calibrate --check F    fail if F is not what the fit gives
//   wavekit_perf_model --profile ROW --launch DESC [--profile ROW --launch DESC ...]
//       predict the launches of any kernel from its profile row (tools/codegen_report.py profile
//       prints one for any .s) and launch descriptions (profile_text.hpp); --profile none: a launch
//       without codegen figures
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perf_model/calibrate.hpp"
#include "perf_model/profile_text.hpp"
#include "perf_model/report_config_names.hpp"
#include "support/moe_routing_ids.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/model.hpp"
#include "wavekit/ops/gemm_fp8_blockscale/plan.hpp"
#include "wavekit/ops/gemm_fp8_direct/model.hpp"
#include "wavekit/ops/gemm_fp8_scaled/plan.hpp"
#include "wavekit/ops/gemm_half/plan.hpp"
#include "wavekit/ops/gemm_mx/plan.hpp"
#include "wavekit/ops/mla_decode/model.hpp"
#include "wavekit/ops/moe/plan.hpp"
#include "wavekit/ops/registry.hpp"
#include "wavekit/ops/rmsnorm_quant/model.hpp"
#include "wavekit/ops/swiglu_quant/model.hpp"
#include "wavekit/planning/instances.hpp"
#include "wavekit/planning/model/launch_time.hpp"

namespace {

using wavekit::arch::target;
namespace planning = wavekit::planning;

struct peer {
  std::string who;  // "RadeonFlow (seed)", "aiter", "hf-rocm-kernels"
  double us;
};

// The benchmark that measures a row on a GPU, which tools/perf_report.py --measured joins the
// benchmark's JSON output on: the bench/ binary (as the `gpu` preset builds it; where a bench is
// also built for gfx950 on the emulator, that binary is `<binary>_gfx950`) and the Google
// Benchmark instance's name as --benchmark_list_tests prints it, less the run-mode suffix that
// the build appends (`/manual_time` on a GPU, `/iterations:1` on the emulator). Rows that no
// benchmark measures leave it empty. The test `lint: performance report rows name existing
// benchmarks` looks each one up in the binary's list.
struct bench_ref {
  std::string binary, name;
};

// The instance name Google Benchmark gives `family` over named arguments (ArgNames):
// family/name:value/...
bench_ref bench(std::string binary, std::string family, std::initializer_list<std::pair<const char*, long long>> args) {
  for (const auto& [name, value] : args) family += "/" + std::string(name) + ":" + std::to_string(value);
  return {std::move(binary), std::move(family)};
}

// A row's compute roof: the dense peak of the rate its flops run at, and that rate's dtype as the
// report's plots name it; none (no dtype, 0 TFLOPS) where the report draws a row under no roof.
struct roof {
  const char* dtype = nullptr;
  double tflops = 0;
};

struct row {
  row(std::string_view op_, std::string arch_, std::string shape_, std::string config_, std::string kind_)
      : op(op_), arch(std::move(arch_)), shape(std::move(shape_)), config(std::move(config_)), kind(std::move(kind_)) {}
  std::string op, arch, shape, config, kind;  // kind: "compute" (TFLOPS) or "memory" (GB/s)
  double flops = 0, ideal_bytes = 0;
  planning::op_time time;
  std::vector<peer> peers;
  bench_ref bench;
};

std::string num(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}
std::string str(const std::string& s) { return "\"" + s + "\""; }

// The physical limit of a row: its flops at the dense peak of its rate and its ideal bytes at HBM
// peak, whichever is longer.
double limit_us(const row& r, double peak_tflops, target t) {
  const auto d = wavekit::arch::facts_for(t);
  return std::max(peak_tflops > 0 ? r.flops / (peak_tflops * 1e6) : 0.0, r.ideal_bytes / (d.hbm_tb_per_s * 1e6));
}

std::string json(const row& r, roof peak, target t) {
  const planning::kernel_profile* p = r.time.work.empty() ? nullptr : r.time.work.front().profile;
  const planning::interval band = planning::prediction_interval(r.time.us);
  std::string s = "{\"op\": " + str(r.op) + ", \"arch\": " + str(r.arch) + ", \"shape\": " + str(r.shape) +
                  ", \"config\": " + str(r.config) + ", \"kind\": " + str(r.kind) + ", \"us\": " + num(r.time.us) +
                  ", \"low_us\": " + num(band.low_us) + ", \"high_us\": " + num(band.high_us) +
                  ", \"flops\": " + num(r.flops) + ", \"ideal_bytes\": " + num(r.ideal_bytes) +
                  ", \"dram_bytes\": " + num(r.time.dram_bytes()) +
                  ", \"limit_us\": " + num(limit_us(r, peak.tflops, t)) + ", \"peak_tflops\": " + num(peak.tflops);
  if (peak.dtype) s += ", \"roof\": " + str(peak.dtype);
  if (p)
    s += ", \"vgpr\": " + num(p->vgpr) + ", \"agpr\": " + num(p->agpr) + ", \"lds\": " + num(p->lds_bytes) +
         ", \"occupancy\": " + num(p->occupancy) + ", \"mfma_share\": " + num(p->mfma_share()) +
         ", \"kernel\": " + str(std::string(p->kernel));
  s += ", \"launches\": [";
  for (std::size_t i = 0; i < r.time.launches.size(); ++i) {
    const auto& l = r.time.launches[i];
    const auto& w = r.time.work[i];
    s += std::string(i ? ", " : "") + "{\"what\": " + str(w.what) + ", \"us\": " + num(l.us) +
         ", \"bound\": " + str(l.bound) + ", \"workgroups\": " + num(w.workgroups) + ", \"rounds\": " + num(l.rounds) +
         ", \"matrix_us\": " + num(l.matrix_us) + ", \"issue_us\": " + num(l.issue_us) +
         ", \"lds_us\": " + num(l.lds_us) + ", \"l1_us\": " + num(l.l1_us) + ", \"dram_us\": " + num(l.dram_us) +
         ", \"l2_us\": " + num(l.l2_us) + ", \"latency_us\": " + num(l.latency_us) +
         ", \"exposed_lds_us\": " + num(l.exposed_lds_us) + ", \"fabric_us\": " + num(l.fabric_us) +
         ", \"clock_ghz\": " + num(l.clock_ghz) + ", \"loaded_bytes\": " + num(w.loaded_bytes) + "}";
  }
  s += "], \"peers\": [";
  for (std::size_t i = 0; i < r.peers.size(); ++i)
    s += std::string(i ? ", " : "") + "{\"who\": " + str(r.peers[i].who) + ", \"us\": " + num(r.peers[i].us) + "}";
  s += "]";
  if (!r.bench.binary.empty())
    s += ", \"bench\": {\"binary\": " + str(r.bench.binary) + ", \"name\": " + str(r.bench.name) + "}";
  return s + "}";
}

std::string mnk(int m, int n, int k) { return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k); }

// Each op's rows of the report: one specialisation below for every registry entry with a report
// title (ops/registry.hpp), which main() runs in the registry's order.
template <class Op>
void model_rows(std::vector<std::string>&) {
  static_assert(wavekit::dependent_false<Op>,
                "perf_model: an op with a report_title needs its model_rows<entry> in tools/perf_model/perf_model.cpp");
}

// amd-fp8-mm's 18 benchmark shapes (docs/gemm-fp8-blockscale.md).
constexpr std::array<std::array<int, 3>, 18> amd_fp8_mm_shapes{{{1024, 1536, 7168},
                                                                {1024, 3072, 1536},
                                                                {1024, 576, 7168},
                                                                {1024, 7168, 256},
                                                                {1024, 7168, 2048},
                                                                {1024, 4608, 7168},
                                                                {1024, 7168, 2304},
                                                                {1024, 512, 7168},
                                                                {1024, 4096, 512},
                                                                {6144, 1536, 7168},
                                                                {6144, 3072, 1536},
                                                                {6144, 576, 7168},
                                                                {6144, 7168, 256},
                                                                {6144, 7168, 2048},
                                                                {6144, 4608, 7168},
                                                                {6144, 7168, 2304},
                                                                {6144, 512, 7168},
                                                                {6144, 4096, 512}}};

template <>
void model_rows<wavekit::ops::gemm_fp8_blockscale::entry>(std::vector<std::string>& out) {
  namespace bs = wavekit::ops::gemm_fp8_blockscale;
  // The 18 amd-fp8-mm shapes (its mn_contiguous order); RadeonFlow's published times for 0-5
  // (problems.md 1, transposes and split-K reduce included), aiter's tuned CK kernel times at
  // M = 1024 (its K-contiguous order, kernel only).
  const double seed[] = {76.33, 42.78, 45.14, 20.37, 75.29, 136.35};
  const double aiter1024[] = {51.33, 23.73, 26.36, 14.80, 58.87, 118.32, 61.10, 26.31, 15.32};
  for (target t : {target::gfx942, target::gfx950}) {
    const roof peak{"fp8", wavekit::arch::facts_for(t).fp8_dense_tflops};
    int i = 0;
    for (const auto& [m, n, k] : amd_fp8_mm_shapes) {
      const bs::problem p{m, n, k, wavekit::layout::mn_contiguous};
      const bs::plan pl = bs::choose_plan(p, ~std::size_t{0}, t);
      row r{bs::entry::name, to_string(t), mnk(m, n, k) + " mn", bs::plan_name(pl), "compute"};
      r.flops = 2.0 * m * n * k;
      r.ideal_bytes = double(m) * k + double(n) * k + 2.0 * m * n;
      r.time = bs::model_time(p, pl, t);
      r.bench = bench("bench_gemm_fp8_blockscale", "blockscale", {{"M", m}, {"N", n}, {"K", k}});
      if (t == target::gfx942 && i < 6) r.peers.push_back({"RadeonFlow (seed)", seed[i]});
      if (t == target::gfx942 && i < 9) r.peers.push_back({"aiter CK (K-contiguous)", aiter1024[i]});
      out.push_back(json(r, peak, t));
      ++i;
    }
  }
}

template <>
void model_rows<wavekit::ops::gemm_fp8_scaled::entry>(std::vector<std::string>& out) {
  namespace gs = wavekit::ops::gemm_fp8_scaled;
  // hf-rocm-kernels' skinny GEMM (SkG) times on MI300X, Llama 405B TP8 shapes (N x K), M 1 8 16 32.
  struct shape {
    int n, k;
    double us[4];
  } const shapes[] = {{2304, 16384, {11.69, 12.34, 13.91, 17.02}},
                      {13312, 16384, {54.72, 58.36, 59.97, 69.48}},
                      {16384, 6656, {27.61, 28.13, 30.23, 35.05}}};
  const int ms[] = {1, 8, 16, 32};
  for (target t : {target::gfx942, target::gfx950}) {
    const roof peak{"fp8", wavekit::arch::facts_for(t).fp8_dense_tflops};
    for (const shape& s : shapes)
      for (int i = 0; i < 4; ++i) {
        const gs::problem p{ms[i],
                            s.n,
                            s.k,
                            wavekit::layout::k_contiguous,
                            gs::scale_granularity::tensor,
                            gs::scale_granularity::tensor};
        const gs::plan pl = gs::choose_plan(p, ~std::size_t{0}, t);
        row r{gs::entry::name, to_string(t), mnk(ms[i], s.n, s.k) + " k", gs::plan_name(pl), "memory"};
        r.flops = 2.0 * ms[i] * s.n * s.k;
        r.ideal_bytes = gs::ideal_bytes(p);
        r.time = gs::model_time(p, pl, t);
        r.bench = bench("bench_gemm_fp8_skinny", "llama405b_tp8", {{"m", ms[i]}, {"n", s.n}, {"k", s.k}});
        if (t == target::gfx942) r.peers.push_back({"hf-rocm-kernels SkG", s.us[i]});
        out.push_back(json(r, peak, t));
      }
  }
}

template <>
void model_rows<wavekit::ops::gemm_mx::entry>(std::vector<std::string>& out) {
  namespace gx = wavekit::ops::gemm_mx;
  // amd-mxfp4-mm's benchmark shapes in its form (bf16 A quantized in the kernel, B pre-shuffled)
  // and the aiter times of its task (problems.md 3).
  struct shape {
    int m, n, k;
    double aiter;
  } const shapes[] = {{4, 2880, 512, 8.198},  {16, 2112, 7168, 20.873}, {32, 4096, 512, 9.462},
                      {32, 2880, 512, 9.173}, {64, 7168, 2048, 12.738}, {256, 3072, 1536, 12.219}};
  const target t = target::gfx950;
  const roof peak{"mxfp4", wavekit::arch::facts_for(t).fp4_dense_tflops};
  for (const shape& s : shapes) {
    const gx::problem p{s.m, s.n, s.k, gx::mx_format::mxfp4, gx::a_storage::bf16, gx::b_layout::preshuffled};
    const gx::plan pl = gx::choose_plan(p, ~std::size_t{0});
    row r{gx::entry::name, to_string(t), mnk(s.m, s.n, s.k) + " mxfp4", gx::plan_name(pl), "compute"};
    r.flops = 2.0 * s.m * s.n * s.k;
    r.ideal_bytes = 2.0 * s.m * s.k + (0.5 + 1.0 / 32) * double(s.n) * s.k + 2.0 * s.m * s.n;
    r.time = gx::model_time(p, pl);
    r.bench = bench("bench_gemm_mx", "mxfp4_gemm",
                    {{"m", s.m}, {"n", s.n}, {"k", s.k}, {"aiter_ns", std::llround(s.aiter * 1000)}});
    r.peers.push_back({"aiter (amd-mxfp4-mm task)", s.aiter});
    out.push_back(json(r, peak, t));
  }
}

template <>
void model_rows<wavekit::ops::gemm_half::entry>(std::vector<std::string>& out) {
  namespace gh = wavekit::ops::gemm_half;
  // DeepSeek-V3 projection shapes in bf16 at decode and prefill sizes (no published peer times;
  // no benchmark either: bench/ has no gemm_half binary yet).
  const int shapes[][3] = {{16, 7168, 2048}, {128, 2112, 7168}, {1024, 7168, 2048}, {4096, 4608, 7168}};
  for (target t : {target::gfx942, target::gfx950}) {
    const roof peak{"bf16/fp16", wavekit::arch::facts_for(t).bf16_dense_tflops};
    for (const auto& s : shapes) {
      const gh::problem p{s[0], s[1], s[2], wavekit::layout::k_contiguous};
      const gh::plan pl = gh::choose_plan(p, ~std::size_t{0}, t);
      row r{gh::entry::name, to_string(t), mnk(s[0], s[1], s[2]) + " k", gh::plan_name(pl), "compute"};
      r.flops = 2.0 * s[0] * s[1] * s[2];
      r.ideal_bytes = 2.0 * (double(s[0]) * s[2] + double(s[1]) * s[2] + double(s[0]) * s[1]);
      r.time = gh::model_time(p, pl, t);
      out.push_back(json(r, peak, t));
    }
  }
}

// hf-rocm-kernels' MI300X times, rows x 16384 fp16, per-tensor fp8 (their blog's tables). For
// SwiGLU the 16384 columns are read as the input [gate | up], d = 8192 (docs/performance-model.md).
template <>
void model_rows<wavekit::ops::rmsnorm_quant::entry>(std::vector<std::string>& out) {
  namespace rq = wavekit::ops::rmsnorm_quant;
  const int rows[] = {1, 8, 32, 64, 128, 256, 512, 1024, 2048};
  const double norm_us[] = {4.18, 4.39, 4.72, 5.54, 6.27, 10.74, 18.55, 34.72, 73.35};
  for (target t : {target::gfx942, target::gfx950})
    for (int i = 0; i < 9; ++i) {
      const rq::problem p{rows[i], 16384, wavekit::scale_granularity::tensor, wavekit::layout::k_contiguous,
                          rq::residual_mode::add};
      row r{rq::entry::name, to_string(t), std::to_string(rows[i]) + "x16384 fp16",
            wavekit::perf_report::row_workgroup_config(rq::row_threads), "memory"};
      r.ideal_bytes = double(rows[i]) * 16384 * (2 + 2 + 2 + 1) + 2 * 16384;
      r.time = rq::model_time(p, t);
      r.bench = bench("bench_glue", "rmsnorm_quant", {{"tokens", rows[i]}, {"hidden", 16384}, {"1x128", 0}});
      if (t == target::gfx942) r.peers.push_back({"hf-rocm-kernels", norm_us[i]});
      out.push_back(json(r, {}, t));
    }
}

template <>
void model_rows<wavekit::ops::swiglu_quant::entry>(std::vector<std::string>& out) {
  namespace sq = wavekit::ops::swiglu_quant;
  const int swiglu_rows[] = {1, 16, 64, 128, 256, 512, 1024, 2048};
  const double swiglu_us[] = {1.93, 2.00, 2.04, 2.62, 3.58, 5.48, 10.05, 19.90};
  for (target t : {target::gfx942, target::gfx950})
    for (int i = 0; i < 8; ++i) {
      const sq::problem p{swiglu_rows[i], 8192, wavekit::scale_granularity::tensor, wavekit::layout::k_contiguous};
      row r{sq::entry::name, to_string(t), std::to_string(swiglu_rows[i]) + "x8192 fp16",
            wavekit::perf_report::row_workgroup_config(sq::row_threads), "memory"};
      r.ideal_bytes = double(swiglu_rows[i]) * 8192 * (4 + 1);
      r.time = sq::model_time(p, t);
      r.bench = bench("bench_glue", "swiglu_quant", {{"tokens", swiglu_rows[i]}, {"d", 8192}, {"1x128", 0}});
      if (t == target::gfx942) r.peers.push_back({"hf-rocm-kernels", swiglu_us[i]});
      out.push_back(json(r, {}, t));
    }
}

template <>
void model_rows<wavekit::ops::mla_decode::entry>(std::vector<std::string>& out) {
  namespace md = wavekit::ops::mla_decode;
  // Decode (one query row a sequence) over a ragged cache, equal lengths. Peers: aiter PR 2039's
  // HipKittens times at 128 heads (MI300, MI355; cache type not stated, modelled bf16), PR 3003's
  // at 32 heads (MI35x), and amd-mixed-mla's README reference latencies (16 heads, fp8 cache; the
  // problem hands every submission its cache in bf16, fp8 and MXFP4 too, so the MXFP4 rows read the
  // form a submission may choose, against the same reference).
  struct shape {
    int batch, heads, kv, kv_bits;
    target t;
    const char* who;
    double us;
  } const shapes[] = {
      {1, 128, 21, 16, target::gfx942, "aiter PR 2039 (HK)", 12.77},
      {16, 128, 21, 16, target::gfx942, "aiter PR 2039 (HK)", 13.26},
      {64, 128, 21, 16, target::gfx942, "aiter PR 2039 (HK)", 15.44},
      {128, 128, 21, 16, target::gfx942, "aiter PR 2039 (HK)", 17.40},
      {256, 128, 21, 16, target::gfx942, "aiter PR 2039 (HK)", 34.65},
      {1, 128, 64, 16, target::gfx942, "aiter PR 2039 (HK)", 12.47},
      {1, 128, 21, 16, target::gfx950, "aiter PR 2039 (HK)", 10.42},
      {16, 128, 21, 16, target::gfx950, "aiter PR 2039 (HK)", 12.07},
      {64, 128, 21, 16, target::gfx950, "aiter PR 2039 (HK)", 14.04},
      {128, 128, 21, 16, target::gfx950, "aiter PR 2039 (HK)", 14.83},
      {256, 128, 21, 16, target::gfx950, "aiter PR 2039 (HK)", 19.30},
      {1, 128, 64, 16, target::gfx950, "aiter PR 2039 (HK)", 10.97},
      {1, 32, 1024, 16, target::gfx950, "aiter PR 3003 (HK)", 20.7},
      {1, 32, 8192, 16, target::gfx950, "aiter PR 3003 (HK)", 30.8},
      {1, 32, 32768, 16, target::gfx950, "aiter PR 3003 (HK)", 45.7},
      {1, 32, 70000, 16, target::gfx950, "aiter PR 3003 (HK)", 64.2},
      {4, 16, 1024, 8, target::gfx950, "amd-mixed-mla README (a8w8)", 118},
      {4, 16, 8192, 8, target::gfx950, "amd-mixed-mla README (a8w8)", 113},
      {64, 16, 8192, 8, target::gfx950, "amd-mixed-mla README (a8w8)", 171},
      {256, 16, 8192, 8, target::gfx950, "amd-mixed-mla README (a8w8)", 349},
      {4, 16, 1024, 4, target::gfx950, "amd-mixed-mla README (a8w8)", 118},
      {4, 16, 8192, 4, target::gfx950, "amd-mixed-mla README (a8w8)", 113},
      {64, 16, 8192, 4, target::gfx950, "amd-mixed-mla README (a8w8)", 171},
      {256, 16, 8192, 4, target::gfx950, "amd-mixed-mla README (a8w8)", 349},
  };
  for (const shape& c : shapes) {
    std::vector<int> qo(c.batch + 1), kv(c.batch + 1);
    for (int b = 0; b <= c.batch; ++b) qo[b] = b, kv[b] = b * c.kv;
    const md::problem p{c.batch, c.heads, md::kv_layout::ragged, 1, c.batch * c.kv, 0, 0.0416667f};
    const md::sequences_view s{qo, kv, {}, {}};
    row r{md::entry::name, to_string(c.t),
          std::to_string(c.batch) + " x kv " + std::to_string(c.kv) + ", " + std::to_string(c.heads) + " heads, " +
              (c.kv_bits == 16  ? "bf16 cache"
               : c.kv_bits == 8 ? "fp8 cache and queries"
                                : "MXFP4 cache"),
          "", "memory"};
    // An fp8 cache is read with fp8 queries (the reference quantizes them: a8w8, the fp8 products'
    // kernel, fp8:2); an MXFP4 cache with bf16 queries (fp8:3).
    const int q_bits = c.kv_bits == 8 ? 8 : 16;
    r.time = md::model_time(p, s, c.kv_bits, c.t, q_bits);
    r.bench = bench("bench_mla_decode", "mla_decode",
                    {{"batch", c.batch},
                     {"kv", c.kv},
                     {"heads", c.heads},
                     {"fp8", c.kv_bits == 16  ? 0
                             : c.kv_bits == 8 ? 2
                                              : 3}});
    r.config = r.time.work.front().what;
    r.flops = 2.0 * c.batch * c.heads * c.kv * (md::qk_dim + md::v_dim);
    r.ideal_bytes = double(c.batch) * c.kv * md::kv_row_bytes(c.kv_bits) +
                    double(c.batch) * c.heads * (md::qk_dim * q_bits / 8.0 + md::v_dim * 2);
    r.peers.push_back({c.who, c.us});
    out.push_back(json(r, {}, c.t));
  }
}

template <>
void model_rows<wavekit::ops::moe::entry>(std::vector<std::string>& out) {
  namespace mo = wavekit::ops::moe;
  using wavekit::ops::moe::weight_format;
  // The layer after routing over the benchmarks' ids (test/support/moe_routing_ids.hpp: top-k of the
  // routed experts per token, seed 7, plus the shared expert): amd-moe-mxfp4's benchmark shapes with
  // MXFP4 weights on gfx950 and aiter's times of its task (problems.md 3), the same with fp8
  // block-scaled weights (DeepSeek-V3's) on both targets, and amd-mixture-of-experts' fp16 form.
  struct shape {
    int tokens, hidden, dim, routed, top_k;
    weight_format weights;
    target t;
    double aiter_us;
  };
  std::vector<shape> shapes;
  const int mx[][4] = {{16, 256, 256, 152700}, {128, 256, 256, 239000}, {512, 256, 256, 336500}, {16, 512, 32, 106200},
                       {128, 512, 32, 141100}, {512, 512, 32, 225000},  {512, 2048, 32, 380400}};
  for (const auto& s : mx)
    shapes.push_back({s[0], 7168, s[1], s[2], 8, weight_format::mxfp4, target::gfx950, s[3] / 1e3});
  for (target t : {target::gfx942, target::gfx950})
    for (const auto& s : {std::array<int, 3>{16, 256, 256}, {128, 256, 256}, {512, 256, 256}, {16, 2048, 256}})
      shapes.push_back({s[0], 7168, s[1], s[2], 8, weight_format::fp8_blockscale, t, 0});
  for (const auto& s : {std::array<int, 3>{512, 2048, 4}, {2048, 2048, 32}})
    shapes.push_back({s[0], 7168, s[1], s[2], 4, weight_format::half, target::gfx942, 0});
  for (const shape& c : shapes) {
    const int experts = c.routed + 1;
    const mo::problem p{
        c.tokens,    c.hidden,
        c.dim,       experts,
        c.top_k + 1, 0,
        experts,     c.weights == weight_format::half ? wavekit::layout::mn_contiguous : wavekit::layout::k_contiguous};
    const std::vector<int> ids = wavekit::test::random_ids_with_shared(c.tokens, c.top_k, c.routed, 7);
    const std::vector<int> rows = mo::expert_rows(p, ids);
    const mo::config_id id = mo::choose_config(p, c.weights, c.t);
    const char* format = c.weights == weight_format::mxfp4            ? "MXFP4"
                         : c.weights == weight_format::fp8_blockscale ? "fp8 block-scaled"
                                                                      : "fp16";
    row r{mo::entry::name, to_string(c.t),
          std::to_string(c.tokens) + " tokens, " + std::to_string(c.hidden) + " x " + std::to_string(c.dim) + ", top " +
              std::to_string(c.top_k) + "+1 of " + std::to_string(experts) + ", " + format,
          c.weights == weight_format::half ? mo::config_name(id)
          : c.weights == weight_format::fp8_blockscale
              ? mo::config_name(mo::blockscale_config_of(id))
              : mo::with_mx_config(id, [](auto cfg) { return decltype(cfg)::name(); }),
          "memory"};
    r.time = mo::model_time(p, c.weights, id, rows, c.t);
    const double element = c.weights == weight_format::mxfp4            ? 0.5 + 1.0 / 32
                           : c.weights == weight_format::fp8_blockscale ? 1.0 + 4.0 / (128 * 128)
                                                                        : 2.0;
    int active = 0;
    for (int n : rows) active += n > 0;
    r.flops = 2.0 * double(ids.size()) * 3.0 * c.hidden * c.dim;
    r.ideal_bytes = active * 3.0 * c.hidden * c.dim * element + 4.0 * c.tokens * c.hidden;
    const auto d = wavekit::arch::facts_for(c.t);
    const roof peak = c.weights == weight_format::mxfp4            ? roof{"mxfp4", d.fp4_dense_tflops}
                      : c.weights == weight_format::fp8_blockscale ? roof{"fp8", d.fp8_dense_tflops}
                                                                   : roof{"bf16/fp16", d.bf16_dense_tflops};
    if (r.flops / (peak.tflops * 1e6) > r.ideal_bytes / (d.hbm_tb_per_s * 1e6)) r.kind = "compute";
    const std::string binary = "bench_moe";  // the GPU build has one MoE binary for both targets
    if (c.weights == weight_format::mxfp4)
      r.bench = bench(binary, "moe_layer_mxfp4",
                      {{"tokens", c.tokens},
                       {"hidden", c.hidden},
                       {"dim", c.dim},
                       {"E", c.routed},
                       {"k", c.top_k},
                       {"aiter_ns", std::llround(c.aiter_us * 1e3)}});
    else if (c.weights == weight_format::fp8_blockscale)
      r.bench = bench(binary, "moe_layer_fp8",
                      {{"tokens", c.tokens}, {"hidden", c.hidden}, {"dim", c.dim}, {"E", c.routed}, {"k", c.top_k}});
    else
      r.bench = bench(
          binary, "moe_layer",
          {{"tokens", c.tokens}, {"hidden", c.hidden}, {"dim", c.dim}, {"E", c.routed}, {"k", c.top_k}, {"bf16", 0}});
    if (c.aiter_us > 0) r.peers.push_back({"aiter fused_moe (amd-moe-mxfp4 task)", c.aiter_us});
    out.push_back(json(r, peak, c.t));
  }
}

template <>
void model_rows<wavekit::ops::gemm_fp8_direct::entry>(std::vector<std::string>& out) {
  namespace gd = wavekit::ops::gemm_fp8_direct;
  // The readable one-wave-a-tile fp8 GEMM (no LDS, no scales, fp32 C) at the emulator benchmark's
  // shape and two of amd-fp8-mm's, to show what the tiled GEMMs' LDS reuse buys; no peers.
  const int shapes[][3] = {{256, 256, 1024}, {1024, 1536, 7168}, {6144, 7168, 2304}};
  using direct = gd::op<wavekit::fp8_e4m3fnuz>;  // its tile is the same for either fp8 format
  for (target t : {target::gfx942, target::gfx950}) {
    const roof peak{"fp8", wavekit::arch::facts_for(t).fp8_dense_tflops};
    for (const auto& s : shapes) {
      const gd::problem p{s[0], s[1], s[2]};
      row r{gd::entry::name, to_string(t), mnk(s[0], s[1], s[2]) + " k",
            wavekit::perf_report::wave_tile_config(direct::tile_m, direct::tile_n), "compute"};
      r.flops = 2.0 * s[0] * s[1] * s[2];
      r.ideal_bytes = double(s[0]) * s[2] + double(s[1]) * s[2] + 4.0 * s[0] * s[1];
      r.time = gd::model_time(p, t);
      out.push_back(json(r, peak, t));
    }
  }
}

// The calibration as JSON: the fit, the held-out error, and every pair with the command that
// predicts it from its profile rows and launch descriptions alone.
std::string calibration_json(const wavekit::perf_text::calibration_result& c) {
  std::string s = "{\"fitted\": {\"load_latency_ns\": " + num(c.fitted.load_latency_ns) +
                  ", \"exposed_lds\": " + num(c.fitted.exposed_lds) + ", \"launch_us\": " + num(c.fitted.launch_us) +
                  "}, \"held_out\": {\"ratio_low\": " + num(c.held_out.ratio_low) +
                  ", \"ratio_high\": " + num(c.held_out.ratio_high) + "}, \"pairs\": [";
  for (std::size_t i = 0; i < c.rows.size(); ++i) {
    const auto& r = c.rows[i];
    std::string command = "wavekit_perf_model";
    for (const auto& l : r.pair->launches)
      command +=
          " --profile '" + (l.profile.empty() ? std::string("none") : l.profile) + "' --launch '" + l.launch + "'";
    s += std::string(i ? ",\n  " : "\n  ") + "{\"id\": " + str(r.pair->id) + ", \"family\": " + str(r.pair->family) +
         ", \"source\": " + str(r.pair->source) + ", \"set\": " + str(r.pair->fit ? "fit" : "held out") +
         ", \"published_us\": " + num(r.pair->published_us) + ", \"us\": " + num(r.predicted_us) +
         ", \"command\": " + str(command) + "}";
  }
  return s + "]}";
}

}  // namespace

namespace {

// The published pairs, parsed once (a malformed pair is a bug in published_pairs.hpp).
std::vector<wavekit::perf_text::prepared_pair> prepared_pairs(
    const std::vector<wavekit::perf_text::published_pair>& pairs) {
  std::vector<wavekit::perf_text::prepared_pair> out(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    std::string error;
    if (!wavekit::perf_text::prepare(pairs[i], out[i], &error)) {
      std::fprintf(stderr, "wavekit_perf_model: published pair '%s': %s\n", pairs[i].id.c_str(), error.c_str());
      std::exit(1);
    }
  }
  return out;
}

int usage(const char* why) {
  std::fprintf(stderr,
               "wavekit_perf_model: %s\n"
               "usage: wavekit_perf_model                        the report's JSON\n"
               "       wavekit_perf_model --calibrate --out FILE | --check FILE\n"
               "       wavekit_perf_model --profile ROW|none --launch DESC [--profile ... --launch ...]\n"
               "ROW: what `tools/codegen_report.py profile --arch gfx942|gfx950 KERNEL.s` prints for a kernel.\n"
               "DESC: workgroups=N,waves=W,iterations=I,loaded=B,dram=B,written=B[,lds=B][,fetch=B]\n"
               "  (waves per workgroup, hot-loop iterations per wave, bytes loaded (every load), read once,\n"
               "  written, LDS bytes a workgroup moves, bytes the L2s fetch)\n",
               why);
  return 2;
}

// --profile/--launch: the launches of a kernel that is not wavekit's.
int foreign(int argc, char** argv) {
  std::deque<std::string> storage;
  std::deque<planning::kernel_profile> profiles;
  std::vector<planning::launch_work> work;
  const planning::kernel_profile* current = nullptr;
  bool have_profile = false;
  wavekit::arch::target t = wavekit::arch::target::gfx942;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) return usage((flag + " needs a value").c_str());
    const std::string value = argv[++i];
    std::string error;
    if (flag == "--profile") {
      have_profile = true;
      if (value == "none") {
        current = nullptr;
        continue;
      }
      const auto p = wavekit::perf_text::parse_profile(value, storage, &error);
      if (!p) return usage(("--profile: " + error).c_str());
      current = &profiles.emplace_back(*p);
      t = p->target;
    } else if (flag == "--launch") {
      if (!have_profile) return usage("--launch: give its kernel's --profile first (or --profile none)");
      auto w = wavekit::perf_text::parse_launch(value, &error);
      if (!w) return usage(("--launch: " + error).c_str());
      w->profile = current;
      work.push_back(*w);
    } else {
      return usage(("unknown argument " + flag).c_str());
    }
  }
  if (work.empty()) return usage("no --launch given");
  const planning::op_time o = planning::predict(work, t);
  for (std::size_t i = 0; i < o.launches.size(); ++i) {
    const auto& l = o.launches[i];
    std::printf(
        "launch %zu: %.2f us, bound %s (matrix %.2f, issue %.2f, LDS %.2f, L1 %.2f, latency %.2f, exposed LDS %.2f, "
        "DRAM %.2f, L2 %.2f, fabric %.2f, launch %.2f; %d rounds, %.2f GHz)\n",
        i, l.us, l.bound.c_str(), l.matrix_us, l.issue_us, l.lds_us, l.l1_us, l.latency_us, l.exposed_lds_us, l.dram_us,
        l.l2_us, l.fabric_us, l.launch_us, l.rounds, l.clock_ghz);
  }
  const planning::interval band = planning::prediction_interval(o.us);
  std::printf(
      "predicted %.2f us on %s, interval %.2f to %.2f us (the model's held-out error, "
      "docs/performance.md)\n",
      o.us, wavekit::arch::facts_for(t).product, band.low_us, band.high_us);
  return 0;
}

int calibrate(int argc, char** argv) {
  if (argc != 4 || (std::strcmp(argv[2], "--out") != 0 && std::strcmp(argv[2], "--check") != 0))
    return usage("--calibrate takes --out FILE or --check FILE");
  const auto pairs = wavekit::perf_text::published_pairs();
  const auto fit = wavekit::perf_text::calibrate(prepared_pairs(pairs));
  const std::string text = wavekit::perf_text::calibration_header(fit);
  if (std::strcmp(argv[2], "--check") == 0) {
    std::ifstream in(argv[3]);
    std::stringstream have;
    have << in.rdbuf();
    if (have.str() != text) {
      std::printf(
          "FAIL %s is stale against the published pairs and the model; regenerate it with `cmake --build "
          "--preset ci --target perf_calibration`\n",
          argv[3]);
      return 1;
    }
    std::printf("%s matches the calibration\n", argv[3]);
    return 0;
  }
  std::ofstream(argv[3]) << text;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--calibrate") == 0) return calibrate(argc, argv);
  if (argc > 1) return foreign(argc, argv);
  // The report's sections: each registry entry with a report title, in the registry's order, and
  // its rows. The rows' op is the instance list's (planning/instances.hpp), which
  // tools/perf_report.py checks the rows against too.
  std::vector<std::string> rows;
  std::string sections;
  wavekit::ops::for_each_op([&](auto op) {
    using entry = decltype(op);
    if constexpr (!entry::report_title.empty()) {
      static_assert(planning::listed_op(entry::name), "perf_model: an op planning/instances.hpp does not list");
      model_rows<entry>(rows);
      sections += std::string(sections.empty() ? "" : ",\n  ") + "{\"op\": " + str(std::string(entry::name)) +
                  ", \"title\": " + str(std::string(entry::report_title)) + "}";
    }
  });
  std::printf("{\"ops\": [\n  %s],\n", sections.c_str());
  // The targets' figures the report draws its roofs with.
  std::printf("\"targets\": {");
  for (target t : {target::gfx942, target::gfx950}) {
    const auto d = wavekit::arch::facts_for(t);
    std::printf("%s\"%s\": {\"product\": \"%s\", \"hbm_tb_per_s\": %s}", t == target::gfx942 ? "" : ", ", to_string(t),
                d.product, num(d.hbm_tb_per_s).c_str());
  }
  std::printf("},\n\"rows\": [\n");
  for (std::size_t i = 0; i < rows.size(); ++i)
    std::printf("  %s%s\n", rows[i].c_str(), i + 1 < rows.size() ? "," : "");
  const auto pairs = wavekit::perf_text::published_pairs();
  std::printf("],\n\"calibration\": %s}\n",
              calibration_json(wavekit::perf_text::calibrate(prepared_pairs(pairs))).c_str());
  return 0;
}

// tools/tuner in this (emulator) build: the command line, and tables that hold exactly each op's
// model plan; the candidates a GPU run would time always include the model's plan.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "tuner/tuner.hpp"
#include "wavekit/planning/tables/table_text.hpp"

namespace planning = wavekit::planning;
namespace tuner = wavekit::tuner;
using wavekit::arch::target;

namespace {

wavekit::result<tuner::options> parse(const std::string& line) {
  std::vector<std::string> args;
  std::istringstream words(line);
  for (std::string w; words >> w;) args.push_back(w);
  return tuner::parse_command_line(args);
}

std::string error_of(const std::string& line) {
  const wavekit::result<tuner::options> o = parse(line);
  REQUIRE_FALSE(o.ok());
  return o.error().message();
}

// A scratch file name of this process: ctest runs this binary's test cases in parallel processes
// in one working directory.
std::string scratch_file(const std::string& stem) { return stem + "_" + std::to_string(::getpid()) + ".txt"; }

// Runs the tuner's whole work for a command line (what main() runs in an emulator build) and reads
// its table back.
std::vector<planning::entry> tuned(const std::string& line) {
  const std::string file = scratch_file("test_tuner_table");
  const wavekit::result<tuner::options> o = parse(line + " --out " + file);
  REQUIRE(o.ok());
  const wavekit::status s = tuner::write_model_table(o.value());
  INFO(s.message());
  REQUIRE(s.ok());
  const wavekit::result<std::vector<planning::entry>> table = planning::read_table_file(file);
  std::remove(file.c_str());
  REQUIRE(table.ok());
  return table.value();
}

// Every shape of `shapes` gives the case's model plan, in a table keyed as the op keys it.
template <class Case>
void check_model_table(const std::string& args, target t, const std::vector<tuner::shape>& shapes,
                       const std::string& layout, const std::string& dtypes) {
  std::string list;
  for (const tuner::shape& s : shapes) list += (list.empty() ? "" : ",") + s.str();
  const std::vector<planning::entry> table = tuned(args + " --shapes " + list);
  REQUIRE(table.size() == shapes.size());
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    INFO(Case::op << " " << shapes[i].str());
    const auto p = Case::make(shapes[i], layout, dtypes, t);
    REQUIRE(p.ok());
    const int cus = wavekit::arch::facts_for(t).compute_units;
    CHECK(table[i].key == Case::key(p.value(), t, cus, dtypes));
    CHECK(table[i].key.m_bucket == planning::m_bucket(shapes[i].m));
    CHECK(table[i].key.cus == cus);
    CHECK(table[i].value == Case::value(Case::model(p.value(), t)));
  }
}

}  // namespace

TEST_CASE("the tuner's command line", "[tuning]") {
  const wavekit::result<tuner::options> o =
      parse("--op gemm_fp8_blockscale --arch gfx942 --shapes 1024x1536x7168,16x7168x2048 --out t.txt");
  REQUIRE(o.ok());
  CHECK(o.value().op == "gemm_fp8_blockscale");
  CHECK(o.value().arch == target::gfx942);
  REQUIRE(o.value().shapes.size() == 2);
  CHECK(o.value().shapes[1].str() == "16x7168x2048");
  CHECK(o.value().layout == "k_contiguous");
  CHECK(o.value().dtypes == "e4m3fnuz,e4m3fnuz,bf16");  // the op's first
  CHECK(parse("--op gemm_mx --arch gfx950 --shapes 1x2x32 --out t.txt").value().dtypes == "mxfp4,mxfp4,bf16");

  CHECK(error_of("--op gemm_half --arch gfx942 --out t.txt") == "--op, --arch, --shapes and --out are required");
  CHECK(error_of("--op gemm_half --arch gfx942 --shapes 16x16x16 --out t.txt --fast") == "unknown argument '--fast'");
  CHECK(error_of("--op gemm_half --arch gfx942 --shapes 16x16x16 --out") == "--out needs a value");
  CHECK(error_of("--op gemm_half --arch gfx90a --shapes 16x16x16 --out t.txt") ==
        "--arch must be gfx942 or gfx950, not 'gfx90a'");
  CHECK(error_of("--op gemm_half --arch gfx942 --shapes 16x16 --out t.txt") ==
        "shape '16x16' is not MxNxK (three positive integers)");
  CHECK(error_of("--op gemm_half --arch gfx942 --shapes 16x0x16 --out t.txt") ==
        "shape '16x0x16' is not MxNxK (three positive integers)");
  CHECK(error_of("--op gemm_half --arch gfx942 --shapes 16x16x16x16 --out t.txt") ==
        "shape '16x16x16x16' is not MxNxK (three positive integers)");
  CHECK(error_of("--op gemm_fp8_direct --arch gfx942 --shapes 16x16x16 --out t.txt") ==
        "--op must be one of gemm_fp8_blockscale, gemm_fp8_scaled, gemm_half, gemm_mx, moe, not 'gemm_fp8_direct'");

  // The MoE layer's routing goes to every shape.
  const wavekit::result<tuner::options> m =
      parse("--op moe --arch gfx942 --shapes 16x256x7168,1024x256x7168 --experts 257 --top-k 9 --out t.txt");
  REQUIRE(m.ok());
  CHECK(m.value().dtypes == "bf16,bf16");
  for (const tuner::shape& s : m.value().shapes) CHECK((s.experts == 257 && s.top_k == 9 && s.local_experts == 0));
  CHECK(parse("--op moe --arch gfx942 --shapes 16x256x7168 --experts 64 --top-k 6 --local-experts 8 --out t.txt")
            .value()
            .shapes[0]
            .local_experts == 8);
  CHECK(error_of("--op moe --arch gfx942 --shapes 16x256x7168 --experts 0 --top-k 9 --out t.txt") ==
        "--experts must be a positive integer, not '0'");
  CHECK(error_of("--op moe --arch gfx942 --shapes 16x256x7168 --experts 257 --top-k --out t.txt") ==
        "--top-k must be a positive integer, not '--out'");
  CHECK(error_of("--op moe --arch gfx942 --shapes 16x256x7168 --top-k") == "--top-k needs a value");
}

TEST_CASE("the tuner writes the model's plans: gemm_fp8_blockscale", "[tuning]") {
  using C = tuner::gemm_fp8_blockscale_case;
  const std::vector<tuner::shape> shapes = {{1024, 1536, 7168}, {16, 7168, 2048}, {6144, 4608, 7168}, {1, 576, 7168}};
  check_model_table<C>("--op gemm_fp8_blockscale --arch gfx942", target::gfx942, shapes, "k_contiguous",
                       "e4m3fnuz,e4m3fnuz,bf16");
  check_model_table<C>("--op gemm_fp8_blockscale --arch gfx950 --layout mn_contiguous", target::gfx950,
                       {{1024, 1536, 7168}, {64, 7168, 256}}, "mn_contiguous", "e4m3fn,e4m3fn,bf16");
}

TEST_CASE("the tuner writes the model's plans: gemm_half", "[tuning]") {
  using C = tuner::gemm_half_case;
  const std::vector<tuner::shape> shapes = {{1, 4096, 4096}, {100, 1024, 8192}, {4096, 4096, 4096}};
  check_model_table<C>("--op gemm_half --arch gfx942", target::gfx942, shapes, "k_contiguous", "bf16,bf16,bf16");
  for (const char* dtypes : {"fp16,fp16,fp16", "bf16,bf16,fp32", "fp16,fp16,fp32"})  // each its own key
    check_model_table<C>(std::string("--op gemm_half --arch gfx942 --dtypes ") + dtypes, target::gfx942, shapes,
                         "k_contiguous", dtypes);
  check_model_table<C>("--op gemm_half --arch gfx950 --layout mn_contiguous", target::gfx950,
                       {{256, 2048, 2048}, {16, 8192, 1024}}, "mn_contiguous", "bf16,bf16,bf16");
}

TEST_CASE("the tuner writes the model's plans: gemm_fp8_scaled", "[tuning]") {
  using C = tuner::gemm_fp8_scaled_case;
  // The skinny family (M <= 8 row pairs on gfx942, M <= 16), and dense M.
  const std::vector<tuner::shape> shapes = {{8, 2304, 16384}, {16, 13312, 16384}, {512, 4096, 4096}};
  check_model_table<C>("--op gemm_fp8_scaled --arch gfx942", target::gfx942, shapes, "k_contiguous",
                       "e4m3fnuz,e4m3fnuz,bf16");
  check_model_table<C>("--op gemm_fp8_scaled --arch gfx950", target::gfx950, shapes, "k_contiguous",
                       "e4m3fn,e4m3fn,bf16");
  check_model_table<C>("--op gemm_fp8_scaled --arch gfx950 --dtypes e4m3fn,e4m3fn,fp16", target::gfx950, shapes,
                       "k_contiguous", "e4m3fn,e4m3fn,fp16");
}

TEST_CASE("the tuner writes the model's plans: gemm_mx", "[tuning]") {
  using C = tuner::gemm_mx_case;
  const std::vector<tuner::shape> shapes = {{4, 2880, 512}, {64, 7168, 2048}, {1024, 4096, 4096}};
  check_model_table<C>("--op gemm_mx --arch gfx950", target::gfx950, shapes, "k_contiguous", "mxfp4,mxfp4,bf16");
  // MXFP8 decode takes the GEMV.
  check_model_table<C>("--op gemm_mx --arch gfx950 --dtypes mxfp8,mxfp8,bf16", target::gfx950,
                       {{2, 768, 6144}, {16, 7168, 2048}, {256, 2048, 7168}}, "k_contiguous", "mxfp8,mxfp8,bf16");
  check_model_table<C>("--op gemm_mx --arch gfx950 --dtypes bf16,mxfp4,bf16", target::gfx950, shapes, "k_contiguous",
                       "bf16,mxfp4,bf16");
}

TEST_CASE("the tuner writes the model's plans: moe", "[tuning]") {
  using C = tuner::moe_case;
  // DeepSeek-V3's routed layer (256 + 1 shared experts, 8 + 1 choices) from decode to prefill, and a
  // local range of 32 experts; the model's M tile grows with the rows per expert.
  std::vector<tuner::shape> deepseek;
  for (int tokens : {1, 16, 256, 4096}) deepseek.push_back({tokens, 256, 7168, 257, 9, 0});
  const std::vector<tuner::shape> local = {{64, 2048, 7168, 256, 8, 32}, {2048, 2048, 7168, 256, 8, 32}};
  const std::string deepseek_args = "--op moe --experts 257 --top-k 9";
  const std::string local_args = "--op moe --experts 256 --top-k 8 --local-experts 32";
  check_model_table<C>(deepseek_args + " --arch gfx942", target::gfx942, deepseek, "k_contiguous", "bf16,bf16");
  check_model_table<C>(deepseek_args + " --arch gfx942 --dtypes e4m3fnuz,bf16 --layout mn_contiguous", target::gfx942,
                       deepseek, "mn_contiguous", "e4m3fnuz,bf16");
  check_model_table<C>(local_args + " --arch gfx942", target::gfx942, local, "k_contiguous", "bf16,bf16");
  check_model_table<C>(local_args + " --arch gfx942 --dtypes e4m3fnuz,fp16", target::gfx942, local, "k_contiguous",
                       "e4m3fnuz,fp16");
  for (const char* dtypes : {"bf16,bf16", "e4m3fn,bf16", "mxfp4,bf16", "mxfp8,bf16"})
    check_model_table<C>(deepseek_args + " --arch gfx950 --dtypes " + dtypes, target::gfx950, deepseek, "k_contiguous",
                         dtypes);
  // The table holds what wavekit::moe runs on that target when nothing else is tuned.
  const auto p = C::make(deepseek[3], "k_contiguous", "e4m3fn,bf16", target::gfx950);
  REQUIRE(p.ok());
  CHECK(C::model(p.value(), target::gfx950) ==
        wavekit::ops::moe::choose_config(p.value().layer, wavekit::ops::moe::weight_format::fp8_blockscale,
                                         target::gfx950));
}

TEST_CASE("the tuner refuses what it cannot tune, naming the shape", "[tuning]") {
  auto refusal = [](const std::string& line) {
    const bool has_out = line.find("--out") != std::string::npos;
    const wavekit::result<tuner::options> o =
        parse(line + (has_out ? "" : " --out " + scratch_file("test_tuner_refused")));
    REQUIRE(o.ok());
    const wavekit::status s = tuner::write_model_table(o.value());
    REQUIRE_FALSE(s.ok());
    return s.message();
  };
  CHECK(refusal("--op gemm_half --arch gfx942 --shapes 16x4096x4096,1000x4096x4096,1024x4096x4096") ==
        "shapes 1000x4096x4096 and 1024x4096x4096 share a key (M bucket 1024): tune one of them");
  CHECK(refusal("--op gemm_fp8_blockscale --arch gfx942 --shapes 16x4096x100") ==
        "shape 16x4096x100: gemm_fp8_blockscale 16x4096x100 k_contiguous: K must be a multiple of 128 (the scale "
        "group)");
  CHECK(refusal("--op gemm_mx --arch gfx942 --shapes 16x4096x4096").rfind("shape 16x4096x4096: gemm_mx ", 0) == 0);
  CHECK(refusal("--op gemm_half --arch gfx942 --shapes 16x4096x4096 --dtypes fp32,fp32,fp32") ==
        "gemm_half on gfx942: the tuner runs --dtypes bf16,bf16,bf16, fp16,fp16,fp16, bf16,bf16,fp32, "
        "fp16,fp16,fp32, not 'fp32,fp32,fp32'");
  CHECK(refusal("--op gemm_fp8_blockscale --arch gfx950 --shapes 16x4096x4096 --dtypes e4m3fnuz,e4m3fnuz,bf16") ==
        "gemm_fp8_blockscale on gfx950: the tuner runs --dtypes e4m3fn,e4m3fn,bf16, not 'e4m3fnuz,e4m3fnuz,bf16'");
  CHECK(refusal("--op gemm_mx --arch gfx950 --shapes 16x4096x4096 --layout mn_contiguous") ==
        "gemm_mx: the tuner runs --layout k_contiguous, not 'mn_contiguous'");
  CHECK(refusal("--op gemm_half --arch gfx942 --shapes 16x4096x4096 --layout row_major") ==
        "gemm_half: the tuner runs --layout k_contiguous, mn_contiguous, not 'row_major'");
  CHECK(refusal("--op gemm_half --arch gfx942 --shapes 16x4096x4096 --out /no/such/dir/t.txt") ==
        "/no/such/dir/t.txt: cannot write the tuning table");
  CHECK(refusal("--op moe --arch gfx942 --shapes 16x256x7168") ==
        "shape 16x256x7168: moe: --experts and --top-k are required (the routing of the shapes)");
  CHECK(refusal("--op moe --arch gfx942 --shapes 16x256x7168 --experts 257 --top-k 9 --dtypes mxfp4,bf16") ==
        "moe on gfx942: the tuner runs --dtypes bf16,bf16, e4m3fnuz,bf16, fp16,fp16, e4m3fnuz,fp16, not "
        "'mxfp4,bf16'");
  CHECK_THAT(refusal("--op moe --arch gfx942 --shapes 16x256x7168 --experts 257 --top-k 33"),  // the launch's rule
             Catch::StartsWith("shape 16x256x7168: moe ") && Catch::Contains("top_k must be in [1, 32]"));
  CHECK_THAT(refusal("--op moe --arch gfx950 --shapes 16x256x7168 --experts 257 --top-k 9 --dtypes mxfp4,bf16 "
                     "--layout mn_contiguous"),
             Catch::StartsWith("shape 16x256x7168: moe ") && Catch::Contains("K-contiguous"));
}

// The GPU run times Case::candidates and compares with the model's plan: the candidates repeat
// each op's model loop, so that plan must be one of them.
template <class Case>
void check_candidates_hold_the_model(target t, const std::string& layout, const std::string& dtypes, int n, int k) {
  for (int m : {1, 2, 3, 5, 8, 9, 16, 17, 32, 48, 64, 65, 128, 200, 512, 1000, 4096, 6144}) {
    const auto p = Case::make({m, n, k}, layout, dtypes, t);
    if (!p.ok()) continue;  // (mn_contiguous needs M % 16)
    const std::vector<typename Case::plan> plans = Case::candidates(p.value(), t);
    const planning::value model = Case::value(Case::model(p.value(), t));
    bool found = false;
    for (const auto& pl : plans) found = found || Case::value(pl) == model;
    INFO(Case::op << " " << m << "x" << n << "x" << k << " " << layout << " " << dtypes << ": model "
                  << planning::to_string(model));
    CHECK(found);
  }
}

TEST_CASE("the candidates a GPU run times include the model's plan", "[tuning]") {
  for (const auto& [n, k] : {std::pair{7168, 2048}, {576, 7168}, {4096, 512}, {16384, 16384}})
    for (target t : {target::gfx942, target::gfx950}) {
      check_candidates_hold_the_model<tuner::gemm_fp8_blockscale_case>(
          t, "k_contiguous", tuner::gemm_fp8_blockscale_case::dtypes(t)[0], n, k);
      check_candidates_hold_the_model<tuner::gemm_fp8_blockscale_case>(
          t, "mn_contiguous", tuner::gemm_fp8_blockscale_case::dtypes(t)[0], n, k);
      check_candidates_hold_the_model<tuner::gemm_half_case>(t, "k_contiguous", "bf16,bf16,bf16", n, k);
      check_candidates_hold_the_model<tuner::gemm_fp8_scaled_case>(t, "k_contiguous",
                                                                   tuner::gemm_fp8_scaled_case::dtypes(t)[0], n, k);
      check_candidates_hold_the_model<tuner::gemm_fp8_scaled_case>(t, "mn_contiguous",
                                                                   tuner::gemm_fp8_scaled_case::dtypes(t)[0], n, k);
    }
  for (const auto& [n, k] : {std::pair{2880, 512}, {7168, 2048}, {768, 6144}})
    for (const std::string& dtypes : tuner::gemm_mx_case::dtypes(target::gfx950))
      check_candidates_hold_the_model<tuner::gemm_mx_case>(target::gfx950, "k_contiguous", dtypes, n, k);
  for (target t : {target::gfx942, target::gfx950})
    for (const std::string& dtypes : tuner::moe_case::dtypes(t))
      for (int tokens : {1, 16, 100, 512, 4096}) {
        const auto p = tuner::moe_case::make({tokens, 256, 7168, 257, 9, 0}, "k_contiguous", dtypes, t);
        REQUIRE(p.ok());
        const std::vector<wavekit::ops::moe::config_id> plans = tuner::moe_case::candidates(p.value(), t);
        CHECK(std::find(plans.begin(), plans.end(), tuner::moe_case::model(p.value(), t)) != plans.end());
      }
}

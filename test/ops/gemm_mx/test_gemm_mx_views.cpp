// gemm_mx over views and batches (core/gemm_view.hpp): a batched launch over padded rows, shared
// operands and interleaved outputs gives each GEMM exactly what the same GEMM gives run alone on
// packed copies (bit for bit: the same kernel, the same K order), for MXFP8 and MXFP4, a
// pre-shuffled B, a 16-bit A quantized in the kernel and the GEMV path, split-K included; C is not
// written outside its views; and every stride rule gets its status. gfx950 only runs MX (on
// gfx942 the launch's refusal is test_gemm_mx's).
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <type_traits>
#include <vector>

#include "support/device_upload.hpp"
#include "support/gemm_mx_case.hpp"
#include "support/gemm_mx_run.hpp"
#include "support/gemm_view_storage.hpp"
#include "wavekit/ops/gemm_mx.hpp"

using namespace wavekit;
namespace gx = wavekit::ops::gemm_mx;

namespace {

// `count` tensors of `rows` rows of `row_objects` objects (host order [count][rows][row_objects])
// placed rows `ld` objects apart and tensors `stride` objects apart, `filler` between them.
template <class T>
std::vector<T> placed(const std::vector<T>& packed, int count, int rows, int row_objects, std::int64_t ld,
                      std::int64_t stride, T filler) {
  std::vector<T> out(std::size_t((count - 1) * stride + (rows - 1) * ld + row_objects), filler);
  for (int g = 0; g < count; ++g)
    for (int r = 0; r < rows; ++r)
      std::memcpy(&out[std::size_t(g * stride + r * ld)], &packed[(std::size_t(g) * rows + r) * row_objects],
                  std::size_t(row_objects) * sizeof(T));
  return out;
}

template <class T>
T all_ones() {
  T t;
  std::memset(&t, 0xff, sizeof(T));
  return t;
}

// GEMM g's tensor of a packed [count][objects] host array (a shared one: count 1).
template <class T>
std::vector<T> one_of(const std::vector<T>& all, std::size_t objects, int g) {
  const std::size_t at = all.size() == objects ? 0 : std::size_t(g) * objects;
  return {all.begin() + std::ptrdiff_t(at), all.begin() + std::ptrdiff_t(at + objects)};
}

// Elem: MXFP8 or MXFP4 elements; AT: A's storage (mx_storage_t<Elem>, or bf16 quantized in the
// kernel). launch(problem, a, b, a_scale, b_scale, c, workspace, bytes) launches the path under test.
template <class Elem, class AT, class Launch>
void check_batch_matches_singles(const gx::problem& p, int splits, std::uint32_t seed, Launch&& launch) {
  using storage = mx_storage_t<Elem>;
  constexpr bool quantizing = !std::is_same_v<AT, storage>;
  constexpr int per_object = std::is_same_v<Elem, fp4_e2m1> ? 2 : 1;  // elements a stored object
  const int gemms = p.batch.count, a_count = p.batch.a ? gemms : 1, b_count = p.batch.b ? gemms : 1;
  const int a_row = quantizing ? p.k : p.k / per_object, b_row = p.k / per_object, blocks = p.k / 32;
  const bool shuffled = p.b == gx::b_layout::preshuffled;
  const std::size_t b_scale_objects =
      shuffled ? std::size_t(shuffled_scale_rows(p.n)) * shuffled_scale_cols(blocks) : std::size_t(p.n) * blocks;
  std::mt19937 rng(seed);
  // Each GEMM's operands as its single launch takes them (packed, B in p's layout).
  std::vector<AT> a_all;
  std::vector<storage> b_all;
  std::vector<e8m0> a_scales, b_scales;
  for (int g = 0; g < a_count; ++g) {
    if constexpr (quantizing) {
      for (float x : test::random_blocks(p.m, p.k, rng)) a_all.push_back(saturate_cast<AT>(x));
    } else {
      const auto q = test::gemm_mx_case<Elem, bf16>::random_mx(p.m, p.k, rng);
      a_all.insert(a_all.end(), q.data.begin(), q.data.end());
      a_scales.insert(a_scales.end(), q.scales.begin(), q.scales.end());
    }
  }
  for (int g = 0; g < b_count; ++g) {
    const auto q = test::gemm_mx_case<Elem, bf16>::random_mx(p.n, p.k, rng);
    std::vector<storage> data = q.data;
    std::vector<e8m0> scales = q.scales;
    if constexpr (std::is_same_v<Elem, fp4_e2m1>)
      if (shuffled)
        data = host::shuffle_weight_16x16(std::span<const storage>(q.data), p.n, b_row),
        scales = host::e8m0_shuffle(std::span<const e8m0>(q.scales), p.n, blocks);
    b_all.insert(b_all.end(), data.begin(), data.end());
    b_scales.insert(b_scales.end(), scales.begin(), scales.end());
  }
  // The batch's storage: rows at their strides, all-ones bytes between (NaN for fp8 and bf16).
  const gemm_views v = p.views();
  const int a_per_object = quantizing ? 1 : per_object;
  const std::vector<AT> a_stored =
      placed(a_all, a_count, p.m, a_row, v.lda / a_per_object, p.batch.a / a_per_object, all_ones<AT>());
  const std::vector<storage> b_stored =
      shuffled ? b_all
               : placed(b_all, b_count, p.n, b_row, v.ldb / per_object, p.batch.b / per_object, all_ones<storage>());
  if (shuffled) REQUIRE(p.batch.b == std::int64_t(p.n) * p.k);  // the test's shuffled B tensors lie back to back
  AT* a = test::upload(a_stored);
  storage* b = test::upload(b_stored);
  e8m0* a_scale = quantizing ? nullptr : test::upload(a_scales);
  e8m0* b_scale = test::upload(b_scales);
  const std::size_t c_count = std::size_t(v.c_batch_extent(p.batch)), ws = std::size_t(splits) * c_count * 4;
  bf16 *c = nullptr, *c_one = nullptr;
  void* workspace = nullptr;
  hipMalloc(&c, c_count * 2), hipMalloc(&c_one, std::size_t(p.m) * p.n * 2), hipMalloc(&workspace, ws);
  hipMemset(c, 0xff, c_count * 2);
  const status s = launch(p, a, b, a_scale, b_scale, c, workspace, ws);
  INFO(p.str() << ", " << splits << " splits: " << s.message());
  REQUIRE(s.ok());
  std::vector<bf16> got(c_count), one(std::size_t(p.m) * p.n);
  hipMemcpy(got.data(), c, c_count * 2, hipMemcpyDeviceToHost);
  gx::problem single{p.m, p.n, p.k, p.format, p.a, p.b};
  for (int g = 0; g < gemms; ++g) {
    AT* a_g = test::upload(one_of(a_all, std::size_t(p.m) * a_row, g));
    storage* b_g = test::upload(one_of(b_all, std::size_t(p.n) * b_row, g));
    e8m0* a_scale_g = quantizing ? nullptr : test::upload(one_of(a_scales, std::size_t(p.m) * blocks, g));
    e8m0* b_scale_g = test::upload(one_of(b_scales, b_scale_objects, g));
    REQUIRE(launch(single, a_g, b_g, a_scale_g, b_scale_g, c_one, workspace, ws).ok());
    hipMemcpy(one.data(), c_one, one.size() * 2, hipMemcpyDeviceToHost);
    hipFree(a_g), hipFree(b_g), hipFree(a_scale_g), hipFree(b_scale_g);
    INFO("GEMM " << g);
    CHECK(test::outputs_differing(p, got, one, g) == 0);
  }
  CHECK(test::written_outside_views(p, got) == 0);
  hipFree(a), hipFree(b), hipFree(a_scale), hipFree(b_scale), hipFree(c), hipFree(c_one), hipFree(workspace);
}

// A config's launch, or the GEMV's (Rows > 0), with either kind of arguments.
template <class Cfg, int Rows = 0>
struct launch_path {
  template <class AT, class B>
  status operator()(const gx::problem& p, const AT* a, const B* b, const e8m0* a_scale, const e8m0* b_scale, bf16* c,
                    void* workspace, std::size_t bytes) const {
    if constexpr (std::is_same_v<AT, bf16>) {
      return gx::launch<Cfg>(p, gx::args_quantizing_a<bf16, bf16>{a, b, b_scale, c, workspace, bytes}, splits, nullptr);
    } else {
      using Elem = std::conditional_t<std::is_same_v<B, fp4x2_e2m1>, fp4_e2m1, fp8_e4m3fn>;
      const gx::args<Elem, bf16> args{a, b, a_scale, b_scale, c, workspace, bytes};
      if constexpr (Rows > 0)
        return gx::launch_gemv<Rows>(p, args, splits, arch::current_device_arch().kind, nullptr);
      else
        return gx::launch<Cfg>(p, args, splits, nullptr);
    }
  }
  int splits;
};

}  // namespace

TEST_CASE("gemm_mx: a batch of views gives each GEMM's result bit for bit, split-K included", "[emu][gemm]") {
  if (!test::device_is_gfx950()) return;  // MX runs on gfx950 only
  using fp8 = fp8_e4m3fn;
  using fp4 = mx_storage_t<fp4_e2m1>;
  constexpr auto mxfp8 = gx::mx_format::mxfp8, mxfp4 = gx::mx_format::mxfp4;
  constexpr auto plain = gx::b_layout::plain, shuffled = gx::b_layout::preshuffled;
  constexpr auto mx = gx::a_storage::mx;
  const int m = 40, n = 144, k = 320;  // M and N past a tile's edge, K ragged for 128-byte steps
  for (int splits : {1, 2}) {
    // MXFP8: A's rows padded and its GEMMs stacked, B stacked with padded rows, C's heads
    // interleaved in its rows.
    gx::problem p{m, n, k, mxfp8, mx, plain};
    p.strides = {.lda = k + 32, .ldb = k + 64, .ldc = 3 * 160};
    p.batch = {3, std::int64_t(m) * (k + 32), std::int64_t(n) * (k + 64), 160};
    check_batch_matches_singles<fp8_e4m3fn, fp8>(p, splits, 1, launch_path<gx::config_narrow>{splits});
    // One B for every GEMM (its scales shared too), C stacked with padded rows.
    p.strides = {.lda = 0, .ldb = 0, .ldc = n + 8};
    p.batch = {2, std::int64_t(m) * k + 64, 0, std::int64_t(m) * (n + 8)};
    check_batch_matches_singles<fp8_e4m3fn, fp8>(p, splits, 2, launch_path<gx::config_small>{splits});
    // MXFP4: A's rows padded, B pre-shuffled and stacked (each GEMM's scales their shuffled size).
    gx::problem q{m, n, 512, mxfp4, mx, shuffled};  // two 256-K steps
    q.strides = {.lda = 512 + 64};
    q.batch = {2, std::int64_t(m) * (512 + 64), std::int64_t(n) * 512, std::int64_t(m) * n};
    check_batch_matches_singles<fp4_e2m1, fp4>(q, splits, 3, launch_path<gx::config_narrow>{splits});
    // A as bf16 quantized in the kernel, its rows padded; one B.
    gx::problem r{m, n, k, mxfp4, gx::a_storage::bf16, plain};
    r.strides = {.lda = k + 8, .ldb = k + 64};
    r.batch = {2, std::int64_t(m) * (k + 8), 0, std::int64_t(m) * n};
    check_batch_matches_singles<fp4_e2m1, bf16>(r, splits, 4, launch_path<gx::config_small>{splits});
    // The GEMV path (4 rows a block): A's rows padded, C's interleaved.
    gx::problem d{3, 272, k, mxfp8, mx, plain};
    d.strides = {.lda = k + 16, .ldc = 2 * 272};
    d.batch = {2, std::int64_t(3) * (k + 16), std::int64_t(272) * k, 272};
    check_batch_matches_singles<fp8_e4m3fn, fp8>(d, splits, 5, launch_path<gx::config_decode, 4>{splits});
  }
}

TEST_CASE("gemm_mx: every stride and batch rule gets its status", "[gemm]") {
  auto status_of = [](gx::mx_format f, gx::a_storage a, gx::b_layout b, gemm_strides s, gemm_batch batch = {}) {
    gx::problem p{64, 64, 256, f, a, b};
    p.strides = s, p.batch = batch;
    return gx::validate_shape(p);
  };
  constexpr auto mxfp8 = gx::mx_format::mxfp8, mxfp4 = gx::mx_format::mxfp4;
  constexpr auto mx = gx::a_storage::mx;
  constexpr auto plain = gx::b_layout::plain, shuffled = gx::b_layout::preshuffled;
  CHECK(status_of(mxfp8, mx, plain, {272, 288, 80}, {2, 64 * 272, 0, 80 * 64}).ok());
  CHECK(status_of(mxfp4, mx, plain, {288, 320, 0}).ok());
  CHECK(status_of(mxfp4, gx::a_storage::bf16, plain, {264, 0, 0}).ok());
  // 16-byte loads: 16 fp8, 32 fp4 or 8 16-bit elements.
  CHECK(status_of(mxfp8, mx, plain, {264, 0, 0}).message() ==
        "gemm_mx 64x64x256 mxfp8 lda 264: lda (264) must be a multiple of 16 elements (vector loads and stores stay "
        "aligned)");
  CHECK(status_of(mxfp4, mx, plain, {0, 272, 0}).code() == status_code::bad_alignment);
  CHECK(status_of(mxfp4, gx::a_storage::bf16, plain, {260, 0, 0}).code() == status_code::bad_alignment);
  CHECK(status_of(mxfp8, mx, plain, {0, 0, 66}).code() == status_code::bad_alignment);
  CHECK(status_of(mxfp8, mx, plain, {128, 0, 0}).code() == status_code::bad_shape);
  CHECK(status_of(mxfp4, mx, shuffled, {0, 512, 0}).message() ==
        "gemm_mx 64x64x256 mxfp4, B pre-shuffled ldb 512: a pre-shuffled B's rows are its layout's: ldb must be 0");
  CHECK(status_of(mxfp8, mx, plain, {}, {2, 0, 0, 64}).code() == status_code::bad_shape);  // C's GEMMs overlap
  CHECK(status_of(mxfp8, mx, plain, {}, {70000, 0, 0, 4096}).code() == status_code::bad_shape);
  CHECK(status_of(mxfp8, mx, plain, {}, {2, std::int64_t(1) << 31, 0, 4096}).code() == status_code::too_large);
  // A tile's 256 rows of a padded row past 2^31 bytes; the batch's grid z with splits (the launch
  // and the plan both refuse it).
  CHECK(status_of(mxfp8, mx, plain, {std::int64_t(1) << 23, 0, 0}).code() == status_code::too_large);
  gx::problem wide{16, 64, 4096, mxfp8, mx, plain};
  wide.batch = {40000, 0, 0, 16 * 64};
  REQUIRE(gx::validate_shape(wide).ok());
  CHECK(gx::check_plan(wide, {gx::config_id::decode, 2}).code() == status_code::bad_shape);
  CHECK(gx::check_plan(wide, {gx::config_id::decode, 1}).ok());
}

// The emulator's device math (emu/device_math.hpp): the transcendental instructions as the ISA
// documents them (1 ulp, denormals flushed, its special values), the device library's expf, logf,
// exp2f, log2f and rsqrtf sequences against double precision over the whole f32 range (subnormal
// arguments and results included), their special values, and emulated kernels: arch/device_math.hpp
// runs exactly these sequences there, lane for lane the same as on the host, run after run.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "wavekit/arch/device_math.hpp"
#include "wavekit/emu/device_math.hpp"

namespace dm = wavekit::emu::device_math;

namespace {

constexpr float inf = std::numeric_limits<float>::infinity();
constexpr float quiet_nan = std::numeric_limits<float>::quiet_NaN();

float from_bits(std::uint32_t b) { return std::bit_cast<float>(b); }
std::uint32_t bits_of(float x) { return std::bit_cast<std::uint32_t>(x); }

// |got - want| in ulps of f32 at want (a subnormal ulp is 2^-149); a want beyond FLT_MAX's rounding
// range is Inf, which must be met exactly.
double ulp_error(float got, double want) {
  if (std::isnan(want)) return std::isnan(got) ? 0.0 : 1e30;
  if (std::fabs(want) >= 0x1.ffffffp127) want = std::copysign(double(inf), want);
  if (std::isinf(want) || std::isinf(got)) return double(got) == want ? 0.0 : 1e30;
  int exponent = 0;
  std::frexp(want, &exponent);
  return std::fabs(double(got) - want) / std::ldexp(1.0, std::max(exponent - 24, -149));
}

// The worst error of f against exact(double) over every 1021st f32 bit pattern in [lo, hi].
template <class F, class Exact>
double worst_error(F f, Exact exact, float lo, float hi, float* at) {
  double worst = 0.0;
  for (std::uint64_t b = 0; b <= 0xFFFFFFFFu; b += 1021) {
    const float x = from_bits(static_cast<std::uint32_t>(b));
    if (!(x >= lo && x <= hi)) continue;
    const double e = ulp_error(f(x), exact(double(x)));
    if (e > worst) worst = e, *at = x;
  }
  return worst;
}

}  // namespace

TEST_CASE("device math: the instructions follow the ISA's examples and flush denormals", "[emu]") {
  // V_EXP_F32, V_LOG_F32, V_RCP_F32, V_RSQ_F32 and V_SQRT_F32's functional examples.
  CHECK(bits_of(dm::v_exp_f32(-inf)) == 0x00000000u);
  CHECK(bits_of(dm::v_exp_f32(-0.0f)) == 0x3F800000u);
  CHECK(bits_of(dm::v_exp_f32(inf)) == 0x7F800000u);
  CHECK(bits_of(dm::v_log_f32(-inf)) == 0xFFC00000u);
  CHECK(bits_of(dm::v_log_f32(-1.0f)) == 0xFFC00000u);
  CHECK(bits_of(dm::v_log_f32(-0.0f)) == 0xFF800000u);
  CHECK(bits_of(dm::v_log_f32(0.0f)) == 0xFF800000u);
  CHECK(bits_of(dm::v_log_f32(1.0f)) == 0x00000000u);
  CHECK(bits_of(dm::v_log_f32(inf)) == 0x7F800000u);
  CHECK(bits_of(dm::v_rcp_f32(-inf)) == 0x80000000u);
  CHECK(bits_of(dm::v_rcp_f32(-2.0f)) == 0xBF000000u);
  CHECK(bits_of(dm::v_rcp_f32(-0.0f)) == 0xFF800000u);
  CHECK(bits_of(dm::v_rcp_f32(inf)) == 0x00000000u);
  CHECK(bits_of(dm::v_rsq_f32(-inf)) == 0xFFC00000u);
  CHECK(bits_of(dm::v_rsq_f32(-0.0f)) == 0xFF800000u);
  CHECK(bits_of(dm::v_rsq_f32(0.0f)) == 0x7F800000u);
  CHECK(bits_of(dm::v_rsq_f32(4.0f)) == 0x3F000000u);
  CHECK(bits_of(dm::v_rsq_f32(inf)) == 0x00000000u);
  CHECK(bits_of(dm::v_sqrt_f32(-inf)) == 0xFFC00000u);
  CHECK(bits_of(dm::v_sqrt_f32(-0.0f)) == 0x80000000u);
  CHECK(bits_of(dm::v_sqrt_f32(4.0f)) == 0x40000000u);
  CHECK(bits_of(dm::v_sqrt_f32(inf)) == 0x7F800000u);
  // "Denormals are flushed": a subnormal argument is a zero, a subnormal result is one.
  const float tiny = from_bits(0x00000001u);
  CHECK(dm::v_exp_f32(-130.0f) == 0.0f);  // 2^-130 is subnormal
  CHECK(dm::v_exp_f32(-126.0f) == 0x1p-126f);
  CHECK(dm::v_log_f32(tiny) == -inf);
  CHECK(dm::v_log_f32(0x1p-126f) == -126.0f);
  CHECK(dm::v_rsq_f32(tiny) == inf);
  CHECK(dm::v_rcp_f32(0x1p127f) == 0.0f);  // 2^-127 is subnormal
  CHECK(dm::v_rcp_f32(-tiny) == -inf);
  CHECK(dm::v_sqrt_f32(tiny) == 0.0f);
  CHECK(std::isnan(dm::v_exp_f32(quiet_nan)));
  CHECK(std::isnan(dm::v_log_f32(quiet_nan)));
  // Within the documented 1 ulp wherever defined (the model: the nearest f32 to the exact value).
  float at = 0.0f;
  CHECK(worst_error(dm::v_exp_f32, [](double x) { return std::exp2(x); }, -126.0f, 128.0f, &at) <= 0.5);
  CHECK(worst_error(dm::v_log_f32, [](double x) { return std::log2(x); }, 0x1p-126f, 3e38f, &at) <= 0.5);
  CHECK(worst_error(dm::v_rsq_f32, [](double x) { return 1.0 / std::sqrt(x); }, 0x1p-126f, 3e38f, &at) <= 0.5);
  CHECK(worst_error(dm::v_rcp_f32, [](double x) { return 1.0 / x; }, 0x1p-126f, 0x1p126f, &at) <= 0.5);
  CHECK(worst_error(dm::v_sqrt_f32, [](double x) { return std::sqrt(x); }, 0x1p-126f, 3e38f, &at) <= 0.5);
}

TEST_CASE("device math: the library's sequences are within their precision over the whole range", "[emu]") {
  float at = 0.0f;
  // e^x from -110 (results +0) through the subnormal results to past the overflow to +Inf: the
  // reduction's argument error and v_exp_f32's rounding (a subnormal result rounds twice).
  double e = worst_error(dm::expf, [](double x) { return std::exp(x); }, -110.0f, 90.0f, &at);
  INFO("expf: " << e << " ulp at " << at);
  CHECK(e <= 1.5);
  // 2^x: v_exp_f32 alone, or raised by 64 and scaled back below -126 (the subnormal results).
  e = worst_error(dm::exp2f, [](double x) { return std::exp2(x); }, -160.0f, 130.0f, &at);
  INFO("exp2f: " << e << " ulp at " << at);
  CHECK(e <= 1.0);
  // ln x and log2 x of every positive f32, subnormals included (the device library's 2^32 scaling).
  e = worst_error(dm::logf, [](double x) { return std::log(x); }, from_bits(1), 3.4e38f, &at);
  INFO("logf: " << e << " ulp at " << at);
  CHECK(e <= 1.5);
  e = worst_error(dm::log2f, [](double x) { return std::log2(x); }, from_bits(1), 3.4e38f, &at);
  INFO("log2f: " << e << " ulp at " << at);
  CHECK(e <= 1.0);
  // 1 / sqrt(x): v_rsq_f32's approximation, subnormal arguments scaled by 2^100.
  e = worst_error(dm::rsqrtf, [](double x) { return 1.0 / std::sqrt(x); }, from_bits(1), 3.4e38f, &at);
  INFO("rsqrtf: " << e << " ulp at " << at);
  CHECK(e <= 1.0);
}

TEST_CASE("device math: special values of the library's sequences", "[emu]") {
  CHECK(dm::expf(0.0f) == 1.0f);
  CHECK(dm::expf(-0.0f) == 1.0f);
  CHECK(dm::expf(-inf) == 0.0f);
  CHECK(dm::expf(inf) == inf);
  CHECK(std::isnan(dm::expf(quiet_nan)));
  // The sequence's range ends: +Inf from the f32 above ln(FLT_MAX), +0 below ln(2^-149).
  CHECK(dm::expf(from_bits(0x42B17217u)) == 0x1.ffff08p127f);
  CHECK(dm::expf(from_bits(0x42B17218u)) == inf);
  CHECK(dm::expf(from_bits(0xC2CE8ED0u)) == from_bits(1));
  CHECK(dm::expf(from_bits(0xC2CE8ED1u)) == 0.0f);
  CHECK(dm::expf(-1000.0f) == 0.0f);
  CHECK(dm::expf(1000.0f) == inf);
  CHECK(dm::logf(1.0f) == 0.0f);
  CHECK(dm::logf(0.0f) == -inf);
  CHECK(dm::logf(-0.0f) == -inf);
  CHECK(dm::logf(inf) == inf);
  CHECK(std::isnan(dm::logf(-1.0f)));
  CHECK(std::isnan(dm::logf(-inf)));
  CHECK(std::isnan(dm::logf(quiet_nan)));
  CHECK(dm::logf(from_bits(1)) == Approx(-149.0 * std::log(2.0)).epsilon(1e-7));  // a subnormal argument
  CHECK(dm::exp2f(-149.0f) == from_bits(1));
  CHECK(dm::exp2f(-150.5f) == 0.0f);
  CHECK(dm::exp2f(128.0f) == inf);
  CHECK(dm::exp2f(-inf) == 0.0f);
  CHECK(dm::log2f(from_bits(1)) == -149.0f);
  CHECK(dm::log2f(0x1p-126f) == -126.0f);
  CHECK(dm::log2f(0.0f) == -inf);
  CHECK(std::isnan(dm::log2f(-2.0f)));
  CHECK(dm::rsqrtf(4.0f) == 0.5f);
  CHECK(dm::rsqrtf(0x1p-148f) == 0x1p74f);  // a subnormal argument
  CHECK(dm::rsqrtf(0.0f) == inf);
  CHECK(dm::rsqrtf(-0.0f) == -inf);
  CHECK(dm::rsqrtf(inf) == 0.0f);
  CHECK(std::isnan(dm::rsqrtf(-1.0f)));
}

namespace {

__global__ void device_math_kernel(const float* x, float* out, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  out[5 * i + 0] = wavekit::arch::device_expf(x[i]);
  out[5 * i + 1] = wavekit::arch::device_logf(x[i]);
  out[5 * i + 2] = wavekit::arch::device_exp2f(x[i]);
  out[5 * i + 3] = wavekit::arch::device_log2f(x[i]);
  out[5 * i + 4] = wavekit::arch::device_rsqrtf(x[i]);
}

std::vector<std::uint32_t> run_kernel(const std::vector<float>& x) {
  const int n = static_cast<int>(x.size());
  float *d_x = nullptr, *d_out = nullptr;
  REQUIRE(hipMalloc(&d_x, x.size() * 4) == hipSuccess);
  REQUIRE(hipMalloc(&d_out, x.size() * 20) == hipSuccess);
  REQUIRE(hipMemcpy(d_x, x.data(), x.size() * 4, hipMemcpyHostToDevice) == hipSuccess);
  hipLaunchKernelGGL(device_math_kernel, dim3((n + 255) / 256), dim3(256), 0, nullptr, d_x, d_out, n);
  REQUIRE(hipGetLastError() == hipSuccess);
  std::vector<std::uint32_t> out(x.size() * 5);
  REQUIRE(hipMemcpy(out.data(), d_out, out.size() * 4, hipMemcpyDeviceToHost) == hipSuccess);
  hipFree(d_x), hipFree(d_out);
  return out;
}

}  // namespace

TEST_CASE("device math: kernels run the sequences, the same bits on every run", "[emu]") {
  // Arguments across the f32 range (both signs, subnormals, the specials), 2^16 of them.
  std::vector<float> x;
  for (std::uint64_t b = 0; b <= 0xFFFFFFFFu; b += 65537) x.push_back(from_bits(static_cast<std::uint32_t>(b)));
  for (float v :
       {0.0f, -0.0f, inf, -inf, quiet_nan, 1.0f, -1.0f, from_bits(0x42B17218u), from_bits(0xC2CE8ED1u), from_bits(1)})
    x.push_back(v);
  const auto got = run_kernel(x);
  long differs_from_host_library = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    INFO("x = " << x[i] << " (0x" << std::hex << bits_of(x[i]) << std::dec << ")");
    const float want[5] = {dm::expf(x[i]), dm::logf(x[i]), dm::exp2f(x[i]), dm::log2f(x[i]), dm::rsqrtf(x[i])};
    for (int f = 0; f < 5; ++f) {
      const bool same =
          got[5 * i + f] == bits_of(want[f]) || (std::isnan(want[f]) && std::isnan(from_bits(got[5 * i + f])));
      if (!same)
        FAIL_CHECK("function " << f << ": kernel 0x" << std::hex << got[5 * i + f] << ", model 0x" << bits_of(want[f]));
    }
    differs_from_host_library += bits_of(want[0]) != bits_of(std::exp(x[i])) && !std::isnan(x[i]);
  }
  // Not the host C library's e^x: the device's rounds differently for some arguments.
  CHECK(differs_from_host_library > 0);
  CHECK(run_kernel(x) == got);
}

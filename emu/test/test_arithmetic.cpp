// Emulated kernels contract a * b + c where the device code does (cmake/wavekitEmulator.cmake,
// test/isa/contraction): one expression, a compound `acc += w * o` too, is one fused multiply-add;
// a product and a sum in separate statements round twice. The inputs make the two differ.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

namespace {

__global__ void contraction_forms(const float* a, const float* b, const float* c, float* one_expression,
                                  float* compound, float* two_statements) {
  const int i = static_cast<int>(threadIdx.x);
  one_expression[i] = a[i] * b[i] + c[i];
  float acc = c[i];
  acc += a[i] * b[i];
  compound[i] = acc;
  const float product = a[i] * b[i];
  two_statements[i] = product + c[i];
}

template <class T>
T* upload(const std::vector<T>& v) {
  T* p = nullptr;
  REQUIRE(hipMalloc(&p, v.size() * sizeof(T)) == hipSuccess);
  REQUIRE(hipMemcpy(p, v.data(), v.size() * sizeof(T), hipMemcpyHostToDevice) == hipSuccess);
  return p;
}

std::vector<float> download(const float* p, int n) {
  std::vector<float> v(n);
  REQUIRE(hipMemcpy(v.data(), p, n * sizeof(float), hipMemcpyDeviceToHost) == hipSuccess);
  return v;
}

}  // namespace

TEST_CASE("emulated kernels fuse a * b + c exactly where the device code does", "[emu]") {
  constexpr int n = 64;
  // a = 1 + (2i + 1) 2^-12, b = 1 + (2i + 3) 2^-12: the exact product has an odd multiple of
  // 2^-24 and needs 25 bits; c takes the product rounded to fp32 away (or that and a little more),
  // leaving the fused result the rounding error and the unfused one 0 (or the little more).
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) {
    a[i] = 1.0f + static_cast<float>(2 * i + 1) * 0x1p-12f;
    b[i] = 1.0f + static_cast<float>(2 * i + 3) * 0x1p-12f;
    c[i] = -static_cast<float>(static_cast<double>(a[i]) * b[i]) * (i % 2 ? 1.0f : 1.0f + 0x1p-20f);
  }
  float *d_a = upload(a), *d_b = upload(b), *d_c = upload(c), *d_out = nullptr;
  REQUIRE(hipMalloc(&d_out, 3 * n * sizeof(float)) == hipSuccess);
  hipLaunchKernelGGL(contraction_forms, dim3(1), dim3(n), 0, nullptr, d_a, d_b, d_c, d_out, d_out + n, d_out + 2 * n);
  REQUIRE(hipGetLastError() == hipSuccess);
  const auto one = download(d_out, n), compound = download(d_out + n, n), two = download(d_out + 2 * n, n);
  int fused_differs = 0;
  for (int i = 0; i < n; ++i) {
    INFO("lane " << i << ": a " << a[i] << " b " << b[i] << " c " << c[i]);
    const float fused = std::fma(a[i], b[i], c[i]);
    const float rounded_product = static_cast<float>(static_cast<double>(a[i]) * b[i]);
    const float unfused = static_cast<float>(static_cast<double>(rounded_product) + c[i]);  // exact sum, one rounding
    fused_differs += fused != unfused;
    CHECK(one[i] == fused);
    CHECK(compound[i] == fused);
    CHECK(two[i] == unfused);
  }
  CHECK(fused_differs == n);  // the inputs tell the two apart
  hipFree(d_a), hipFree(d_b), hipFree(d_c), hipFree(d_out);
}

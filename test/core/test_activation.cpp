// core/activation.hpp: the activations and gated forms at values with known results, their
// NaN and clamp behaviour, and the gated forms' order of operations.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "wavekit/core/activation.hpp"

using namespace wavekit;

TEST_CASE("activation: the elementwise functions at known values", "[unit][activation]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(activate<activation::identity>(-3.5f) == -3.5f);
  CHECK(activate<activation::relu>(-2.0f) == 0.0f);
  CHECK(activate<activation::relu>(2.0f) == 2.0f);
  CHECK(std::isnan(activate<activation::relu>(nan)));  // torch.relu keeps NaN
  CHECK(activate<activation::silu>(1.0f) == Approx(0.7310585786).epsilon(1e-6));
  // GELU(1) = Phi(1) = 0.841344746; the tanh form 0.841191990.
  CHECK(activate<activation::gelu_erf>(1.0f) == Approx(0.8413447461).epsilon(1e-6));
  CHECK(activate<activation::gelu_tanh>(1.0f) == Approx(0.8411919906).epsilon(1e-6));
  CHECK(activate<activation::gelu_erf>(-10.0f) == Approx(0.0).margin(1e-20));
  CHECK(activate<activation::gelu_tanh>(10.0f) == 10.0f);
  CHECK(to_string(activation::gelu_tanh) == "gelu_tanh");
}

TEST_CASE("activation: the gated forms clamp as gpt-oss does and keep NaN", "[unit][activation]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(gate_silu{}(2.0f, 3.0f) == silu_times(2.0f, 3.0f));
  const gate_swiglu_clamped g{1.702f, 7.0f};
  // Inside the limits: (g s) (u + 1), s = 1 / (1 + e^(-alpha g)), in that order.
  const float s = 1.0f / (1.0f + std::exp(-1.702f * 1.5f));
  CHECK(g(1.5f, -0.25f) == (1.5f * s) * (-0.25f + 1.0f));
  // The gate is clamped from above only, the linear part on both sides.
  CHECK(g(9.0f, 0.0f) == g(7.0f, 0.0f));
  CHECK(g(-9.0f, 0.0f) != g(-7.0f, 0.0f));
  CHECK(g(2.0f, 100.0f) == g(2.0f, 7.0f));
  CHECK(g(2.0f, -100.0f) == g(2.0f, -7.0f));
  CHECK(std::isnan(g(nan, 1.0f)));
  CHECK(std::isnan(g(1.0f, nan)));
}

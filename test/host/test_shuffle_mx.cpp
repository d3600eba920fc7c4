// host/shuffle_mx.hpp (and core/mx_shuffle.hpp's offsets, which the device reads by) against the
// definitions of amd-mxfp4-mm's layouts written out as their view-and-permute: shuffle_weight's
// view (N/16, 16, Kb/32, 2, 16) permuted (0, 2, 3, 1, 4), and e8m0_shuffle's zero padding to
// (ceil(rows / 256) 256, ceil(cols / 8) 8) then view (sm/32, 2, 16, sn/8, 2, 4) permuted
// (0, 3, 5, 2, 4, 1). Each output position is filled by walking the permuted index space in order.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "wavekit/host/shuffle_mx.hpp"

using namespace wavekit;

TEST_CASE("shuffle_mx: shuffle_weight_16x16 is the view (N/16, 16, Kb/32, 2, 16) permuted (0, 2, 3, 1, 4)",
          "[unit][mx]") {
  for (const auto& [n, kb] : {std::pair{16, 32}, std::pair{48, 96}, std::pair{32, 3584}}) {
    std::vector<std::uint8_t> b(std::size_t(n) * kb);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::uint8_t>(i * 7 + i / 251);
    std::vector<std::uint8_t> want;
    for (int a = 0; a < n / 16; ++a)      // dim 0
      for (int c = 0; c < kb / 32; ++c)   // dim 2
        for (int d = 0; d < 2; ++d)       // dim 3
          for (int r = 0; r < 16; ++r)    // dim 1
            for (int e = 0; e < 16; ++e)  // dim 4
              want.push_back(b[std::size_t(a * 16 + r) * kb + c * 32 + d * 16 + e]);
    CHECK(host::shuffle_weight_16x16(std::span<const std::uint8_t>(b), n, kb) == want);
  }
  CHECK_THROWS(host::shuffle_weight_16x16(std::span<const std::uint8_t>(std::vector<std::uint8_t>(20 * 32)), 20, 32));
}

TEST_CASE("shuffle_mx: e8m0_shuffle pads and is the view (sm/32, 2, 16, sn/8, 2, 4) permuted (0, 3, 5, 2, 4, 1)",
          "[unit][mx]") {
  for (const auto& [rows, cols] : {std::pair{16, 8}, std::pair{300, 20}, std::pair{256, 224}}) {
    std::vector<e8m0> s(std::size_t(rows) * cols);
    for (std::size_t i = 0; i < s.size(); ++i) s[i] = e8m0::from_bits(1 + i % 253);
    const int sm = (rows + 255) / 256 * 256, sn = (cols + 7) / 8 * 8;
    auto padded = [&](int r, int c) { return r < rows && c < cols ? s[std::size_t(r) * cols + c] : e8m0{0}; };
    std::vector<e8m0> want;
    for (int a = 0; a < sm / 32; ++a)      // dim 0
      for (int d = 0; d < sn / 8; ++d)     // dim 3
        for (int f = 0; f < 4; ++f)        // dim 5
          for (int c = 0; c < 16; ++c)     // dim 2
            for (int e = 0; e < 2; ++e)    // dim 4
              for (int b = 0; b < 2; ++b)  // dim 1
                want.push_back(padded(a * 32 + b * 16 + c, d * 8 + e * 4 + f));
    CHECK(host::e8m0_shuffle(std::span<const e8m0>(s), rows, cols) == want);
  }
}

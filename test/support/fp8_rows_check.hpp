// The device's fp8 rows (q and its 1x128 scales, in either storage order) against the host's
// (host/quantize_fp8_rows.hpp, k_contiguous): codes equal bit for bit, or within `steps` codes of
// the same sign where the caller allows a device library's ulp (SwiGLU's expf on a GPU); a NaN
// reference code wants any NaN (the NaN's sign bit is the converter's); scales equal bit for bit,
// or within `steps` ulps.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "wavekit/core/layout.hpp"
#include "wavekit/core/numeric_types.hpp"
#include "wavekit/core/scale_granularity.hpp"
#include "wavekit/host/quantize_fp8_rows.hpp"

namespace wavekit::test {

struct fp8_rows_diff {
  long codes = 0, scales = 0;
  std::string first;  // the first mismatch, for the failure message
  bool ok() const { return codes == 0 && scales == 0; }
};

template <class Fp8>
fp8_rows_diff compare_fp8_rows(const host::fp8_rows<Fp8>& ref, const std::vector<Fp8>& q,
                               const std::vector<float>& scales, layout order, int steps = 0) {
  fp8_rows_diff d;
  auto note = [&](const std::string& what) {
    if (d.first.empty()) d.first = what;
  };
  for (int r = 0; r < ref.rows; ++r)
    for (int c = 0; c < ref.cols; ++c) {
      const Fp8 want = ref.q[std::size_t(r) * ref.cols + c], got = q[ref.q_at(r, c, order)];
      const bool want_nan = std::isnan(to_float(want)), got_nan = std::isnan(to_float(got));
      const int delta = std::abs(int(want.bits) - int(got.bits));
      const bool same_sign = (want.bits & 0x80) == (got.bits & 0x80) || to_float(want) == 0 || to_float(got) == 0;
      if (want_nan ? got_nan : !got_nan && (delta == 0 || (same_sign && delta <= steps))) continue;
      ++d.codes;
      std::ostringstream s;
      s << "q(" << r << ", " << c << ") is 0x" << std::hex << int(got.bits) << ", the reference 0x" << int(want.bits);
      note(s.str());
    }
  for (int r = 0; r < ref.rows && !ref.scales.empty(); ++r)
    for (int g = 0; g < ref.cols / 128; ++g) {
      const float want = ref.scales[std::size_t(r) * (ref.cols / 128) + g],
                  got = scales[ref.scale_at(r, g * 128, order)];
      std::int32_t a, b;
      std::memcpy(&a, &want, 4), std::memcpy(&b, &got, 4);
      if (std::abs(static_cast<long>(a) - b) <= steps) continue;
      ++d.scales;
      std::ostringstream s;
      s << "scale(" << r << ", group " << g << ") is " << got << ", the reference " << want;
      note(s.str());
    }
  return d;
}

}  // namespace wavekit::test

// Host reference of the merge of split partials by their log-sum-exp (block/lse_merge.hpp states
// it), in double: the merged LSE (-inf when every split saw no row), the merged values and, for
// bounds, their magnitudes sum_s w_s |o_s|.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace wavekit::host {

struct lse_merge_result {
  double lse;
  std::vector<double> out, magnitude;  // [values]

  // How far a merge in fp32 may be from value c, for `splits` splits and an output rounded with
  // relative error `rounding` (0 for fp32, 2^-8 for bf16): a weight e^(lse_s - lse) carries the
  // roundings of lse_s - lse, whose size grows with |lse| (an ulp of 85 is 2^-17), and of expf;
  // then the sum's roundings and the output's.
  double bound(int c, int splits, double rounding) const {
    const double weight_error = (std::isinf(lse) ? 0.0 : 2 * std::fabs(lse)) * 0x1p-23 + 8 * 0x1p-23;
    return (weight_error + splits * 0x1p-23) * magnitude[c] + rounding * std::fabs(out[c]) + 1e-30;
  }
};

// partial_out: splits x values (row-major), partial_lse: splits.
inline lse_merge_result reference_lse_merge(const float* partial_out, const float* partial_lse, int splits,
                                            int values) {
  double m = -std::numeric_limits<double>::infinity();
  for (int s = 0; s < splits; ++s) m = std::max(m, double(partial_lse[s]));
  lse_merge_result r{m, std::vector<double>(values, 0.0), std::vector<double>(values, 0.0)};
  if (std::isinf(m)) return r;
  double sum = 0;
  for (int s = 0; s < splits; ++s) sum += std::exp(partial_lse[s] - m);
  r.lse = m + std::log(sum);
  for (int s = 0; s < splits; ++s) {
    if (std::isinf(partial_lse[s])) continue;
    const double w = std::exp(partial_lse[s] - r.lse);
    for (int c = 0; c < values; ++c) {
      const double v = partial_out[std::size_t(s) * values + c];
      r.out[c] += w * v, r.magnitude[c] += w * std::fabs(v);
    }
  }
  return r;
}

}  // namespace wavekit::host

// A row-wise op's tensor as a view (rmsnorm_quant, swiglu_quant): `rows` rows of `width` elements,
// `stride` elements apart, so that a caller passes rows of a wider buffer (a fused projection's
// [gate | up] output with padding, a residual stream with room for more columns) without a copy.
//
//   element (r, c) at r * stride + c        stride 0: packed (stride = width)
//
// The rules (check_row_view, called by the ops' validate_shape): a stride is 0 or at least the width;
// below 2^31; a multiple of the op's vector width in elements (every row starts as aligned as the
// pointer); and the view's extent, (rows - 1) * stride + width elements, within 2^31 - 1 bytes, since
// the kernels address it with 32-bit buffer offsets. The arithmetic is 64-bit throughout.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "wavekit/core/lazy_text.hpp"
#include "wavekit/core/platform.hpp"
#include "wavekit/core/status.hpp"

namespace wavekit {

// Elements of a view of `rows` rows of `cols`, rows `ld` apart (from the first element to one past
// the last row's last): host validation (64-bit strides) and kernels (int) alike.
template <class Int>
WAVEKIT_HOST_DEVICE WAVEKIT_FORCEINLINE constexpr std::int64_t view_extent(Int rows, Int cols, Int ld) {
  return rows > 0 ? static_cast<std::int64_t>(rows - 1) * ld + cols : 0;
}

struct row_view {
  const char* tensor;   // as the op's arguments name it ("x"); its stride is the problem's `<tensor>_stride`
  std::int64_t stride;  // elements between rows as the caller gave it; 0: packed
  std::int64_t rows, width;
  const char *rows_name, *width_name;  // the problem's names for them ("tokens", "hidden")
  int element_bytes;
  int align;        // elements every stride is a multiple of
  const char* why;  // what needs that alignment ("16-byte vector loads")

  std::int64_t ld() const { return stride ? stride : width; }
  std::int64_t extent() const { return view_extent(rows, width, ld()); }  // elements
};

// " x_stride 7296" for a strided view, nothing for a packed one (a problem's str()).
inline std::string to_string(const row_view& v) {
  return v.stride ? " " + std::string(v.tensor) + "_stride " + std::to_string(v.stride) : std::string();
}

// One row stride's rules, every strided tensor's (row views here, a GEMM's lda / ldb / ldc in
// core/gemm_view.hpp): 0 (packed) or at least `least` (the row's width, `least_name` in the
// problem), below 2^31, a multiple of `align` elements (`why`). `what` names the op and the
// problem, `field` the stride.
inline status check_row_stride(text_ref what, std::string_view field, std::int64_t stride, std::int64_t least,
                               const char* least_name, int align, const char* why) {
  constexpr std::int64_t limit = std::numeric_limits<std::int32_t>::max();
  if (stride == 0) return status::success();
  if (stride < least)
    return {status_code::bad_shape, what + field + " (" + std::to_string(stride) + ") must be 0 (packed) or at least " +
                                        least_name + " (" + std::to_string(least) + ")"};
  if (stride > limit)
    return {status_code::too_large,
            what + field + " (" + std::to_string(stride) + ") must be below 2^31 (32-bit buffer offsets)"};
  if (stride % align)
    return {status_code::bad_alignment, what + field + " (" + std::to_string(stride) + ") must be a multiple of " +
                                            std::to_string(align) + " elements (" + why + ")"};
  return status::success();
}

// `what` names the op and the problem; each status names the stride's field and the rule.
inline status check_row_view(text_ref what, const row_view& v) {
  constexpr std::int64_t limit = std::numeric_limits<std::int32_t>::max();
  const auto field = [&] { return std::string(v.tensor) + "_stride"; };
  if (status s = check_row_stride(what, field(), v.stride, v.width, v.width_name, v.align, v.why); !s.ok()) return s;
  // rows and a stride or width below 2^32 each: the extent fits 64 bits; compared in elements.
  if (v.extent() > limit / v.element_bytes)
    return {status_code::too_large, what + v.tensor + " spans " + std::to_string(v.extent()) + " elements ((" +
                                        v.rows_name + " - 1) * " + field() + " + " + v.width_name + ", " + field() +
                                        " 0 meaning " + v.width_name + ") of " + std::to_string(v.element_bytes) +
                                        " bytes: more than 2^31 - 1 bytes (32-bit buffer offsets)"};
  return status::success();
}

}  // namespace wavekit

// A MoE layer case run over views (ops/moe/problem.hpp: x_stride, out_stride): x (or an arriving
// x_fp8) and out as rows of wider buffers, all-ones bytes between them. The result must be the
// packed run's bit for bit (the same kernels read the same values) and out's padding untouched.
#pragma once

#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

#include "wavekit/ops/moe/problem.hpp"

namespace wavekit::test {

// `rows` rows of `row_bytes` from `packed` placed `ld_bytes` apart, 0xff between.
inline std::vector<unsigned char> rows_placed(const std::vector<unsigned char>& packed, int rows, int row_bytes,
                                              std::int64_t ld_bytes) {
  std::vector<unsigned char> out(std::size_t((rows - 1) * ld_bytes + row_bytes), 0xff);
  for (int r = 0; r < rows; ++r)
    std::memcpy(&out[std::size_t(r * ld_bytes)], &packed[std::size_t(r) * row_bytes], std::size_t(row_bytes));
  return out;
}

// launch(problem, args) runs the layer; args' x (or x_fp8) and out are device tensors of t.p, packed.
// x_pad and out_pad: elements each row of the views has past hidden.
template <class Problem, class Args, class Launch>
void check_views_match_packed(const Problem& packed_problem, Args args, int x_pad, int out_pad, Launch&& launch) {
  const int tokens = packed_problem.tokens, hidden = packed_problem.hidden;
  REQUIRE(launch(packed_problem, args).ok());
  using T = std::remove_cvref_t<decltype(*args.out)>;
  const int out_row = hidden * int(sizeof(T));
  std::vector<unsigned char> packed_out(std::size_t(tokens) * out_row);
  hipMemcpy(packed_out.data(), args.out, packed_out.size(), hipMemcpyDeviceToHost);

  Problem p = packed_problem;
  p.x_stride = hidden + x_pad, p.out_stride = hidden + out_pad;
  // x, or the quantized x that arrived: its bytes a row, then placed at the stride.
  const void* x_device = nullptr;
  int x_row = 0;
  if constexpr (requires { args.x_fp8; })
    if (!args.x) x_device = args.x_fp8, x_row = hidden;
  if (!x_device) x_device = args.x, x_row = hidden * 2;
  std::vector<unsigned char> x(std::size_t(tokens) * x_row);
  hipMemcpy(x.data(), x_device, x.size(), hipMemcpyDeviceToHost);
  const std::vector<unsigned char> x_view = rows_placed(x, tokens, x_row, p.x_stride * (x_row / hidden));
  void *d_x = nullptr, *d_out = nullptr;
  const std::size_t out_bytes = std::size_t((tokens - 1) * p.out_stride + hidden) * sizeof(T);
  hipMalloc(&d_x, x_view.size()), hipMalloc(&d_out, out_bytes);
  hipMemcpy(d_x, x_view.data(), x_view.size(), hipMemcpyHostToDevice);
  hipMemset(d_out, 0xff, out_bytes);
  if (x_device == static_cast<const void*>(args.x))
    args.x = static_cast<decltype(args.x)>(d_x);
  else if constexpr (requires { args.x_fp8; })
    args.x_fp8 = static_cast<decltype(args.x_fp8)>(d_x);
  args.out = static_cast<T*>(d_out);
  const status s = launch(p, args);
  INFO(p.str() << ": " << s.message());
  REQUIRE(s.ok());
  std::vector<unsigned char> got(out_bytes);
  hipMemcpy(got.data(), d_out, out_bytes, hipMemcpyDeviceToHost);
  CHECK(got == rows_placed(packed_out, tokens, out_row, p.out_stride * std::int64_t(sizeof(T))));
  hipFree(d_x), hipFree(d_out);
}

}  // namespace wavekit::test

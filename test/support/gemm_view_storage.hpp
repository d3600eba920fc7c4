// A GEMM test's tensors over a problem's views and batch (core/gemm_view.hpp): operands allocated
// over the whole batch's views with a filler (NaN: a kernel that reads outside a view makes a NaN
// result), their values in a plain [batch][rows][K] copy for the reference, and C's places (so a
// check can also find elements outside the views that changed).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "wavekit/core/float_codec.hpp"
#include "wavekit/core/gemm_view.hpp"
#include "wavekit/host/reference_gemm.hpp"

namespace wavekit::test {

template <class T>
struct viewed_operand {
  std::vector<T> stored;  // the allocation: every GEMM's view, `filler` between them
  std::vector<float> x;   // [batch][rows][K]: the values as stored
};

// An operand of `rows` rows of K (A: M, B: N) for problem p: rows `ld` apart in p's order, GEMM g's
// at g * stride; draw() gives each value (once for a shared operand: stride 0).
template <class T, class Problem, class Draw>
viewed_operand<T> viewed_operand_of(const Problem& p, int rows, std::int64_t ld, std::int64_t extent,
                                    std::int64_t stride, T filler, Draw&& draw) {
  const int batch = p.batch.count;
  viewed_operand<T> op;
  op.stored.assign(std::size_t((batch - 1) * stride + extent), filler);
  op.x.resize(std::size_t(batch) * rows * p.k);
  const bool kc = p.order == layout::k_contiguous;
  for (int g = 0; g < batch; ++g)
    for (int r = 0; r < rows; ++r)
      for (int kk = 0; kk < p.k; ++kk) {
        T& v = op.stored[std::size_t(g * stride + (kc ? std::int64_t(r) * ld + kk : std::int64_t(kk) * ld + r))];
        if (stride != 0 || g == 0) v = draw();
        op.x[(std::size_t(g) * rows + r) * p.k + kk] = to_float(v);
      }
  return op;
}

// GEMM g's exact products and the sums of their magnitudes ([M][N] each, the bounds' inputs), from
// the stored values xa, xb ([batch][M or N][K]).
struct reference_products {
  std::vector<double> dot, abs_sum;
};
template <class Problem>
reference_products reference_products_of(const Problem& p, const std::vector<float>& xa, const std::vector<float>& xb,
                                         int g) {
  const float* a = xa.data() + std::size_t(g) * p.m * p.k;
  const float* b = xb.data() + std::size_t(g) * p.n * p.k;
  auto at_a = [&](int i, int k) { return double(a[std::size_t(i) * p.k + k]); };
  auto at_b = [&](int j, int k) { return double(b[std::size_t(j) * p.k + k]); };
  return {host::reference_gemm_nt(p.m, p.n, p.k, at_a, at_b),
          host::reference_gemm_nt(
              p.m, p.n, p.k, [&](int i, int k) { return std::fabs(at_a(i, k)); },
              [&](int j, int k) { return std::fabs(at_b(j, k)); })};
}

// C's place of output (g, i, j) of problem p (its GEMM, row and column), in elements.
template <class Problem>
std::size_t c_place(const Problem& p, const gemm_views& v, int g, int i, int j) {
  return std::size_t(g * p.batch.c + std::int64_t(i) * v.ldc + j);
}

// GEMM g's operand of `rows` rows of K (A: M, B: N) from its view in `stored` (rows `ld` apart in
// p's order, GEMMs `stride` apart), packed in p's order: the input of the same GEMM run alone.
template <class T, class Problem>
std::vector<T> packed_operand_of(const Problem& p, const std::vector<T>& stored, int rows, std::int64_t ld,
                                 std::int64_t stride, int g) {
  const bool kc = p.order == layout::k_contiguous;
  std::vector<T> packed(std::size_t(rows) * p.k);
  for (int r = 0; r < rows; ++r)
    for (int kk = 0; kk < p.k; ++kk)
      packed[kc ? std::size_t(r) * p.k + kk : std::size_t(kk) * rows + r] =
          stored[std::size_t(g * stride + (kc ? std::int64_t(r) * ld + kk : std::int64_t(kk) * ld + r))];
  return packed;
}

// Outputs of GEMM g in c (over p's views) whose bytes differ from `one`, the same GEMM run alone
// into a packed [M][N].
template <class Out, class Problem>
int outputs_differing(const Problem& p, const std::vector<Out>& c, const std::vector<Out>& one, int g) {
  const gemm_views v = p.views();
  int differing = 0;
  for (int i = 0; i < p.m; ++i)
    for (int j = 0; j < p.n; ++j)
      differing += std::memcmp(&c[c_place(p, v, g, i, j)], &one[std::size_t(i) * p.n + j], sizeof(Out)) != 0;
  return differing;
}

// Elements of C (of `count`, each sizeof(Out) bytes) outside p's views whose bytes are not all 0xff
// (the test's fill before the launch).
template <class Out, class Problem>
int written_outside_views(const Problem& p, const std::vector<Out>& c) {
  const gemm_views v = p.views();
  std::vector<bool> in_view(c.size(), false);
  for (int g = 0; g < p.batch.count; ++g)
    for (int i = 0; i < p.m; ++i)
      for (int j = 0; j < p.n; ++j) in_view[c_place(p, v, g, i, j)] = true;
  int written = 0;
  for (std::size_t e = 0; e < c.size(); ++e) {
    unsigned char bytes[sizeof(Out)];
    std::memcpy(bytes, &c[e], sizeof(Out));
    bool untouched = true;
    for (unsigned char b : bytes) untouched = untouched && b == 0xff;
    written += !in_view[e] && !untouched;
  }
  return written;
}

}  // namespace wavekit::test

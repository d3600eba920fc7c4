// A row-wise op's tensor over its view (core/row_view.hpp) for a test: rows `ld` apart in an
// allocation of rows * ld elements, a filler between the rows and after the last (NaN for an input:
// a kernel that reads outside the view makes a NaN result; a marker for an output: a kernel that
// writes outside it changes one), the values gathered back into a packed copy for the reference.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "wavekit/core/row_view.hpp"

namespace wavekit::test {

// packed: rows x width values, row after row.
template <class T>
std::vector<T> rows_stored(const std::vector<T>& packed, const row_view& v, T filler) {
  const std::int64_t ld = v.ld();
  std::vector<T> stored(std::size_t(v.rows * ld), filler);
  for (std::int64_t r = 0; r < v.rows; ++r)
    std::memcpy(&stored[std::size_t(r * ld)], &packed[std::size_t(r * v.width)], std::size_t(v.width) * sizeof(T));
  return stored;
}

template <class T>
std::vector<T> rows_gathered(const std::vector<T>& stored, const row_view& v) {
  const std::int64_t ld = v.ld();
  std::vector<T> packed(std::size_t(v.rows * v.width));
  for (std::int64_t r = 0; r < v.rows; ++r)
    std::memcpy(&packed[std::size_t(r * v.width)], &stored[std::size_t(r * ld)], std::size_t(v.width) * sizeof(T));
  return packed;
}

// Elements outside the view whose bytes differ from filler's.
template <class T>
long changed_outside_view(const std::vector<T>& stored, const row_view& v, T filler) {
  const std::int64_t ld = v.ld();
  long changed = 0;
  for (std::size_t e = 0; e < stored.size(); ++e)
    if (std::int64_t(e) % ld >= v.width) changed += std::memcmp(&stored[e], &filler, sizeof(T)) != 0;
  return changed;
}

}  // namespace wavekit::test

// The contracts between tile/ and the pipelines that compose it, as concepts, so that a wrong
// composition fails where the parts meet rather than deep inside an instantiation.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <concepts>
#include <cstdint>

#include "wavekit/arch/buffer.hpp"

namespace wavekit::tile {

// An LDS tile layout: where byte k of row `row` lives, and whether a loader may pair rows 4 apart
// in one ds_write2 (lds_swizzled_rows documents when).
template <class L>
concept lds_layout = requires(int row, int k) {
  { L::offset(row, k) } -> std::same_as<int>;
  { L::rows_4_apart_share_swizzle } -> std::convertible_to<bool>;
};

// What a loader reads from: one buffer, or the type it names as `source` (a pair of buffers for
// tile_loader_pair.hpp's two-operand tile).
template <class T>
struct loader_source {
  using type = arch::buffer;
};
template <class T>
  requires requires { typename T::source; }
struct loader_source<T> {
  using type = typename T::source;
};
template <class T>
using loader_source_t = typename loader_source<T>::type;

// A global -> LDS tile loader, in the steps a software pipeline interleaves with compute:
// locate(row0, rows_total, ld, tid) once, then per K step load(src, ld, k0) into registers,
// wait_for_loads() (one wait for them) and store(lds, tid) into its layout. work_items is the
// number of work items of the whole tile (a pipeline offsets a second loader's threads by it).
// gathers_rows: whether it also has locate_rows(rows, row0, rows_valid, ld, tid), the row-gather
// form (tile row r from tensor row rows[row0 + r]). src is loader_source_t<T>.
template <class T>
concept tile_loader = lds_layout<typename T::layout> &&
                      requires(T loader, const T& loaded, const loader_source_t<T>& src, unsigned char* lds, int i) {
                        { T::work_items } -> std::convertible_to<int>;
                        { T::gathers_rows } -> std::convertible_to<bool>;
                        loader.locate(i, i, i, i);
                        loader.load(src, i, i);
                        loader.wait_for_loads();
                        loaded.store(lds, i);
                      };

}  // namespace wavekit::tile

// tile/: the swizzled LDS layout and the two global -> LDS loaders, on their own. A kernel loads a
// tile (with ragged edges past the tensor's rows) into LDS and writes it back out through
// lds_swizzled_rows::offset; the result must be the tensor's tile with zeros past the edge.
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cstdint>
#include <set>
#include <vector>

#include "wavekit/arch/lds.hpp"
#include "wavekit/tile/tile_loader_k_contiguous.hpp"
#include "wavekit/tile/tile_loader_mn_contiguous.hpp"

using namespace wavekit;

TEMPLATE_TEST_CASE_SIG("lds_swizzled_rows maps every (row, K byte) of a tile to its own byte, chunks intact",
                       "[emu][tile]", ((int BK, int SwapRows), BK, SwapRows), (64, 4), (64, 8), (64, 16), (128, 16)) {
  using layout = tile::lds_swizzled_rows<BK, SwapRows>;
  constexpr int rows = 256;
  std::set<int> seen;
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < BK; ++k) {
      const int at = layout::offset(r, k);
      CHECK(at >= 0);
      CHECK(at < rows * BK);
      CHECK(seen.insert(at).second);
      if (k % 16) CHECK(at == layout::offset(r, k - k % 16) + k % 16);  // 16-byte chunks stay whole
      // What the transposing loader's paired stores rely on.
      if (layout::rows_4_apart_share_swizzle && r % 8 < 4) CHECK(layout::offset(r + 4, k) == at + 4 * BK);
    }
}

namespace {

struct layout_without_pairing {  // an LDS layout that does not say whether rows may be paired
  static constexpr int offset(int row, int k) { return row * 64 + k; }
};
struct loader_without_wait {  // a loader missing wait_for_loads()
  using layout = tile::lds_swizzled_rows<64>;
  static constexpr int work_items = 1;
  void locate(int, int, int, int) {}
  void load(const arch::buffer&, int, int) {}
  void store(unsigned char*, int) const {}
};

}  // namespace

TEST_CASE("tile concepts accept wavekit's layouts and loaders and reject incomplete ones", "[tile]") {
  STATIC_REQUIRE(tile::lds_layout<tile::lds_swizzled_rows<64, 8>>);
  STATIC_REQUIRE(tile::tile_loader<tile::tile_loader_mn_contiguous<128, 64, 512>>);
  STATIC_REQUIRE(tile::tile_loader<tile::tile_loader_k_contiguous<16, 128, 256>>);
  STATIC_REQUIRE_FALSE(tile::lds_layout<layout_without_pairing>);
  STATIC_REQUIRE_FALSE(tile::tile_loader<loader_without_wait>);
  STATIC_REQUIRE_FALSE(tile::tile_loader<int>);
}

namespace {

template <class Loader, int Rows, int BK>
__global__ void round_trip(const std::uint8_t* src, int rows_total, int ld, int row0, int k0, int skip,
                           std::uint8_t* out) {
  WAVEKIT_LDS_ARRAY(arch::u32x4, lds, Rows * BK / 16);
  auto* bytes = reinterpret_cast<unsigned char*>(lds);
  const int tid = static_cast<int>(threadIdx.x);
  const arch::buffer buf = arch::buffer::over(src, static_cast<std::uint32_t>(rows_total * 384));
  Loader loader;
  loader.locate(row0, rows_total, ld, tid);
  if (skip > 0)
    loader.load_skipping(buf, ld, skip, tid);
  else
    loader.load(buf, ld, k0);
  loader.store(bytes, tid);
  __syncthreads();
  for (int i = tid; i < Rows * BK; i += static_cast<int>(blockDim.x))
    out[i] = bytes[Loader::layout::offset(i / BK, i % BK)];
}

// A tile of Rows rows and BK bytes of K of E-byte elements, from a tensor of 48 rows (32 of them
// from the tile's first row on) and 384 bytes of K per row; with skip > 0, the step at K = -skip.
template <bool KContiguous, int Rows, int BK, int Threads, int E = 1>
void check_loader(int skip = 0) {
  INFO((KContiguous ? "k_contiguous" : "mn_contiguous")
       << " rows " << Rows << " BK " << BK << " threads " << Threads << " element bytes " << E << " skip " << skip);
  using loader = std::conditional_t<KContiguous, tile::tile_loader_k_contiguous<Rows, BK, Threads, 8 * E>,
                                    tile::tile_loader_mn_contiguous<Rows, BK, Threads, 8 * E>>;
  const int rows_total = 48, k_bytes = 384, k_elems = k_bytes / E, row0 = 16, k0 = skip > 0 ? -skip : 128 / E;
  std::uint8_t *src, *out;
  hipMallocManaged(&src, rows_total * k_bytes), hipMallocManaged(&out, Rows * BK);
  // Byte b of element (row, k) = value(row, k * E + b), stored K-contiguous or row-contiguous.
  auto value = [](int row, int kb) { return static_cast<std::uint8_t>((row * 7 + kb * 13) % 251 + 1); };
  for (int r = 0; r < rows_total; ++r)
    for (int k = 0; k < k_elems; ++k)
      for (int b = 0; b < E; ++b)
        src[(KContiguous ? r * k_elems + k : k * rows_total + r) * E + b] = value(r, k * E + b);
  hipLaunchKernelGGL((round_trip<loader, Rows, BK>), dim3(1), dim3(Threads), 0, nullptr, src, rows_total,
                     KContiguous ? k_elems : rows_total, row0, k0, skip, out);
  REQUIRE(hipGetLastError() == hipSuccess);
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
#if defined(WAVEKIT_EMULATOR)
  CHECK(emu::last_launch_counters().lds_bank_conflict_cycles == 0);
#endif
  int bad = 0;
  for (int r = 0; r < Rows; ++r)
    for (int kb = 0; kb < BK; ++kb) {
      const int k = k0 + kb / E;  // the element's K
      const std::uint8_t want = row0 + r < rows_total && k >= 0 ? value(row0 + r, k * E + kb % E) : 0;
      if (out[r * BK + kb] != want && bad++ < 3)
        FAIL_CHECK("row " << r << " K byte " << kb << ": " << int(out[r * BK + kb]) << ", want " << int(want));
    }
  CHECK(bad == 0);
  hipFree(src), hipFree(out);
}

}  // namespace

TEST_CASE("tile loaders copy a tile into the swizzled layout, zeros past the last row", "[emu][tile]") {
  check_loader<true, 64, 128, 256>();
  check_loader<true, 64, 64, 128>();
  check_loader<true, 16, 128, 256>();    // fewer chunks than threads: masked stores
  check_loader<false, 64, 128, 256>();   // 8 rows a unit
  check_loader<false, 64, 64, 64>();     // 16 rows a unit
  check_loader<false, 16, 128, 256>();   // 4 rows a unit, fewer units than threads: masked stores
  check_loader<false, 256, 64, 512>();   // the large tile's A (8 rows a unit, paired stores on gfx942)
  check_loader<false, 128, 64, 512>();   // and its B (4 rows a unit)
  check_loader<false, 128, 128, 128>();  // 16 rows a unit, two units a thread
}

TEST_CASE("tile loaders of 2-byte elements: K-contiguous and transposing", "[emu][tile]") {
  check_loader<true, 64, 128, 256, 2>();
  check_loader<true, 64, 64, 128, 2>();
  check_loader<false, 64, 128, 256, 2>();  // 8 rows a unit (one 16-byte load per K row)
  check_loader<false, 64, 64, 64, 2>();    // 8 rows a unit (the most for 2-byte elements)
  check_loader<false, 16, 128, 256, 2>();  // 4 rows a unit, masked stores
  check_loader<false, 128, 64, 256, 2>();  // 8 rows a unit, paired stores on gfx942
}

namespace {

// The row-gather form: tile row r is tensor row rows[r] (a permutation with repeats), rows past
// rows_valid read 0. Elements of Bits bits (4: packed fp4); the tile starts 64 bytes into K.
template <int Rows, int BK, int Threads, int Bits>
__global__ void gather(const std::uint8_t* src, const int* rows, int rows_valid, int ld, int k0, std::uint8_t* out) {
  using loader = tile::tile_loader_k_contiguous<Rows, BK, Threads, Bits>;
  WAVEKIT_LDS_ARRAY(arch::u32x4, lds, Rows * BK / 16);
  auto* bytes = reinterpret_cast<unsigned char*>(lds);
  const int tid = static_cast<int>(threadIdx.x);
  const arch::buffer buf = arch::buffer::over(src, static_cast<std::uint32_t>(48 * 384));
  loader l;
  l.locate_rows(rows, 0, rows_valid, ld, tid);
  l.load(buf, ld, k0);
  l.store(bytes, tid);
  __syncthreads();
  for (int i = tid; i < Rows * BK; i += static_cast<int>(blockDim.x))
    out[i] = bytes[loader::layout::offset(i / BK, i % BK)];
}

template <int Rows, int BK, int Threads, int Bits>
void check_gather(int rows_valid) {
  INFO("gather rows " << Rows << " BK " << BK << " element bits " << Bits << " valid " << rows_valid);
  std::uint8_t *src, *out;
  int* rows;
  hipMallocManaged(&src, 48 * 384), hipMallocManaged(&out, Rows * BK), hipMallocManaged(&rows, Rows * sizeof(int));
  for (int i = 0; i < 48 * 384; ++i) src[i] = static_cast<std::uint8_t>((i * 7 + i / 384 * 13) % 251 + 1);
  for (int r = 0; r < Rows; ++r) rows[r] = (r * 29 + 5) % 48;  // scattered, with repeats when Rows > 48
  const int per_byte_x2 = 16 / Bits;                           // elements per 2 bytes
  hipLaunchKernelGGL((gather<Rows, BK, Threads, Bits>), dim3(1), dim3(Threads), 0, nullptr, src, rows, rows_valid,
                     384 * per_byte_x2 / 2, 64 * per_byte_x2 / 2, out);
  REQUIRE(hipGetLastError() == hipSuccess);
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
#if defined(WAVEKIT_EMULATOR)
  CHECK(emu::last_launch_counters().lds_bank_conflict_cycles == 0);
#endif
  int bad = 0;
  for (int r = 0; r < Rows; ++r)
    for (int kb = 0; kb < BK; ++kb) {
      const std::uint8_t want = r < rows_valid ? src[rows[r] * 384 + 64 + kb] : 0;
      if (out[r * BK + kb] != want && bad++ < 3) FAIL_CHECK("row " << r << " K byte " << kb);
    }
  CHECK(bad == 0);
  hipFree(src), hipFree(out), hipFree(rows);
}

}  // namespace

TEST_CASE("tile loaders: the row-gather form reads each tile row from its index", "[emu][tile]") {
  check_gather<64, 128, 256, 8>(64);
  check_gather<64, 128, 256, 8>(37);  // the last rows of a group past its tokens
  check_gather<32, 64, 128, 16>(32);
  check_gather<16, 128, 256, 16>(5);
  check_gather<64, 64, 128, 4>(50);  // packed fp4: 128 elements a 64-byte row
}

TEST_CASE("tile loaders: the first step of a ragged K reads its skipped elements as 0", "[emu][tile]") {
  check_loader<true, 64, 128, 256>(16);
  check_loader<true, 64, 64, 128>(48);
  check_loader<true, 64, 128, 256, 2>(8);
  check_loader<true, 64, 64, 128, 2>(24);
  check_loader<false, 64, 128, 256>(36);
  check_loader<false, 64, 64, 64>(4);
  check_loader<false, 64, 128, 256, 2>(16);
  check_loader<false, 128, 64, 256, 2>(2);
}

namespace {

// Every (row, K byte) of a tile, placed by offset() and read back by at(): the layout's inverse,
// which the direct fill (tile/lds_direct_fill.hpp) fetches each LDS address's bytes by.
template <class L, int RowBytes>
int inverse_mismatches(int rows) {
  int bad = 0;
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < RowBytes; ++k) {
      const auto rk = L::at(L::offset(r, k));
      bad += rk.row != r || rk.k != k;
    }
  return bad;
}

}  // namespace

TEST_CASE("lds_swizzled_rows: at() inverts offset() for both row widths and row-pair trades", "[tile]") {
  CHECK(inverse_mismatches<tile::lds_swizzled_rows<128>, 128>(256) == 0);
  CHECK(inverse_mismatches<tile::lds_swizzled_rows<64>, 64>(256) == 0);
  CHECK(inverse_mismatches<tile::lds_swizzled_rows<64, 4>, 64>(256) == 0);
  CHECK(inverse_mismatches<tile::lds_swizzled_rows<64, 8>, 64>(256) == 0);
}

// Cross-lane operations on the emulator against the wave64 rules of docs/hardware.md
// section 3, written out independently here (source-lane formulas per operation).
#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

namespace {

constexpr int kOps = 12;

__global__ void shuffles(int* out, int width) {
  const int l = static_cast<int>(threadIdx.x);
  const int v = 100 + l;
  int* o = out + l * kOps;
  o[0] = __shfl(v, 5, width);
  o[1] = __shfl(v, l + 3, width);
  o[2] = __shfl_up(v, 3, width);
  o[3] = __shfl_down(v, 3, width);
  o[4] = __shfl_xor(v, 5, width);
  o[5] = __shfl_xor(v, 33, width);
  o[6] = __builtin_amdgcn_ds_bpermute((l * 7 + 70) * 4, v);
  o[7] = __builtin_amdgcn_readfirstlane(v);
  o[8] = __builtin_amdgcn_readlane(v, 70);  // lane selector masked to 6 bits
  o[9] = static_cast<int>(__builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u)));
  o[10] = __builtin_amdgcn_ds_permute(((l / 2) * 2) * 4, v);  // pairs send to the even lane
  const unsigned long long mask = __ballot(l % 3 == 0);
  o[11] = static_cast<int>(mask >> 32) ^ static_cast<int>(mask) ^ __any(l == 17) * 7 ^ __all(l < 64) * 11;
}

int spec_shfl(int self, int src, int w) { return (src & (w - 1)) + (self & ~(w - 1)); }
int spec_up(int self, int d, int w) { return self - d < (self & ~(w - 1)) ? self : self - d; }
int spec_down(int self, int d, int w) { return (self & (w - 1)) + d >= w ? self : self + d; }
int spec_xor(int self, int m, int w) { return (self ^ m) >= ((self + w) & ~(w - 1)) ? self : self ^ m; }

}  // namespace

TEST_CASE("shuffles, bpermute, readlane, mbcnt, permute and ballot follow the wave64 rules", "[emu][wave]") {
  int* out;
  REQUIRE(hipMalloc(&out, 64 * kOps * sizeof(int)) == hipSuccess);
  for (int width : {64, 32, 16, 8, 2}) {
    INFO("width " << width);
    hipLaunchKernelGGL(shuffles, dim3(1), dim3(64), 0, nullptr, out, width);
    REQUIRE(hipGetLastError() == hipSuccess);
    unsigned long long ballot = 0;
    for (int l = 0; l < 64; ++l)
      if (l % 3 == 0) ballot |= 1ull << l;
    for (int l = 0; l < 64; ++l) {
      INFO("lane " << l);
      const int* o = out + l * kOps;
      CHECK(o[0] == 100 + spec_shfl(l, 5, width));
      CHECK(o[1] == 100 + spec_shfl(l, l + 3, width));
      CHECK(o[2] == 100 + spec_up(l, 3, width));
      CHECK(o[3] == 100 + spec_down(l, 3, width));
      CHECK(o[4] == 100 + spec_xor(l, 5, width));
      CHECK(o[5] == 100 + spec_xor(l, 33, width));
      CHECK(o[6] == 100 + ((l * 7 + 70) & 63));
      CHECK(o[7] == 100);
      CHECK(o[8] == 100 + 6);
      CHECK(o[9] == l);
      CHECK(o[10] == (l % 2 == 0 ? 100 + l + 1 : 0));  // highest sender wins; odd lanes get nothing
      CHECK(o[11] == (int(ballot >> 32) ^ int(ballot) ^ 7 ^ 11));
    }
  }
  REQUIRE(hipFree(out) == hipSuccess);
}

namespace {

__global__ void dpp(int* out) {
  const int l = static_cast<int>(threadIdx.x);
  const int v = 100 + l, old = -1;
  int* o = out + l * 10;
  o[0] = __builtin_amdgcn_update_dpp(old, v, 0x1B, 0xF, 0xF, false);   // quad_perm:[3,2,1,0]
  o[1] = __builtin_amdgcn_update_dpp(old, v, 0x111, 0xF, 0xF, false);  // row_shr:1, keep old
  o[2] = __builtin_amdgcn_update_dpp(old, v, 0x111, 0xF, 0xF, true);   // row_shr:1, invalid reads 0
  o[3] = __builtin_amdgcn_update_dpp(old, v, 0x101, 0xF, 0xF, true);   // row_shl:1
  o[4] = __builtin_amdgcn_update_dpp(old, v, 0x124, 0xF, 0xF, false);  // row_ror:4
  o[5] = __builtin_amdgcn_update_dpp(old, v, 0x142, 0xF, 0xF, false);  // row_bcast:15
  o[6] = __builtin_amdgcn_update_dpp(old, v, 0x143, 0xF, 0xF, false);  // row_bcast:31
  o[7] = __builtin_amdgcn_update_dpp(old, v, 0x140, 0xF, 0xF, false);  // row_mirror
  o[8] = __builtin_amdgcn_update_dpp(old, v, 0x138, 0xF, 0xF, true);   // wave_shr:1
  o[9] = __builtin_amdgcn_update_dpp(old, v, 0x141, 0x5, 0x3, false);  // row_half_mirror, rows 0,2, banks 0,1
}

}  // namespace

TEST_CASE("DPP moves follow the GFX9 DPP16 controls, masks and bound_ctrl", "[emu][wave]") {
  int* out;
  REQUIRE(hipMalloc(&out, 64 * 10 * sizeof(int)) == hipSuccess);
  hipLaunchKernelGGL(dpp, dim3(1), dim3(64), 0, nullptr, out);
  REQUIRE(hipGetLastError() == hipSuccess);
  for (int l = 0; l < 64; ++l) {
    INFO("lane " << l);
    const int* o = out + l * 10;
    const int row = l / 16, r = l % 16;
    CHECK(o[0] == 100 + 4 * (l / 4) + 3 - l % 4);
    CHECK(o[1] == (r >= 1 ? 100 + l - 1 : -1));
    CHECK(o[2] == (r >= 1 ? 100 + l - 1 : 0));
    CHECK(o[3] == (r <= 14 ? 100 + l + 1 : 0));
    CHECK(o[4] == 100 + 16 * row + (r + 12) % 16);
    CHECK(o[5] == (row >= 1 ? 100 + 16 * row - 1 : -1));
    CHECK(o[6] == (l >= 32 ? 100 + 31 : -1));
    CHECK(o[7] == 100 + 16 * row + 15 - r);
    CHECK(o[8] == (l >= 1 ? 100 + l - 1 : 0));
    const bool written = (row == 0 || row == 2) && (r / 4 <= 1);
    CHECK(o[9] == (written ? 100 + 8 * (l / 8) + 7 - l % 8 : -1));
  }
  REQUIRE(hipFree(out) == hipSuccess);
}

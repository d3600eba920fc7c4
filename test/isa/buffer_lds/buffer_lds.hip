// arch/buffer_lds.hpp's device code: a two-stage pipeline of direct-to-LDS loads compiles to
// buffer_load_* ... lds with the LDS address in M0, and wait_vmcnt<N> to s_waitcnt vmcnt(N)
// before the barrier (the compiler adds no wait of its own there: the barrier does not wait for
// vmcnt). test/isa/CMakeLists.txt reads the assembly.
#include <hip/hip_runtime.h>

#include <cstdint>

#include "wavekit/arch/buffer_lds.hpp"
#include "wavekit/arch/lds.hpp"

namespace {

// Tiles 0 .. 2 pairs, tile k in stage k % 2. One barrier a step: after it, tile k has landed
// in every wave (each waited for it first) and every wave is done reading the other stage, so the
// next tile loads into that stage while this one is read. The loop names each stage's array
// where it reads it and issues its loads unconditionally (the last tile is read after the loop):
// the compiler then tells the stages apart and adds no wait before the ds_read. Through a stage
// pointer chosen at run time, or with the next load behind a branch (`if (k + 1 < tiles)`), it
// waits for every load into LDS (vmcnt(0)) before each ds_read, the next stage's included.
template <int Bytes>
__device__ void two_stages(const std::uint8_t* src, std::uint32_t num_records, int pairs, std::uint32_t* out) {
  constexpr int stride = Bytes > 4 ? 16 : Bytes, words = 256 * stride / 4;  // a stage: 4 waves, one load each
  WAVEKIT_LDS_ARRAY(std::uint32_t, stage0, words);
  WAVEKIT_LDS_ARRAY(std::uint32_t, stage1, words);
  const wavekit::arch::buffer source = wavekit::arch::buffer::over(src, num_records);
  const int tid = static_cast<int>(threadIdx.x), wave = tid / 64;
  auto issue = [&](std::uint32_t* stage, int k) {
    wavekit::arch::buffer_load_lds<Bytes>(source, reinterpret_cast<unsigned char*>(stage) + wave * 64 * stride,
                                          static_cast<std::uint32_t>((k * 256 + tid) * Bytes));
  };
  auto read = [&](const std::uint32_t* stage) { return wavekit::arch::lds_load<4>(&stage[(tid * 5) % words]); };
  std::uint32_t sum = 0;
  issue(stage0, 0);
  for (int p = 0; p < pairs; ++p) {
    wavekit::arch::wait_vmcnt<0>();  // tile 2 p, the one load in flight
    __syncthreads();
    issue(stage1, 2 * p + 1);
    sum += read(stage0);
    wavekit::arch::wait_vmcnt<0>();
    __syncthreads();
    issue(stage0, 2 * p + 2);
    sum += read(stage1);
  }
  wavekit::arch::wait_vmcnt<0>();
  __syncthreads();
  sum += read(stage0);
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

}  // namespace

extern "C" __global__ void buffer_lds_dword(const std::uint8_t* src, std::uint32_t n, int pairs, std::uint32_t* out) {
  two_stages<4>(src, n, pairs, out);
}
extern "C" __global__ void buffer_lds_ushort(const std::uint8_t* src, std::uint32_t n, int pairs, std::uint32_t* out) {
  two_stages<2>(src, n, pairs, out);
}
extern "C" __global__ void buffer_lds_ubyte(const std::uint8_t* src, std::uint32_t n, int pairs, std::uint32_t* out) {
  two_stages<1>(src, n, pairs, out);
}
#if WAVEKIT_TARGET_GFX950
extern "C" __global__ void buffer_lds_dwordx4(const std::uint8_t* src, std::uint32_t n, int pairs, std::uint32_t* out) {
  two_stages<16>(src, n, pairs, out);
}
#endif

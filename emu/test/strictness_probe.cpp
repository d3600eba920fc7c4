// Planted out-of-bounds accesses, one per mode (argv[1]); the emulator must end the process with
// a report naming the allocation. "clean" runs the same kernels in bounds and must exit 0.
// "smfmac": a sparse MFMA whose index names positions 1 and 1 for a group (undefined by the ISA).
// "buffer_past": a buffer load whose num_records (4096) covers the dword past its allocation (244
// bytes): in strict buffer mode (WAVEKIT_EMU_STRICT_BUFFERS=1) the launch fails with a report;
// otherwise the hardware's read of the allocation's slack gives 0 and the program prints it.
// "use_after_free": a kernel writes to an allocation after hipFree.
// "double_free": hipFree of a freed allocation is refused, naming it.
#include <hip/hip_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "wavekit/arch/buffer.hpp"
#include "wavekit/arch/lds.hpp"
#include "wavekit/core/vector.hpp"

// Lane 63 writes `overrun` elements past its own slot: with overrun = 1, one past the end.
__global__ void write_global(float* p, int overrun) { p[threadIdx.x + (threadIdx.x == 63 ? overrun : 0)] = 1.0f; }

__global__ void write_lds(float* out, int overrun) {
  WAVEKIT_LDS_ARRAY(float, tile, 64);
  tile[threadIdx.x + (threadIdx.x == 63 ? overrun : 0)] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = tile[63 - threadIdx.x];
}

// Every lane's index: groups of positions (0, 1), except lane 5's group 2 with (1, 1) when bad.
__global__ void sparse_index(float* out, int bad) {
  const int lane = static_cast<int>(threadIdx.x);
  const int index = 0x4444 ^ (bad && lane == 5 ? 0x100 : 0);
  const wavekit::floatx4 d = __builtin_amdgcn_smfmac_f32_16x16x64_fp8_fp8(wavekit::int32x2{}, wavekit::int32x4{},
                                                                          wavekit::floatx4{}, index, 0, 0);
  out[lane] = d[0];
}

// Lane 3 loads 16 bytes at voffset of a buffer over p with num_records bytes into out[0..3].
__global__ void buffer_read(const std::uint32_t* p, std::uint32_t num_records, std::uint32_t voffset,
                            std::uint32_t* out) {
  const auto b = wavekit::arch::buffer::over(p, num_records);
  if (threadIdx.x != 3) return;
  const wavekit::arch::u32x4 v = b.load16(voffset);
  for (int i = 0; i < 4; ++i) out[i] = v[i];
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "clean";
  const bool clean = std::strcmp(mode, "clean") == 0;
  float* p;
  hipMalloc(&p, 64 * sizeof(float));  // 256 bytes
  const int overrun = clean ? 0 : 1;
  // Buffered (stdout is a pipe under ctest): the emulator must flush it before it ends the process.
  std::printf("%s: printed before the fault\n", mode);
  if (std::strcmp(mode, "global") == 0 || clean)
    hipLaunchKernelGGL(write_global, dim3(1), dim3(64), 0, nullptr, p, overrun);
  if (std::strcmp(mode, "lds") == 0 || clean) hipLaunchKernelGGL(write_lds, dim3(1), dim3(64), 0, nullptr, p, overrun);
  if (std::strcmp(mode, "smfmac") == 0 || clean)
    hipLaunchKernelGGL(sparse_index, dim3(1), dim3(64), 0, nullptr, p, overrun);
  if (std::strcmp(mode, "buffer_past") == 0 || clean) {
    std::uint32_t *table, *out;
    hipMalloc(&table, 244), hipMalloc(&out, 16);
    hipMemset(table, 1, 244);
    // Clean: the range check's tail (dwords past num_records load 0), legal in strict mode too.
    hipLaunchKernelGGL(buffer_read, dim3(1), dim3(64), 0, nullptr, table, clean ? 244u : 4096u, clean ? 236u : 240u,
                       out);
    std::printf("%s: loaded 0x%08x 0x%08x 0x%08x 0x%08x\n", mode, out[0], out[1], out[2], out[3]);
    hipFree(table), hipFree(out);
  }
  if (std::strcmp(mode, "use_after_free") == 0) {
    float* q;
    hipMalloc(&q, 64 * sizeof(float));
    hipFree(q);
    hipLaunchKernelGGL(write_global, dim3(1), dim3(64), 0, nullptr, q, 0);
  }
  if (std::strcmp(mode, "double_free") == 0) {
    float* q;
    hipMalloc(&q, 64 * sizeof(float));
    hipFree(q);
    const hipError_t e = hipFree(q);
    std::printf("%s: %s: %s\n", mode, hipGetErrorString(e), wavekit::emu::last_error_message().c_str());
  }
  std::printf("%s: finished without a fault\n", mode);
  return hipGetLastError() == hipSuccess ? 0 : 1;
}

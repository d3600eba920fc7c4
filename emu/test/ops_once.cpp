// Every op once on the emulator, built under a sanitizer (emu/test/CMakeLists.txt builds it under
// ThreadSanitizer and under AddressSanitizer + UBSan). Under TSan the emulator's bookkeeping is not
// checked, so TSan must stay quiet, and a race it reports would be one in a kernel (race_probe
// proves planted ones are found); under ASan and UBSan nothing in the ops' host code, the emulator
// or the kernels may touch memory it does not own or compute undefined behaviour. Each call is also
// checked against its host reference where the test support has one. On gfx942: the GEMMs
// (block-scaled, direct, scaled, half), MLA decode (one split and several; lse absent), MoE routing
// and the MoE layer, RMSNorm and SwiGLU with fp8 quantization, and four host threads calling
// gemm_half at once. On gfx950: the MX ops, the MX GEMM and the MoE layer over MXFP4 weights (the
// other ops run the same emulator builtins there).
// The ops are in ops_once_gemm_half.cpp, ops_once_gemm_fp8.cpp, ops_once_layers.cpp and
// ops_once_rows.cpp (gfx942) and ops_once_mx.cpp (gfx950), compiled in parallel. Prints one line per
// op; the exit status counts the failures.
#include <cstdio>

#include "ops_once.hpp"
#include "wavekit/arch/target.hpp"

namespace ops_once {

namespace {
int failures = 0;
}  // namespace

void report(const char* op, const wavekit::status& s, int bad) {
  const bool ok = s.ok() && bad == 0;
  failures += !ok;
  std::printf("%s: %s%s\n", op, ok ? "ok" : "FAILED", s.ok() ? (bad ? " (outputs outside the bound)" : "") : "");
  if (!s.ok()) std::printf("  %s\n", s.message().c_str());
}

}  // namespace ops_once

int main() {
  using namespace ops_once;
#if WAVEKIT_TARGET_GFX950
  run_gemm_mx();
  run_moe_mxfp4();
#else
  run_gemm_half();
  run_gemm_fp8_blockscale();
  run_gemm_fp8_scaled();
  run_gemm_fp8_direct();
  run_mla_decode();
  run_moe();
  run_rmsnorm_quant();
  run_swiglu_quant();
  run_gemm_half_from_threads();
#endif
  return ops_once::failures;
}

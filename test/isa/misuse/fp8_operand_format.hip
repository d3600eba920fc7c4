// Compiled by a negative test (test/isa/CMakeLists.txt): an fp8 GEMM's arguments in a format the op
// does not multiply (bf8, e5m2) must be refused at the args type, not deep inside an MFMA atom.
// MISUSE selects the case.
#include <hip/hip_runtime.h>

#include "wavekit/ops/gemm_fp8_blockscale/problem.hpp"
#include "wavekit/ops/gemm_fp8_scaled/problem.hpp"

using namespace wavekit;

#if MISUSE == 1
template struct ops::gemm_fp8_scaled::args<bf8_e5m2fnuz, bf16>;
#elif MISUSE == 2
template struct ops::gemm_fp8_blockscale::args<bf8_e5m2>;
#endif

// The parts of ops_once (every op once on the emulator, under a sanitizer: ops_once.cpp says what
// and why), one translation unit per group of ops so the sanitized builds compile in parallel.
#pragma once

#include "wavekit/core/status.hpp"

namespace ops_once {

// Reports one op: its status, and the outputs outside the reference's bound (counted as failures).
void report(const char* op, const wavekit::status& s, int bad = 0);

// gfx942 (ops_once_gemm_half.cpp, ops_once_gemm_fp8.cpp, ops_once_layers.cpp, ops_once_rows.cpp).
void run_gemm_half();
void run_gemm_fp8_blockscale();
void run_gemm_fp8_scaled();
void run_gemm_fp8_direct();
void run_gemm_half_from_threads();
void run_mla_decode();
void run_moe();
void run_rmsnorm_quant();
void run_swiglu_quant();

// gfx950 (ops_once_mx.cpp).
void run_gemm_mx();
void run_moe_mxfp4();

}  // namespace ops_once

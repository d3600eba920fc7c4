// The MX GEMM tests' shared run: a config's launch on a case, checked (Catch2 assertions).
#pragma once

#include <hip/hip_runtime.h>
#include <catch2/catch.hpp>

#include <cstdint>

#include "support/gemm_mx_case.hpp"
#include "wavekit/arch/device.hpp"
#include "wavekit/ops/gemm_mx.hpp"
#include "wavekit/ops/gemm_mx/model.hpp"

#if defined(WAVEKIT_EMULATOR)
#include "support/model_traffic_check.hpp"
#endif

namespace wavekit::test {

inline bool device_is_gfx950() { return arch::current_device_arch().kind == arch::target::gfx950; }

// Config Cfg's launch on a problem of Case (gemm_mx_case or gemm_mx_quantizing_a_case) with
// `splits`: on the emulator no LDS bank conflicts, and the launches move exactly the bytes the
// performance model says (ops/gemm_mx/model.hpp); returns the outputs outside the bound.
template <class Cfg, class Case>
int run_mx_config(const ops::gemm_mx::problem& p, int splits, std::uint32_t seed) {
  Case t(p, seed, splits);
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  const status s = ops::gemm_mx::launch<Cfg>(p, t.args(), splits, nullptr);
  INFO(Cfg::name(splits) << " on " << p.str() << ": " << s.message());
  REQUIRE(s.ok());
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
#if defined(WAVEKIT_EMULATOR)
  CHECK(emu::accumulated_counters().lds_bank_conflict_cycles == 0);
  check_model_traffic_summed(ops::gemm_mx::config_launches<Cfg>(p, splits), emu::accumulated_counters());
#endif
  return t.check(splits, Cfg::name(splits).c_str());
}

}  // namespace wavekit::test

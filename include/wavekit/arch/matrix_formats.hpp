// The one decision of which fp8 and bf8 formats a target's matrix cores read: the fnuz variants
// on gfx942, the OCP ones on gfx950 (docs/numerics.md). Everything that picks an fp8 type for a
// device (arch::gfx942::fp8, arch::gfx950::fp8, launchers' format checks, arch::with_device_fp8
// for tests, examples and benchmarks) asks this header. Host code can use it: no HIP here.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <type_traits>

#include "wavekit/arch/target.hpp"
#include "wavekit/core/numeric_types.hpp"

namespace wavekit::arch {

template <target T>
struct matrix_core_formats {
  static_assert(T != T, "matrix_core_formats: only gfx942 and gfx950 have matrix cores wavekit targets");
};
template <>
struct matrix_core_formats<target::gfx942> {
  using fp8 = fp8_e4m3fnuz;
  using bf8 = bf8_e5m2fnuz;
};
template <>
struct matrix_core_formats<target::gfx950> {
  using fp8 = fp8_e4m3fn;
  using bf8 = bf8_e5m2;
};

template <target T>
using fp8_of = typename matrix_core_formats<T>::fp8;
template <target T>
using bf8_of = typename matrix_core_formats<T>::bf8;

// Whether Fp8 is the fp8 format target t's matrix cores read (false for the host).
template <class Fp8>
constexpr bool reads_fp8(target t) {
  return (t == target::gfx942 && std::is_same_v<Fp8, fp8_of<target::gfx942>>) ||
         (t == target::gfx950 && std::is_same_v<Fp8, fp8_of<target::gfx950>>);
}

}  // namespace wavekit::arch

// The target rules every op shares, as statuses (plain C++, no HIP): launchers ask them about the
// device they found, and each op's supports(problem, target) asks them about any target, so that
// both give the same message.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <string>

#include "wavekit/arch/matrix_formats.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/core/status.hpp"

namespace wavekit::arch {

// Kernels are compiled for gfx942 and gfx950 only. `what` names the op and its problem, as the
// op's statuses begin. (An op whose launcher does not query the device meets other targets only
// as a failed launch; its supports() refuses them with this message.)
inline status check_kernel_target(text_ref what, target t) {
  if (t == target::gfx942 || t == target::gfx950) return status::success();
  return {status_code::unsupported_target, what + ": kernels are built for gfx942 and gfx950, not " + to_string(t)};
}

// Whether target t's matrix cores read Fp8 (arch/matrix_formats.hpp): success, or the status an
// fp8 op named `op` returns before launching (arch/device.hpp's check_device_fp8_format gives this
// one for a gfx942 or gfx950 device).
template <class Fp8>
status check_fp8_format(target t, const std::string& op) {
  if (status s = check_kernel_target(op, t); !s.ok()) return s;
  if (!reads_fp8<Fp8>(t))
    return {status_code::bad_format, op + ": " + to_string(t) + " reads fp8 as " +
                                         (t == target::gfx942 ? "e4m3fnuz" : "OCP e4m3fn") +
                                         "; the operands are another fp8 type"};
  return status::success();
}

}  // namespace wavekit::arch

// Every AMDGPU builtin the emulator provides (clang's names, in the global namespace, where the
// device compiler has them as builtins).
#pragma once

#include "wavekit/emu/builtins_alu.hpp"
#include "wavekit/emu/builtins_buffer.hpp"
#include "wavekit/emu/builtins_buffer_lds.hpp"
#include "wavekit/emu/builtins_convert.hpp"
#include "wavekit/emu/builtins_convert_gfx950.hpp"
#include "wavekit/emu/builtins_mfma.hpp"
#include "wavekit/emu/builtins_wave.hpp"

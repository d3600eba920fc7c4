// HIP's short vector types for the emulator: clang extended vectors, which have the .x/.y/.z/.w
// members and arithmetic HIP's types have.
#pragma once

#include <cstdint>

#define WAVEKIT_EMU_VECTOR(T, name)                                          \
  typedef T name##1 __attribute__((ext_vector_type(1)));                     \
  typedef T name##2 __attribute__((ext_vector_type(2)));                     \
  typedef T name##3 __attribute__((ext_vector_type(3)));                     \
  typedef T name##4 __attribute__((ext_vector_type(4)));                     \
  inline name##2 make_##name##2(T x, T y) { return name##2 {x, y}; }         \
  inline name##3 make_##name##3(T x, T y, T z) { return name##3 {x, y, z}; } \
  inline name##4 make_##name##4(T x, T y, T z, T w) { return name##4 {x, y, z, w}; }

WAVEKIT_EMU_VECTOR(float, float)
WAVEKIT_EMU_VECTOR(double, double)
WAVEKIT_EMU_VECTOR(int, int)
WAVEKIT_EMU_VECTOR(unsigned int, uint)
WAVEKIT_EMU_VECTOR(short, short)
WAVEKIT_EMU_VECTOR(unsigned short, ushort)
WAVEKIT_EMU_VECTOR(signed char, char)
WAVEKIT_EMU_VECTOR(unsigned char, uchar)
WAVEKIT_EMU_VECTOR(long long, longlong)
WAVEKIT_EMU_VECTOR(unsigned long long, ulonglong)

#undef WAVEKIT_EMU_VECTOR

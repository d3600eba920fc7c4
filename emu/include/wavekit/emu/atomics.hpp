// HIP atomics on the CPU: std::atomic_ref on the target word, so they are atomic between the
// emulator's OS threads and visible as synchronisation to ThreadSanitizer.
#pragma once

#include <atomic>
#include <type_traits>

namespace wavekit::emu {

template <class T>
T atomic_fetch_add(T* p, T v) {
  std::atomic_ref<T> a(*p);
  if constexpr (std::is_floating_point_v<T>) {
    T old = a.load(std::memory_order_relaxed);
    while (!a.compare_exchange_weak(old, old + v, std::memory_order_relaxed)) {
    }
    return old;
  } else {
    return a.fetch_add(v, std::memory_order_relaxed);
  }
}
template <class T, class Op>
T atomic_update(T* p, Op op) {
  std::atomic_ref<T> a(*p);
  T old = a.load(std::memory_order_relaxed);
  while (!a.compare_exchange_weak(old, op(old), std::memory_order_relaxed)) {
  }
  return old;
}

}  // namespace wavekit::emu

template <class T>
T atomicAdd(T* p, T v) {
  return wavekit::emu::atomic_fetch_add(p, v);
}
template <class T>
T atomicSub(T* p, T v) {
  return wavekit::emu::atomic_update(p, [v](T o) { return static_cast<T>(o - v); });
}
template <class T>
T atomicMax(T* p, T v) {
  return wavekit::emu::atomic_update(p, [v](T o) { return o < v ? v : o; });
}
template <class T>
T atomicMin(T* p, T v) {
  return wavekit::emu::atomic_update(p, [v](T o) { return v < o ? v : o; });
}
template <class T>
T atomicExch(T* p, T v) {
  return std::atomic_ref<T>(*p).exchange(v, std::memory_order_relaxed);
}
template <class T>
T atomicCAS(T* p, T compare, T v) {
  std::atomic_ref<T>(*p).compare_exchange_strong(compare, v, std::memory_order_relaxed);
  return compare;
}
template <class T>
T atomicAnd(T* p, T v) {
  return std::atomic_ref<T>(*p).fetch_and(v, std::memory_order_relaxed);
}
template <class T>
T atomicOr(T* p, T v) {
  return std::atomic_ref<T>(*p).fetch_or(v, std::memory_order_relaxed);
}
template <class T>
T atomicXor(T* p, T v) {
  return std::atomic_ref<T>(*p).fetch_xor(v, std::memory_order_relaxed);
}

// Device memory for the examples (examples/<name>/main.cpp includes it): a host vector copied to a
// new device allocation, and back. The examples free nothing: each runs once and exits.
#pragma once

#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace example {

// A device copy of v (at least one element allocated, so an empty v still gets a valid pointer).
template <class U>
U* upload(const std::vector<U>& v) {
  U* d = nullptr;
  (void)hipMalloc(&d, std::max<std::size_t>(v.size(), 1) * sizeof(U));
  (void)hipMemcpy(d, v.data(), v.size() * sizeof(U), hipMemcpyHostToDevice);
  return d;
}

// The n elements at device pointer d.
template <class U>
std::vector<U> download(const U* d, std::size_t n) {
  std::vector<U> v(n);
  (void)hipMemcpy(v.data(), d, n * sizeof(U), hipMemcpyDeviceToHost);
  return v;
}

}  // namespace example

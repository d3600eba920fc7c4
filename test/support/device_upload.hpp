// A host vector copied into a new device allocation (at least one element, so that an empty vector
// still gives a pointer the call under test can be handed). The caller frees it.
#pragma once

#include <hip/hip_runtime.h>

#include <algorithm>
#include <vector>

namespace wavekit::test {

template <class U>
U* upload(const std::vector<U>& v) {
  U* d = nullptr;
  hipMalloc(&d, std::max<std::size_t>(v.size(), 1) * sizeof(U));
  hipMemcpy(d, v.data(), v.size() * sizeof(U), hipMemcpyHostToDevice);
  return d;
}

}  // namespace wavekit::test

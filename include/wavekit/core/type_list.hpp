// std::tuple<Ts...> from a list written with a leading placeholder: X-macro lists expand to
// ", A, B, C", so `tuple_after_first_t<void WAVEKIT_LIST(X)>` is std::tuple<A, B, C>.
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <tuple>

namespace wavekit {

template <class First, class... Rest>
struct tuple_after_first {
  using type = std::tuple<Rest...>;
};
template <class... Ts>
using tuple_after_first_t = typename tuple_after_first<Ts...>::type;

}  // namespace wavekit

// Text formatted only when a status needs it. A one-call API checks every argument and names its
// config before it launches, and formatting the prefix of the statuses it might return ("gemm_half
// 16x7168x2048 k_contiguous: ") or a config's name costs a good part of a microsecond beside a 5 us
// decode kernel (docs/host-cost.md). Checks that pass format nothing:
//
//   const auto what = lazy([&] { return "gemm_half " + p.str() + ": "; });  // kept as a local
//   if (p.n % 16) return {status_code::bad_shape, what + "N must be a multiple of 16"};
//   return check_pointer_arguments(what, {...});  // takes a text_ref: formats on a refusal only
//
// text_ref is a parameter type: a reference to a string or to a callable that makes one, valid for
// the call it is passed to (never keep one).
#pragma once

#include "wavekit/core/requirements.hpp"  // C++20, HIP on the device: checked first

#include <concepts>
#include <string>
#include <string_view>
#include <type_traits>

namespace wavekit {

// The text of a callable F () -> std::string, made each time it is asked for.
template <class F>
class lazy_string {
 public:
  explicit lazy_string(F make) : make_(std::move(make)) {}
  std::string str() const { return make_(); }
  friend std::string operator+(const lazy_string& t, std::string_view tail) { return t.str().append(tail); }

 private:
  F make_;
};

template <class F>
  requires std::is_invocable_r_v<std::string, const F&>
lazy_string<F> lazy(F make) {
  return lazy_string<F>(std::move(make));
}

// A function parameter for text: a string, a literal or a lazy_string, formatted on str().
class text_ref {
 public:
  text_ref(const std::string& s)
      : context_(&s), make_([](const void* c) { return *static_cast<const std::string*>(c); }) {}
  text_ref(const char* s)
      : context_(s), make_([](const void* c) { return std::string(static_cast<const char*>(c)); }) {}
  template <class F>
  text_ref(const lazy_string<F>& t)
      : context_(&t), make_([](const void* c) { return static_cast<const lazy_string<F>*>(c)->str(); }) {}

  std::string str() const { return make_(context_); }
  friend std::string operator+(const text_ref& t, std::string_view tail) { return t.str().append(tail); }
  friend std::string operator+(std::string head, const text_ref& t) { return head.append(t.str()); }

 private:
  const void* context_;
  std::string (*make_)(const void*);
};

}  // namespace wavekit

// core/lazy_text.hpp: a check that passes formats nothing; a refusal formats its prefix once, and
// the message reads as the eager text would.
#include <catch2/catch.hpp>

#include <string>

#include "wavekit/block/splitk_rule.hpp"
#include "wavekit/core/lazy_text.hpp"
#include "wavekit/core/status.hpp"

namespace {

using namespace wavekit;

TEST_CASE("lazy text: a check that passes formats nothing", "[core]") {
  int formatted = 0;
  const auto what = lazy([&] {
    ++formatted;
    return std::string("op 4x8x16: ");
  });
  const int value = 0;
  CHECK(check_pointer_arguments(what, {{"a", &value, 4, "fp32"}, {"b", &value, 4, "fp32"}}).ok());
  CHECK(block::check_splits(what, "4x8x16", 1, 2).ok());
  CHECK(formatted == 0);

  // A refusal formats the prefix once, with the text an eager string gives.
  const status lazy_refusal = check_pointer_arguments(what, {{"a", &value, 4, "fp32"}, {"b", nullptr, 4, "fp32"}});
  CHECK(formatted == 1);
  const status eager_refusal =
      check_pointer_arguments(std::string("op 4x8x16: "), {{"a", &value, 4, "fp32"}, {"b", nullptr, 4, "fp32"}});
  CHECK(lazy_refusal.code() == status_code::null_pointer);
  CHECK(lazy_refusal.message() == eager_refusal.message());
  CHECK(lazy_refusal.message() == "op 4x8x16: argument b is null");
}

TEST_CASE("lazy text: every text_ref source reads the same", "[core]") {
  const std::string owned = "gemm 1x2x3";
  const auto made = lazy([] { return std::string("gemm 1x2x3"); });
  for (const text_ref t : {text_ref(owned), text_ref("gemm 1x2x3"), text_ref(made)}) {
    CHECK(t.str() == "gemm 1x2x3");
    CHECK(t + ": x" == "gemm 1x2x3: x");
    CHECK(std::string("on ") + t == "on gemm 1x2x3");
  }
  CHECK(made + "!" == "gemm 1x2x3!");
  // check_splits names the config and the problem only in its refusal.
  CHECK(block::check_splits(made, owned, 5, 4).message() ==
        "gemm 1x2x3 on gemm 1x2x3: splits must be in [1, K steps = 4]");
}

}  // namespace

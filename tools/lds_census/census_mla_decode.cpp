// MLA decode's census: each shipped config with a bf16 and an fp8 cache (the device's format) with
// bf16 queries, fp8 queries over the fp8 cache (the fp8 products' kernel), and on gfx950 an MXFP4
// cache too, on two sequences of four
// KV tiles in two splits, so that the LSE reduce the split rows launch runs too. The report's MLA
// rows name their kernel as the codegen profile the performance model picks for them; the census
// names each entry the same way, asking the model for its own problem, which has as many (query,
// head) rows as the config holds so that the plan picks the config measured.
#include <string>
#include <type_traits>
#include <vector>

#include "lds_census/census.hpp"
#include "support/mla_case.hpp"
#include "wavekit/ops/mla_decode.hpp"
#include "wavekit/ops/mla_decode/model.hpp"

namespace wavekit::lds_census {

namespace {

namespace md = ops::mla_decode;

template <class C, class KV, class Q = bf16>
void measure_config(entries& out, md::config_id id) {
  const std::vector<int> kv_lens(2, 4 * C::kv_tile), q_lens(2, 1);
  test::mla_case<KV, Q> t(C::rows, kv_lens, q_lens, 0, 1);
  const md::split_plan plan{2 * C::kv_tile, 2};
  const std::string problem = t.p.str() + ", " + std::to_string(4 * C::kv_tile) + " KV rows each in " +
                              std::to_string(plan.splits) + " splits, " + type_name<KV>() + " cache" +
                              (std::is_same_v<Q, bf16> ? "" : ", " + type_name<Q>() + " queries");
  if (md::choose_config(t.p, t.view()) != id)
    fail("mla_decode", C::name(), problem, "the plan picks another config for the census problem");
  const auto launches = md::model_launches(t.p, t.view(), md::kv_bits_of<KV>, arch::current_target, md::q_bits_of<Q>);
  if (!launches.front().profile) fail("mla_decode", C::name(), problem, "the model has no codegen profile for it");
  const auto args = t.args(plan);
  measure(
      out, "mla_decode", std::string(launches.front().profile->kernel), problem,
      [&] { return md::launch<C>(t.p, t.view(), args, plan, nullptr); }, [&] { return t.check(problem.c_str()); });
}

void census_mla_decode(entries& out) {
  for (md::config_id id : md::all_configs)
    md::with_config(id, [&](auto cfg) {
      using C = decltype(cfg);
      measure_config<C, bf16>(out, id);
      using fp8 = arch::fp8_of<arch::current_target>;
      measure_config<C, fp8>(out, id);
      measure_config<C, fp8, fp8>(out, id);
      if constexpr (arch::current_target == arch::target::gfx950) measure_config<C, fp4x2_e2m1>(out, id);
      return 0;
    });
}

const registration registered{"mla_decode", "mla_decode", census_mla_decode};

}  // namespace

}  // namespace wavekit::lds_census

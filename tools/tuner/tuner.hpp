// The tuner's driver (plain C++, no HIP): its command line, and a table of one entry per shape with
// the plan a chooser picks. wavekit_tuner.cpp supplies the chooser: on a GPU, the fastest of the
// op's candidate plans as timed; in an emulator build, the op's model plan, nothing timed.
//
//   wavekit_tuner --op gemm_fp8_blockscale --arch gfx942 --shapes 1024x1536x7168,16x7168x2048 --out FILE
//                 [--layout k_contiguous|mn_contiguous] [--dtypes A,B,C]
//   wavekit_tuner --op moe --arch gfx950 --shapes 16x256x7168 --experts 257 --top-k 9 --dtypes mxfp4,bf16 ...
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/op_cases.hpp"
#include "wavekit/arch/device_facts.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/core/result.hpp"
#include "wavekit/planning/tables/key.hpp"
#include "wavekit/planning/tables/table_text.hpp"

namespace wavekit::tuner {

struct options {
  std::string op;
  arch::target arch = arch::target::gfx942;
  std::vector<shape> shapes;
  std::string layout = "k_contiguous";
  std::string dtypes;  // empty: the op's first (op_cases.hpp)
  std::string out;
  int experts = 0, top_k = 0, local_experts = 0;  // the MoE layer's routing (op_cases.hpp's shape)
};

inline std::string usage() {
  return std::string(
             "usage: wavekit_tuner --op OP --arch gfx942|gfx950 --shapes MxNxK[,MxNxK...] --out FILE\n"
             "                     [--layout k_contiguous|mn_contiguous] [--dtypes A,B,C]\n"
             "                     [--experts E --top-k K [--local-experts L]]   (moe: shapes "
             "TOKENSxEXPERT_DIMxHIDDEN)\n"
             "Writes a tuned table (include/wavekit/planning/tables/table_text.hpp) with one entry per shape: on a "
             "GPU\n"
             "(WAVEKIT_BACKEND=hip) the fastest of the op's candidate plans, timed with hipEvents; in an\n"
             "emulator build the op's model plan, nothing timed. Ops: ") +
         op_names() + ".\n";
}

namespace detail {

inline std::vector<std::string> split_list(std::string_view text, char separator) {
  std::vector<std::string> parts;
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t end = text.find(separator, at);
    if (end == std::string_view::npos) end = text.size();
    parts.emplace_back(text.substr(at, end - at));
    at = end + 1;
  }
  return parts;
}

inline result<shape> parse_shape(std::string_view text) {
  shape s{};
  int* parts[] = {&s.m, &s.n, &s.k};
  std::size_t at = 0;
  for (int i = 0; i < 3; ++i) {
    std::size_t end = i < 2 ? text.find('x', at) : text.size();
    if (end == std::string_view::npos) end = text.size();
    const std::optional<int> v = planning::detail::parse_int(text.substr(at, end - at));
    if (!v || *v == 0 || (i < 2 && end == text.size()))
      return status{status_code::bad_shape, "shape '" + std::string(text) + "' is not MxNxK (three positive integers)"};
    *parts[i] = *v;
    at = end + 1;
  }
  return s;
}

}  // namespace detail

// The options of a command line (argv without the program's name), or the status of its mistake.
inline result<options> parse_command_line(const std::vector<std::string>& args) {
  options o;
  std::string arch;
  auto bad = [](std::string why) { return status{status_code::bad_config, std::move(why)}; };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    std::string* into = flag == "--op"       ? &o.op
                        : flag == "--arch"   ? &arch
                        : flag == "--layout" ? &o.layout
                        : flag == "--dtypes" ? &o.dtypes
                        : flag == "--out"    ? &o.out
                                             : nullptr;
    if (flag == "--shapes") {
      if (i + 1 == args.size()) return bad("--shapes needs a value");
      for (const std::string& part : detail::split_list(args[++i], ',')) {
        result<shape> s = detail::parse_shape(part);
        if (!s) return s.error();
        o.shapes.push_back(s.value());
      }
      continue;
    }
    int* count = flag == "--experts"         ? &o.experts
                 : flag == "--top-k"         ? &o.top_k
                 : flag == "--local-experts" ? &o.local_experts
                                             : nullptr;
    if (count) {
      if (i + 1 == args.size()) return bad(flag + " needs a value");
      const std::optional<int> v = planning::detail::parse_int(args[++i]);
      if (!v || *v <= 0) return bad(flag + " must be a positive integer, not '" + args[i] + "'");
      *count = *v;
      continue;
    }
    if (!into) return bad("unknown argument '" + flag + "'");
    if (i + 1 == args.size()) return bad(flag + " needs a value");
    *into = args[++i];
  }
  if (o.op.empty() || arch.empty() || o.shapes.empty() || o.out.empty())
    return bad("--op, --arch, --shapes and --out are required");
  const std::optional<arch::target> t = planning::parse_target(arch);
  if (!t) return bad("--arch must be gfx942 or gfx950, not '" + arch + "'");
  o.arch = *t;
  for (shape& s : o.shapes) s.experts = o.experts, s.top_k = o.top_k, s.local_experts = o.local_experts;
  bool known = with_op_case(o.op, [&](auto c) {
    using C = decltype(c);
    if (o.dtypes.empty()) o.dtypes = C::dtypes(o.arch).front();
  });
  if (!known) return bad("--op must be one of " + op_names() + ", not '" + o.op + "'");
  return o;
}

// One table entry and a note on how it was chosen (the table's comment for it).
struct tuned_entry {
  planning::entry entry;
  std::string note;
};

// A chooser's answer for one problem: the plan, and what to note beside it.
template <class Plan>
struct choice {
  Plan plan;
  std::string note;
};

// The table entries for o's shapes on a device with `cus` compute units: choose(Case{}, problem)
// returns a result<choice<Case::plan>>. Shapes the op refuses, dtypes or layouts the tuner does not
// run, and two shapes of one key (M in one bucket) are statuses naming the shape.
template <class Choose>
result<std::vector<tuned_entry>> tune(const options& o, int cus, Choose&& choose) {
  result<std::vector<tuned_entry>> out = status{status_code::bad_config, "--op " + o.op + " is no op the tuner knows"};
  with_op_case(o.op, [&](auto c) {
    using C = decltype(c);
    const std::vector<std::string> dtypes = C::dtypes(o.arch), layouts = C::layouts();
    auto listed = [](const std::vector<std::string>& words) {
      std::string all;
      for (const std::string& w : words) all += (all.empty() ? "" : ", ") + w;
      return all;
    };
    if (std::find(dtypes.begin(), dtypes.end(), o.dtypes) == dtypes.end()) {
      out = status{status_code::bad_config, std::string(C::op) + " on " + arch::to_string(o.arch) +
                                                ": the tuner runs --dtypes " + listed(dtypes) + ", not '" + o.dtypes +
                                                "'"};
      return;
    }
    if (std::find(layouts.begin(), layouts.end(), o.layout) == layouts.end()) {
      out = status{status_code::bad_config,
                   std::string(C::op) + ": the tuner runs --layout " + listed(layouts) + ", not '" + o.layout + "'"};
      return;
    }
    std::vector<tuned_entry> entries;
    std::map<planning::key, shape> shape_of;
    for (const shape& s : o.shapes) {
      const result<typename C::problem> p = C::make(s, o.layout, o.dtypes, o.arch);
      if (!p) {
        out = status{p.error().code(), "shape " + s.str() + ": " + p.error().message()};
        return;
      }
      const planning::key k = C::key(p.value(), o.arch, cus, o.dtypes);
      if (auto [it, fresh] = shape_of.emplace(k, s); !fresh) {
        out = status{status_code::bad_config, "shapes " + it->second.str() + " and " + s.str() +
                                                  " share a key (M bucket " + std::to_string(k.m_bucket) +
                                                  "): tune one of them"};
        return;
      }
      const result<choice<typename C::plan>> chosen = choose(c, p.value());
      if (!chosen) {
        out = status{chosen.error().code(), "shape " + s.str() + ": " + chosen.error().message()};
        return;
      }
      entries.push_back({{k, C::value(chosen.value().plan)}, "M " + std::to_string(s.m) + ": " + chosen.value().note});
    }
    out = entries;
  });
  return out;
}

// Writes the entries to o.out under `comment`.
inline status write_entries(const options& o, const std::vector<tuned_entry>& entries, const std::string& comment) {
  std::vector<planning::entry> table;
  std::vector<std::string> notes;
  for (const tuned_entry& e : entries) table.push_back(e.entry), notes.push_back(e.note);
  return planning::write_table_file(o.out, table, comment, notes);
}

// The emulator build's chooser: the op's model plan.
struct model_chooser {
  arch::target t;
  template <class Case>
  result<choice<typename Case::plan>> operator()(Case, const typename Case::problem& p) const {
    return choice<typename Case::plan>{Case::model(p, t), "the model's plan"};
  }
};

// The command line's table of model plans (what an emulator build writes): the run's whole work but
// main()'s printing. The device is target o.arch's flagship (its compute units, arch::facts_for).
inline status write_model_table(const options& o) {
  const int cus = arch::facts_for(o.arch).compute_units;
  result<std::vector<tuned_entry>> entries = tune(o, cus, model_chooser{o.arch});
  if (!entries) return entries.error();
  return write_entries(o, entries.value(),
                       "Written by wavekit_tuner --op " + o.op + " --arch " + arch::to_string(o.arch) +
                           " in an emulator build: the performance model's plans for " +
                           arch::facts_for(o.arch).product + ", nothing timed.");
}

}  // namespace wavekit::tuner

// The performance model's inputs as text, for kernels that are not wavekit's: a profile row (what
// `tools/codegen_report.py profile --arch <target> <kernel.s>` prints for any compiled kernel) and
// a launch description (the grid, the hot loop's trip count and the bytes moved). `wavekit_perf_model
// --profile ROW --launch DESC` predicts a launch from them; the published pairs the model is
// calibrated on are held in the same form (published_pairs.hpp), so the calibration runs the path a
// user's kernel takes.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "wavekit/arch/target.hpp"
#include "wavekit/planning/model/launch_time.hpp"

namespace wavekit::perf_text {

// "key=value key=value" (spaces or commas between pairs) -> map; nullopt names the bad token.
inline std::optional<std::map<std::string, std::string>> fields(const std::string& text, std::string* error) {
  std::map<std::string, std::string> out;
  std::string token;
  std::istringstream in(text);
  while (in >> token) {
    std::size_t start = 0;
    while (start < token.size()) {
      // A launch description may separate pairs with commas; a profile row's kernel name keeps them.
      std::size_t end = token.find(',', start);
      const std::size_t eq = token.find('=', start);
      if (eq == std::string::npos || (end != std::string::npos && eq > end)) {
        *error = "'" + token + "' is not key=value";
        return std::nullopt;
      }
      const std::string key = token.substr(start, eq - start);
      if (key == "kernel") end = std::string::npos;  // the name may hold commas
      out[key] = token.substr(eq + 1, end == std::string::npos ? std::string::npos : end - eq - 1);
      start = end == std::string::npos ? token.size() : end + 1;
    }
  }
  return out;
}

inline bool number(const std::map<std::string, std::string>& f, const char* key, double* v, std::string* error,
                   bool required = true) {
  const auto it = f.find(key);
  if (it == f.end()) {
    if (required) *error = std::string("missing ") + key + "=";
    return !required;
  }
  char* end = nullptr;
  *v = std::strtod(it->second.c_str(), &end);
  if (end == it->second.c_str() || *end != '\0' || *v < 0) {
    *error = std::string(key) + "=" + it->second + " is not a non-negative number";
    return false;
  }
  return true;
}

// A profile row -> kernel_profile. The names are kept in `storage` (the profile's string_views
// point into it).
inline std::optional<planning::kernel_profile> parse_profile(const std::string& row, std::deque<std::string>& storage,
                                                             std::string* error) {
  const auto f = fields(row, error);
  if (!f) return std::nullopt;
  const auto text = [&](const char* key, const char* fallback) -> std::string_view {
    const auto it = f->find(key);
    return storage.emplace_back(it == f->end() ? fallback : it->second);
  };
  const std::string_view target = text("target", "");
  if (target != "gfx942" && target != "gfx950") {
    *error = "target=" + std::string(target) + ": the model knows gfx942 (MI300X) and gfx950 (MI355X)";
    return std::nullopt;
  }
  planning::kernel_profile p{target == "gfx950" ? arch::target::gfx950 : arch::target::gfx942,
                             text("kernel", "kernel"),
                             text("kernel", "kernel"),
                             0,
                             0,
                             0,
                             0,
                             0,
                             0,
                             0.0,
                             0.0,
                             0};
  double v = 0;
  const struct {
    const char* key;
    int* out;
  } ints[] = {{"vgpr", &p.vgpr},
              {"agpr", &p.agpr},
              {"lds", &p.lds_bytes},
              {"occupancy", &p.occupancy},
              {"loop_instructions", &p.loop_instructions},
              {"loop_mfma", &p.loop_mfma},
              {"loop_barriers", &p.loop_barriers},
              {"loop_valu", &p.loop_valu},
              {"loop_vmem_loads", &p.loop_vmem_loads}};
  for (const auto& [key, out] : ints) {
    if (!number(*f, key, &v, error)) return std::nullopt;
    *out = static_cast<int>(v);
  }
  if (!number(*f, "loop_mfma_work", &p.loop_mfma_work, error) ||
      !number(*f, "loop_mfma_cycles", &p.loop_mfma_cycles, error) ||
      !number(*f, "loop_load_cover", &p.loop_load_cover, error) ||
      !number(*f, "loop_load_trips", &p.loop_load_trips, error, false))
    return std::nullopt;
  if (p.occupancy < 1) {
    *error = "occupancy=0: a kernel runs at least one wave a SIMD";
    return std::nullopt;
  }
  const std::string_view kind = text("loop_mfma_kind", "none");
  p.loop_mfma_kind = kind == "none" ? std::string_view{} : kind;
  return p;
}

// A launch description -> launch_work (its profile set by the caller).
//   workgroups=N waves=W (per workgroup) iterations=I (of the hot loop, per wave) loaded=B (every
//   global load) dram=B (distinct bytes read) written=B [lds=B (LDS bytes a workgroup moves)]
//   [fetch=B (bytes the XCDs' L2s fetch; default dram)] [what=text]
inline std::optional<planning::launch_work> parse_launch(const std::string& desc, std::string* error) {
  const auto f = fields(desc, error);
  if (!f) return std::nullopt;
  planning::launch_work w;
  double waves = 1, fetch = -1;
  if (!number(*f, "workgroups", &w.workgroups, error) || !number(*f, "waves", &waves, error, false) ||
      !number(*f, "iterations", &w.loop_iterations_per_wave, error, false) ||
      !number(*f, "loaded", &w.loaded_bytes, error) || !number(*f, "dram", &w.dram_read_bytes, error) ||
      !number(*f, "written", &w.written_bytes, error) || !number(*f, "lds", &w.lds_bytes_per_workgroup, error, false) ||
      !number(*f, "fetch", &fetch, error, false))
    return std::nullopt;
  if (waves < 1 || waves > 16) {
    *error = "waves=" + f->at("waves") + ": a workgroup has 1 to 16 waves";
    return std::nullopt;
  }
  w.waves_per_workgroup = static_cast<int>(waves);
  w.l2_fetch_bytes = f->count("fetch") ? fetch : -1;
  w.what = f->count("what") ? f->at("what") : "launch";
  return w;
}

// A launch_work as the description parse_launch reads back.
inline std::string launch_text(const planning::launch_work& w) {
  char b[512];
  std::snprintf(
      b, sizeof b,
      "workgroups=%.17g,waves=%d,iterations=%.17g,loaded=%.17g,dram=%.17g,written=%.17g,lds=%.17g,fetch=%.17g",
      w.workgroups, w.waves_per_workgroup, w.loop_iterations_per_wave, w.loaded_bytes, w.dram_read_bytes,
      w.written_bytes, w.lds_bytes_per_workgroup, w.l2_fetch_bytes >= 0 ? w.l2_fetch_bytes : w.dram_read_bytes);
  return b;
}

}  // namespace wavekit::perf_text

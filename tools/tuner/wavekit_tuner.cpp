// wavekit_tuner: a tuned table (include/wavekit/planning/tables/table_text.hpp) for an op's shapes.
//
//   wavekit_tuner --op gemm_fp8_blockscale --arch gfx942 --shapes 1024x1536x7168,16x7168x2048 --out mi300x.txt
//
// Built as HIP (WAVEKIT_BACKEND=hip) it times every candidate plan of each shape on the GPU (which
// must be of --arch) and writes the fastest, its time and the model's plan's time in the entry's
// comment. Built for the emulator it writes the op's model plan for --arch's flagship part without
// timing anything (a CPU's time says nothing of a GPU's): the table format and the driver are the
// same, so the tool runs and is tested without a GPU. Use the table with WAVEKIT_TUNING_FILES or
// wavekit::planning::load_file; a table worth shipping goes into tuning/.
#include <cstdio>
#include <string>
#include <vector>

#include "tuner/tuner.hpp"

#if defined(__HIP__)
#include <hip/hip_runtime.h>

#include "tuner/gpu_timing.hpp"
#include "wavekit/arch/device.hpp"
#endif

namespace {

using namespace wavekit;

#if defined(__HIP__)

// The GPU build's chooser: every candidate timed, the fastest chosen.
struct timed_chooser {
  arch::target t;
  std::string dtypes;
  template <class Case>
  result<tuner::choice<typename Case::plan>> operator()(Case, const typename Case::problem& p) const {
    const std::vector<typename Case::plan> plans = Case::candidates(p, t);
    const result<std::vector<double>> times = Case::time_plans(p, plans, t, dtypes);
    if (!times) return times.error();
    std::size_t best = 0, model = plans.size();
    const planning::value model_value = Case::value(Case::model(p, t));
    for (std::size_t i = 0; i < plans.size(); ++i) {
      if (times.value()[i] < times.value()[best]) best = i;
      if (Case::value(plans[i]) == model_value) model = i;
    }
    char note[160];
    std::snprintf(note, sizeof note, "%.1f us, fastest of %zu; the model's plan %s: %.1f us", times.value()[best] * 1e6,
                  plans.size(), planning::to_string(model_value).c_str(),
                  model < plans.size() ? times.value()[model] * 1e6 : 0.0);
    return tuner::choice<typename Case::plan>{plans[best], note};
  }
};

status run(const tuner::options& o) {
  const arch::device_arch device = arch::current_device_arch();
  if (device.kind != o.arch)
    return {status_code::unsupported_target, "--arch " + std::string(arch::to_string(o.arch)) + " but the device is '" +
                                                 device.name + "': tune on a device of the target"};
  int index = 0;
  hipDeviceProp_t prop;
  if (hipGetDevice(&index) != hipSuccess || hipGetDeviceProperties(&prop, index) != hipSuccess)
    return {status_code::launch_failed, "cannot query the device"};
  result<std::vector<tuner::tuned_entry>> entries =
      tuner::tune(o, prop.multiProcessorCount, timed_chooser{o.arch, o.dtypes});
  if (!entries) return entries.error();
  return tuner::write_entries(o, entries.value(),
                              "Written by wavekit_tuner --op " + o.op + " on " + prop.name + " (" + device.name + ", " +
                                  std::to_string(prop.multiProcessorCount) +
                                  " CUs): each entry the fastest candidate plan, the median of " +
                                  std::to_string(tuner::gpu::timed_calls) + " calls with L2 flushed.");
}

#else

status run(const tuner::options& o) { return tuner::write_model_table(o); }

#endif

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::fputs(tuner::usage().c_str(), stdout);
    return 0;
  }
  const result<tuner::options> o = tuner::parse_command_line(args);
  if (!o) {
    std::fprintf(stderr, "wavekit_tuner: %s\n%s", o.error().message().c_str(), tuner::usage().c_str());
    return 2;
  }
  if (status s = run(o.value()); !s.ok()) {
    std::fprintf(stderr, "wavekit_tuner: %s\n", s.message().c_str());
    return 1;
  }
  std::printf("wavekit_tuner: wrote %zu entries to %s\n", o.value().shapes.size(), o.value().out.c_str());
  return 0;
}

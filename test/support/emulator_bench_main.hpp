// The main() of a wavekit Google Benchmark binary. On the emulator each run prints its label (the
// plan or config that ran) and counters, without Google Benchmark's time columns (they would time
// the CPU emulating the kernel, easily misread as the kernel's time); on a GPU, Google Benchmark's
// own reporters. `what` says what a run is ("shape", "configuration").
// Both name the device in the JSON output's context (--benchmark_out): `wavekit_device_arch` and
// `wavekit_device_name` on a GPU, `wavekit_emulated_target` on the emulator, which the measured
// performance report (tools/perf_report.py --measured) reads to file the times under their target
// and to refuse the emulator's.
#pragma once

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#if defined(WAVEKIT_EMULATOR)
#include "wavekit/arch/target.hpp"

namespace wavekit::test {

inline void add_device_context() {
  benchmark::AddCustomContext("wavekit_emulated_target", arch::to_string(arch::current_target));
}

class counters_reporter : public benchmark::BenchmarkReporter {
 public:
  counters_reporter(const char* what, int name_width) : what_(what), width_(name_width) {}
  bool ReportContext(const Context&) override {
    std::printf("wavekit CPU emulator (%s): counters per %s, no GPU time\n", arch::to_string(arch::current_target),
                what_);
    return true;
  }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      std::printf("%-*s %s\n", width_, run.benchmark_name().c_str(), run.report_label.c_str());
      for (const auto& [name, counter] : run.counters) std::printf("    %-26s %.6g\n", name.c_str(), counter.value);
    }
    std::fflush(stdout);
  }

 private:
  const char* what_;
  int width_;
};

// The same counters as JSON on stdout (--benchmark_format=json): the emulated target, then per run
// its name, label and counters; no time fields, for the reason above.
class counters_json_reporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override {
    std::printf("{\n  \"context\": {\"wavekit_emulated_target\": \"%s\"},\n  \"benchmarks\": [",
                arch::to_string(arch::current_target));
    return true;
  }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      std::printf("%s\n    {\"name\": %s, \"label\": %s", first_ ? "" : ",", quoted(run.benchmark_name()).c_str(),
                  quoted(run.report_label).c_str());
      for (const auto& [name, counter] : run.counters) {
        if (std::isfinite(counter.value))
          std::printf(", %s: %.17g", quoted(name).c_str(), counter.value);
        else
          std::printf(", %s: null", quoted(name).c_str());  // JSON has no NaN or infinity
      }
      std::printf("}");
      first_ = false;
    }
    std::fflush(stdout);
  }
  void Finalize() override { std::printf("\n  ]\n}\n"); }

 private:
  static std::string quoted(const std::string& text) {
    std::string out = "\"";
    for (const unsigned char c : text) {
      if (c == '"' || c == '\\') {
        out += '\\', out += static_cast<char>(c);
      } else if (c < 0x20) {
        char escaped[8];
        std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
        out += escaped;
      } else {
        out += static_cast<char>(c);
      }
    }
    return out + "\"";
  }
  bool first_ = true;
};

// Whether the command line asks for JSON on stdout (Google Benchmark keeps its own flag private).
inline bool json_requested(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--benchmark_format=json") return true;
  return false;
}

}  // namespace wavekit::test

#define WAVEKIT_BENCHMARK_MAIN(what, name_width)                                                                  \
  int main(int argc, char** argv) {                                                                               \
    const bool json = wavekit::test::json_requested(argc, argv);                                                  \
    benchmark::Initialize(&argc, argv);                                                                           \
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;                                             \
    wavekit::test::add_device_context();                                                                          \
    wavekit::test::counters_reporter text(what, name_width);                                                      \
    wavekit::test::counters_json_reporter json_reporter;                                                          \
    benchmark::RunSpecifiedBenchmarks(json ? static_cast<benchmark::BenchmarkReporter*>(&json_reporter) : &text); \
    benchmark::Shutdown();                                                                                        \
    return 0;                                                                                                     \
  }                                                                                                               \
  int main(int, char**)  // so that the use ends with a semicolon, as BENCHMARK_MAIN's does
#else
#include <hip/hip_runtime.h>

namespace wavekit::test {

inline void add_device_context() {
  int device = 0;
  hipDeviceProp_t prop;
  if (hipGetDevice(&device) != hipSuccess || hipGetDeviceProperties(&prop, device) != hipSuccess) return;
  benchmark::AddCustomContext("wavekit_device_arch", prop.gcnArchName);  // e.g. gfx942:sramecc+:xnack-
  benchmark::AddCustomContext("wavekit_device_name", prop.name);
}

}  // namespace wavekit::test

#define WAVEKIT_BENCHMARK_MAIN(what, name_width)                      \
  int main(int argc, char** argv) {                                   \
    benchmark::Initialize(&argc, argv);                               \
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1; \
    wavekit::test::add_device_context();                              \
    benchmark::RunSpecifiedBenchmarks();                              \
    benchmark::Shutdown();                                            \
    return 0;                                                         \
  }                                                                   \
  int main(int, char**)  // so that the use ends with a semicolon, as BENCHMARK_MAIN's does
#endif

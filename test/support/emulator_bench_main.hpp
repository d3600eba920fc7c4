// The main() of a wavekit Google Benchmark binary. On the emulator each run prints its label (the
// plan or config that ran) and counters, without Google Benchmark's time columns (they would time
// the CPU emulating the kernel, easily misread as the kernel's time); on a GPU, Google Benchmark's
// own main. `what` says what a run is ("shape", "configuration").
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <vector>

#if defined(WAVEKIT_EMULATOR)
#include "wavekit/arch/target.hpp"

namespace wavekit::test {

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

}  // namespace wavekit::test

#define WAVEKIT_BENCHMARK_MAIN(what, name_width)                      \
  int main(int argc, char** argv) {                                   \
    benchmark::Initialize(&argc, argv);                               \
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1; \
    wavekit::test::counters_reporter reporter(what, name_width);      \
    benchmark::RunSpecifiedBenchmarks(&reporter);                     \
    benchmark::Shutdown();                                            \
    return 0;                                                         \
  }                                                                   \
  int main(int, char**)  // so that the use ends with a semicolon, as BENCHMARK_MAIN's does
#else
#define WAVEKIT_BENCHMARK_MAIN(what, name_width) BENCHMARK_MAIN()
#endif

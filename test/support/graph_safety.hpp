// What would keep a HIP graph from holding a call: f(stream) runs inside the emulator's
// capture_check (every device-to-host copy, synchronisation, allocation or free is named), or on
// a GPU inside a real stream capture, whose graph is then instantiated and launched (so f's
// results are there afterwards in both builds). An empty list means the call is graph-safe.
#pragma once

#include <hip/hip_runtime.h>

#include <string>
#include <vector>

namespace wavekit::test {

template <class F>
std::vector<std::string> graph_unsafe_calls_of(F&& f) {
#if defined(WAVEKIT_EMULATOR)
  emu::capture_check check;
  f(hipStream_t{});
  return check.graph_unsafe_calls();
#else
  std::vector<std::string> problems;
  hipStream_t stream;
  hipStreamCreate(&stream);
  hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal);
  f(stream);
  hipGraph_t graph;
  if (hipError_t e = hipStreamEndCapture(stream, &graph); e != hipSuccess) {
    problems.push_back(std::string("stream capture failed: ") + hipGetErrorString(e));
  } else {
    hipGraphExec_t exec;
    if (hipError_t e = hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0); e != hipSuccess) {
      problems.push_back(std::string("graph instantiation failed: ") + hipGetErrorString(e));
    } else {
      hipGraphLaunch(exec, stream);
      hipStreamSynchronize(stream);
      hipGraphExecDestroy(exec);
    }
    hipGraphDestroy(graph);
  }
  hipStreamDestroy(stream);
  return problems;
#endif
}

}  // namespace wavekit::test

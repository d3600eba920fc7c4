#!/usr/bin/env bash
# The measured performance report, on a real GPU (MI300X/MI325X: gfx942, MI355X: gfx950). Runs each
# bench/ binary of the `gpu` preset's build over the cases that the report's rows name (each case
# verifies its result, then times calls with hipEvents), writing Google Benchmark JSON, then
# tools/perf_report.py --measured: docs/performance-measured.md, the model's predictions beside the
# measured times and the model's error, with docs/perf/predicted_vs_measured.png and
# docs/perf/measured_data.json. `cmake --build --preset gpu --target perf_report_measured` builds
# the binaries and runs this. Google Benchmark calls a case once per trial iteration count and per
# repetition, and each call verifies against the host reference (threaded) before it times: the
# largest GEMMs take about a minute each.
#
#   tools/perf_measure.sh [BUILD_DIR [JSON_DIR]]
#     BUILD_DIR  the gpu preset's build (default build/gpu)
#     JSON_DIR   where the JSON goes, one file per binary and device: <binary>.<gfx9xx>.json
#                (default BUILD_DIR/perf-measured); runs on both targets in one directory make one
#                report over both
#   environment:
#     WAVEKIT_BENCH_REPETITIONS  repetitions of each case (default 3; the report takes the median)
#     WAVEKIT_BENCH_ALL=1        every case of those binaries, not only the report's
#     WAVEKIT_BENCH_ARGS         more Google Benchmark flags, e.g. --benchmark_min_time=1
#     WAVEKIT_MEASURED_REPORT    the report to write (default docs/performance-measured.md)
#     PYTHON                     the Python to run perf_report.py (default .venv/bin/python, else
#                                python3); without matplotlib the report has no plot
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build/gpu}" && pwd)
json_dir=${2:-$build/perf-measured}
reps=${WAVEKIT_BENCH_REPETITIONS:-3}
report=${WAVEKIT_MEASURED_REPORT:-$root/docs/performance-measured.md}
read -r -a extra <<< "${WAVEKIT_BENCH_ARGS:-}"
python=${PYTHON:-}
if [[ -z $python ]]; then
  if [[ -x $root/.venv/bin/python ]]; then python=$root/.venv/bin/python; else python=python3; fi
fi

model=$build/tools/perf_model/wavekit_perf_model
if [[ ! -x $model ]]; then
  echo "perf_measure: no $model; build it: cmake --build --preset gpu --target wavekit_perf_model" >&2
  exit 1
fi
# The device the runs file under (each JSON also names it in its context): the first gfx942/gfx950 agent.
arch=$( ("${ROCM_PATH:-/opt/rocm}/bin/rocm_agent_enumerator" 2>/dev/null || true) | grep -m1 -E '^gfx9(42|50)$' || true)
if [[ -z $arch ]]; then
  echo "perf_measure: no gfx942 or gfx950 device (rocm_agent_enumerator); the benchmarks need one" >&2
  exit 1
fi
mkdir -p "$json_dir"
benches=$("$python" "$root/tools/perf_report.py" --model "$model" --list-benches)

failed=()
while IFS=$'\t' read -r binary filter; do
  bin=$build/bench/$binary
  out=$json_dir/$binary.$arch.json
  if [[ ! -x $bin ]]; then
    echo "perf_measure: no $bin; build it: cmake --build --preset gpu --target $binary" >&2
    failed+=("$binary (not built)")
    continue
  fi
  args=(--benchmark_repetitions="$reps" --benchmark_display_aggregates_only=true
        --benchmark_out="$out" --benchmark_out_format=json "${extra[@]}")
  if [[ ${WAVEKIT_BENCH_ALL:-0} != 1 ]]; then args+=(--benchmark_filter="$filter"); fi
  echo "== $binary on $arch -> $out"
  if ! "$bin" "${args[@]}"; then
    # An unfinished run leaves unfinished JSON: set it aside so the report lists its rows as not run.
    [[ -f $out ]] && mv "$out" "$out.failed"
    failed+=("$binary (exit status; its output is in $out.failed)")
  fi
done <<< "$benches"

plot=()
if ! "$python" -c "import matplotlib" 2>/dev/null; then
  echo "perf_measure: $python has no matplotlib (tools/requirements.txt): the report has no plot" >&2
  plot=(--no-plot)
fi
"$python" "$root/tools/perf_report.py" --model "$model" --measured "$json_dir" --out "$report" "${plot[@]}"

if ((${#failed[@]})); then
  printf 'perf_measure: FAIL %s\n' "${failed[@]}" >&2
  exit 1
fi

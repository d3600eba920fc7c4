#!/usr/bin/env python3
"""tools/perf_report.py --measured on Google Benchmark JSON fixtures (test/tools/fixtures/): a
synthetic model (perf_model_rows.json, fixed predictions) joined with a GPU run of two binaries
(measured/) whose cases exercise each path: the median aggregate preferred over the mean and the
runs, manual time in us, ns and ms units, CPU time where the bench timed neither manually nor in
real time, a failed verification, a case the run lacks, a binary not run, a row with no benchmark,
a target with no run, a case no row names. Also: an emulator run refused, JSON without its device
refused unless --arch says it, a case measured twice refused, the filters of --list-benches,
tools/perf_measure.sh driving fake bench binaries (one of them failing), --check-benches on fake
emulated binaries, and (with --model BIN) that the fixture's cases join the real model's rows.

  test_perf_report_measured.py [--model wavekit_perf_model]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(HERE, "fixtures")
REPORT = os.path.join(ROOT, "tools", "perf_report.py")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import perf_measured  # noqa: E402

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL " + what)


def report(model, measured, out_dir, *extra):
    out = os.path.join(out_dir, "performance-measured.md")
    p = subprocess.run([sys.executable, REPORT, "--model", model, "--measured", measured, "--out", out, *extra],
                       capture_output=True, text=True)
    text = open(out).read() if p.returncode == 0 else ""
    return p.returncode, p.stdout + p.stderr, text


def row_line(text, shape, arch):
    for line in text.splitlines():
        if line.startswith(f"| {shape} | {arch} |"):
            return line
    return ""


def has_matplotlib():
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        return False


def check_fixture(tmp):
    plot = has_matplotlib()
    rc, log, text = report(os.path.join(FIXTURES, "perf_model_rows.json"), os.path.join(FIXTURES, "measured"), tmp,
                           *([] if plot else ["--no-plot"]))
    expect(rc == 0, f"--measured on the fixture exits 0 (got {rc}: {log})")
    want = [  # (shape, target, what the row's line must hold)
        # the median of 3, inside the prediction's interval
        ("1024x1536x7168 mn", "gfx942", "| 40.0 (36.0-52.0) | 50.0 | -20% | yes | 451 TFLOPS | 564 TFLOPS | "
         "`bench_gemm_fp8_blockscale` `blockscale/M:1024/N:1536/K:7168` | same |"),
        ("1024x3072x1536 mn", "gfx942", "| 30.0 | 25.0 (cpu time) | +20% |"),  # ms, no manual time
        ("1x16384 fp16", "gfx942", "| 4.00 (3.60-4.50) | 5.00 | -20% | no | 29 GB/s | 37 GB/s |"),  # ns, outside
        ("1024x3072x1536 mn", "gfx942", "| +20% | - |"),  # no interval in the row
        ("1x16384 fp16", "gfx942", "| fp16, per_tensor |"),  # the bench's label where it is not the plan
        ("8x16384 fp16", "gfx942", "not measured: failed: result differs from the host reference"),
        ("1x8192 fp16", "gfx942", "not measured: not in bench_glue's run"),
        ("1 x kv 21, 128 heads, bf16 cache", "gfx942", "not measured: bench_mla_decode not run"),
        ("16x7168x2048 k", "gfx942", "not measured: no benchmark"),
    ]
    for shape, arch, part in want:
        line = row_line(text, shape, arch)
        expect(part in line, f"the {shape} {arch} row holds '{part}' (got '{line}')")
    expect(not row_line(text, "1024x1536x7168 mn", "gfx950"), "a target without a run lists no rows")
    expect("No run on gfx950 (MI355X) in the directory; not listed: 1 row." in text, "the unrun target is named")
    expect("| gfx942 | 7 | 3 | 4 | 20% | -20% | 3 of 3 |" in text, "the gfx942 summary row")
    expect("- no benchmark: 1 row (gemm_half gfx942 16x7168x2048 k)" in text, "the not-measured list")
    expect("bench_gemm_fp8_blockscale 1." in text, "the case no row names is counted")
    expect("| bench_glue.json | bench_glue | gfx942 | AMD Instinct MI300X | mi300x-node |" in text, "the runs table")
    data = json.load(open(os.path.join(tmp, "perf", "measured_data.json")))
    expect(len(data["points"]) == 3, f"measured_data.json has the 3 measured rows (got {len(data['points'])})")
    if plot:
        expect(os.path.getsize(os.path.join(tmp, "perf", "predicted_vs_measured.png")) > 0, "the plot is drawn")


def check_refusals(tmp):
    model = os.path.join(FIXTURES, "perf_model_rows.json")
    rc, log, _ = report(model, os.path.join(FIXTURES, "measured_emulator"), tmp, "--no-plot")
    expect(rc == 1 and "an emulator run" in log, f"an emulator run is refused (got {rc}: {log})")
    bare = os.path.join(tmp, "bare")
    os.makedirs(bare)
    doc = json.load(open(os.path.join(FIXTURES, "measured", "bench_glue.json")))
    del doc["context"]["wavekit_device_arch"]
    json.dump(doc, open(os.path.join(bare, "bench_glue.json"), "w"))
    rc, log, _ = report(model, bare, tmp, "--no-plot")
    expect(rc == 1 and "--arch" in log, f"JSON without its device asks for --arch (got {rc}: {log})")
    rc, log, text = report(model, bare, tmp, "--no-plot", "--arch", "gfx942")
    expect(rc == 0 and "| 4.00 (3.60-4.50) | 5.00 | -20% |" in row_line(text, "1x16384 fp16", "gfx942"),
           f"--arch files it under gfx942 (got {rc}: {log})")
    twice = os.path.join(tmp, "twice")
    os.makedirs(twice)
    for name in ("a.json", "b.json"):
        shutil.copy(os.path.join(FIXTURES, "measured", "bench_glue.json"), os.path.join(twice, name))
    rc, log, _ = report(model, twice, tmp, "--no-plot")
    expect(rc == 1 and "also in a.json" in log, f"a case measured twice is refused (got {rc}: {log})")


def check_names():
    for listed, inst in (("blockscale/M:1024/N:1536/K:7168/iterations:1", "blockscale/M:1024/N:1536/K:7168"),
                         ("blockscale/M:1024/N:1536/K:7168/manual_time", "blockscale/M:1024/N:1536/K:7168"),
                         ("mfma_bound/real_time", "mfma_bound"), ("fp8_1x128/1024/7168", "fp8_1x128/1024/7168"),
                         ("x/M:1/min_time:0.500/repeats:3/manual_time/threads:2", "x/M:1")):
        expect(perf_measured.instance_name(listed) == inst, f"instance_name({listed}) == {inst}")
    rows = json.load(open(os.path.join(FIXTURES, "perf_model_rows.json")))["rows"]
    pattern = re.compile(perf_measured.bench_filters(rows)["bench_glue"])
    for name, runs in (("rmsnorm_quant/tokens:1/hidden:16384/1x128:0/manual_time", True),
                       ("swiglu_quant/tokens:1/d:8192/1x128:0/iterations:1", True),
                       ("rmsnorm_quant/tokens:16/hidden:16384/1x128:0/manual_time", False),
                       ("rmsnorm_quant/tokens:1/hidden:16384/1x128:1/manual_time", False)):
        expect(bool(pattern.search(name)) == runs, f"bench_glue's filter {'runs' if runs else 'skips'} {name}")


FAKE_BENCH = """#!/usr/bin/env bash
# A stand-in for a GPU bench binary: records its flags, writes the fixture's JSON for its name, or
# half a JSON file and a failure where the fixture has none.
name=$(basename "$0")
printf '%s\\n' "$@" > "$(dirname "$0")/args.$name"
for a in "$@"; do case $a in --benchmark_out=*) out=${a#--benchmark_out=} ;; esac; done
if [[ -f FIXTURES/$name.json ]]; then cp "FIXTURES/$name.json" "$out"; else echo '{"context": {' > "$out"; exit 1; fi
"""


def executable(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text)
    os.chmod(path, 0o755)


def check_driver(tmp):
    """tools/perf_measure.sh over a fake gpu build: the model's binaries run with the report's filters,
    a failed binary is set aside and named, and the report is written from the rest."""
    build = os.path.join(tmp, "build")
    executable(os.path.join(build, "tools", "perf_model", "wavekit_perf_model"),
               f"#!/bin/sh\ncat '{os.path.join(FIXTURES, 'perf_model_rows.json')}'\n")
    executable(os.path.join(tmp, "rocm", "bin", "rocm_agent_enumerator"), "#!/bin/sh\nprintf 'gfx000\\ngfx942\\n'\n")
    for name in ("bench_gemm_fp8_blockscale", "bench_glue", "bench_mla_decode"):
        executable(os.path.join(build, "bench", name), FAKE_BENCH.replace("FIXTURES", os.path.join(FIXTURES, "measured")))
    out = os.path.join(tmp, "docs", "performance-measured.md")
    env = dict(os.environ, ROCM_PATH=os.path.join(tmp, "rocm"), PYTHON=sys.executable, WAVEKIT_MEASURED_REPORT=out,
               WAVEKIT_BENCH_REPETITIONS="5")
    p = subprocess.run(["bash", os.path.join(ROOT, "tools", "perf_measure.sh"), build], env=env, capture_output=True,
                       text=True)
    log = p.stdout + p.stderr
    expect(p.returncode == 1 and "FAIL bench_mla_decode" in log, f"the driver names the failed binary (got "
           f"{p.returncode}: {log})")
    runs = sorted(os.listdir(os.path.join(build, "perf-measured")))
    expect(runs == ["bench_gemm_fp8_blockscale.gfx942.json", "bench_glue.gfx942.json",
                    "bench_mla_decode.gfx942.json.failed"], f"one JSON per binary and device (got {runs})")
    args = open(os.path.join(build, "bench", "args.bench_glue")).read().splitlines()
    expect("--benchmark_repetitions=5" in args and "--benchmark_out_format=json" in args and
           "--benchmark_filter=^(rmsnorm_quant/tokens:1/hidden:16384/1x128:0|rmsnorm_quant/tokens:8/hidden:16384/"
           "1x128:0|swiglu_quant/tokens:1/d:8192/1x128:0)/" in args, f"bench_glue's flags (got {args})")
    text = open(out).read() if os.path.exists(out) else ""
    expect("| 40.0 (36.0-52.0) | 50.0 | -20% |" in row_line(text, "1024x1536x7168 mn", "gfx942") and
           "bench_mla_decode not run" in row_line(text, "1 x kv 21, 128 heads, bf16 cache", "gfx942"),
           "the driver's report joins the runs and lists the failed binary's rows")


def check_bench_names(tmp):
    """--check-benches on fake emulated binaries: gfx950 rows are looked up in `<binary>_gfx950` where it
    exists, and a name the binary does not list, a binary not built and an emulator-only binary named
    in a row each fail, naming the row."""
    for name, listed in (("bench_a", "fam/m:1/iterations:1"), ("bench_a_gfx950", "fam/m:2/iterations:1"),
                         ("bench_b", "other/n:3/iterations:1\nother/n:4/iterations:1")):
        executable(os.path.join(tmp, name), f"#!/bin/sh\nprintf '{listed}\\n'\n")

    def row(arch, binary, name):
        return {"op": "op", "arch": arch, "shape": name, "bench": {"binary": binary, "name": name}}

    def run(rows):
        with open(os.path.join(tmp, "model.json"), "w") as fh:
            json.dump({"targets": {}, "rows": rows, "calibration": {"pairs": []}}, fh)
        p = subprocess.run([sys.executable, REPORT, "--model", os.path.join(tmp, "model.json"), "--check-benches",
                            tmp], capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr
    good = [row("gfx942", "bench_a", "fam/m:1"), row("gfx950", "bench_a", "fam/m:2"),
            row("gfx950", "bench_b", "other/n:4"), {"op": "op2", "arch": "gfx942", "shape": "s"}]
    rc, log = run(good)
    expect(rc == 0 and "3 of 4 rows name a benchmark" in log and "no benchmark for: op2" in log,
           f"--check-benches passes listed names (got {rc}: {log})")
    for bad, why in ((row("gfx950", "bench_a", "fam/m:1"), "bench_a_gfx950 lists no fam/m:1"),
                     (row("gfx942", "bench_c", "x/m:1"), "not built in"),
                     (row("gfx950", "bench_a_gfx950", "fam/m:2"), "name the GPU binary, bench_a")):
        rc, log = run(good + [bad])
        expect(rc == 1 and why in log, f"--check-benches fails with '{why}' (got {rc}: {log})")


def check_real_model(model, tmp):
    """The fixture's cases are the real rows' benchmarks: they join, with the real predictions."""
    data = json.loads(subprocess.run([model], check=True, capture_output=True, text=True).stdout)
    rc, log, text = report(model, os.path.join(FIXTURES, "measured"), tmp, "--no-plot")
    expect(rc == 0, f"--measured with the real model exits 0 (got {rc}: {log})")
    for shape, us in (("1024x1536x7168 mn", 50.0), ("1x16384 fp16", 5.0)):
        row = next(r for r in data["rows"] if r["shape"] == shape and r["arch"] == "gfx942")
        err = f"{100 * (row['us'] / us - 1):+.0f}%"
        line = row_line(text, shape, "gfx942")
        expect(f"| {perf_measured.us_text(us)} | {err} |" in line, f"the real {shape} row joins at {us} us, {err} "
               f"(got '{line}')")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", help="the wavekit_perf_model binary: also join the fixture with the real rows")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for i, check in enumerate((check_fixture, check_refusals, check_driver, check_bench_names)):
            os.makedirs(os.path.join(tmp, str(i)))
            check(os.path.join(tmp, str(i)))
        check_names()
        if args.model:
            os.makedirs(os.path.join(tmp, "real"))
            check_real_model(args.model, os.path.join(tmp, "real"))
    if failures:
        print(f"{len(failures)} checks failed")
        return 1
    print("the measured report joins, times and lists as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())

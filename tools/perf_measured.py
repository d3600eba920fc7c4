"""The performance report's rows joined with the benchmarks that measure them (tools/perf_report.py
--measured, --check-benches, --list-benches).

Each model row may carry `bench`: {binary, name}, the bench/ binary and the Google Benchmark
instance that runs its op, shape and plan (tools/perf_model/perf_model.cpp, `bench()`). The name
is the instance's without the run-mode suffix the build appends: `/manual_time` on a GPU (the
bench times each call with hipEvents, test/support/gpu_timing.hpp), `/iterations:1` on the
emulator. On a GPU the binaries write Google Benchmark JSON (--benchmark_out=FILE
--benchmark_out_format=json), which carries the device in its context (`wavekit_device_arch`,
test/support/emulator_bench_main.hpp); the measured report joins those times with the
predictions.
"""
import glob
import json
import os
import re
import statistics
import subprocess

TARGETS = ("gfx942", "gfx950")
# The name components Google Benchmark appends after the arguments, in its order (BenchmarkName):
# they say how the instance runs, not what it runs.
RUN_MODE = re.compile(r"^(min_time:.*|min_warmup_time:.*|iterations:\d+|repeats:\d+|manual_time|real_time|"
                      r"process_time|threads:\d+)$")
TO_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


class MeasuredError(Exception):
    """Input that cannot be measured times: the message names the file and the fix."""


def instance_name(run_name):
    """`blockscale/M:1024/N:1536/K:7168/manual_time` -> `blockscale/M:1024/N:1536/K:7168`."""
    parts = run_name.split("/")
    while len(parts) > 1 and RUN_MODE.match(parts[-1]):
        parts.pop()
    return "/".join(parts)


def timed_by(run_name):
    """Which clock Google Benchmark reports for an instance: manual (the bench's own, hipEvents on a
    GPU) and real time land in `real_time`; otherwise the time is the CPU's (`cpu_time`)."""
    parts = run_name.split("/")
    if "manual_time" in parts:
        return "manual", "real_time"
    if "real_time" in parts:
        return "real", "real_time"
    return "cpu", "cpu_time"


# --- the emulated binaries' lists (the test that every row names an existing benchmark) ---

def emulated_binary(bench_dir, binary, arch):
    """The emulated build of `binary` for a row of target `arch`: `<binary>_gfx950` where the bench is
    built for both targets, else the binary itself (built for one target, or the same names on both)."""
    if arch == "gfx950" and os.path.exists(os.path.join(bench_dir, binary + "_gfx950")):
        return os.path.join(bench_dir, binary + "_gfx950")
    return os.path.join(bench_dir, binary)


def list_instances(path):
    out = subprocess.run([path, "--benchmark_list_tests"], check=True, capture_output=True, text=True).stdout
    return {instance_name(line.strip()) for line in out.splitlines() if line.strip()}


def check_benches(rows, bench_dir):
    """Fail, naming each row, where a row's benchmark is not in its binary's list."""
    lists, missing, absent = {}, [], set()
    for r in rows:
        if "bench" not in r:
            continue
        if r["bench"]["binary"].endswith("_gfx950"):
            # Only the emulator build has these; on a GPU one binary runs either target.
            missing.append(f"{r['op']} {r['arch']} {r['shape']}: names {r['bench']['binary']}, an emulator-only "
                           f"build; name the GPU binary, {r['bench']['binary'][:-len('_gfx950')]} (its gfx950 "
                           "rows are checked against the _gfx950 build here)")
            continue
        path = emulated_binary(bench_dir, r["bench"]["binary"], r["arch"])
        if not os.path.exists(path):
            absent.add(os.path.basename(path))
            continue
        if path not in lists:
            lists[path] = list_instances(path)
        if r["bench"]["name"] not in lists[path]:
            missing.append(f"{r['op']} {r['arch']} {r['shape']}: {os.path.basename(path)} lists no "
                           f"{r['bench']['name']}")
    without = sorted({r["op"] for r in rows if "bench" not in r})
    if absent:
        print("FAIL not built in " + bench_dir + ": " + ", ".join(sorted(absent)))
    for m in missing:
        print("FAIL " + m)
    if absent or missing:
        print("(the names come from tools/perf_model/perf_model.cpp's bench(); each bench's registration "
              "is in bench/)")
        return 1
    named = sum("bench" in r for r in rows)
    print(f"{named} of {len(rows)} rows name a benchmark in {len(lists)} binaries; every one is listed"
          + (f"; no benchmark for: {', '.join(without)}" if without else ""))
    return 0


def ere_escape(s):
    return re.sub(r"([.\[\]()*+?{}|^$\\])", r"\\\1", s)


def bench_filters(rows):
    """Per binary, a --benchmark_filter (POSIX extended, what Google Benchmark's regex takes) that runs
    exactly the report's instances."""
    names = {}
    for r in rows:
        if "bench" in r:
            names.setdefault(r["bench"]["binary"], set()).add(r["bench"]["name"])
    return {b: "^(" + "|".join(ere_escape(n) for n in sorted(ns)) + ")/" for b, ns in sorted(names.items())}


# --- the measured times ---

def device_arch(context, path, arch_override):
    if "wavekit_emulated_target" in context:
        raise MeasuredError(f"{path}: an emulator run ({context['wavekit_emulated_target']}); its times are "
                            "the CPU's. Run the `gpu` preset's binaries (tools/perf_measure.sh)")
    arch = context.get("wavekit_device_arch", "").split(":")[0] or arch_override
    if not arch:
        raise MeasuredError(f"{path}: no wavekit_device_arch in its context (a bench binary older than the "
                            "measured report?); pass --arch gfx942|gfx950")
    if arch not in TARGETS:
        raise MeasuredError(f"{path}: device {arch} is neither gfx942 nor gfx950")
    return arch


def load_measured(directory, arch_override=None):
    """{(arch, binary, instance): measurement} from every *.json in `directory`. A measurement is
    {us, clock, how, label, file} or {failed: message, file}. Per instance: the median aggregate if
    the run has one, else the mean aggregate, else the median of its runs."""
    files = sorted(glob.glob(os.path.join(directory, "*.json")))
    if not files:
        raise MeasuredError(f"{directory}: no Google Benchmark JSON (*.json) in it")
    measured, runs = {}, []
    for path in files:
        with open(path) as fh:
            doc = json.load(fh)
        if "benchmarks" not in doc or "context" not in doc:
            raise MeasuredError(f"{path}: not Google Benchmark JSON (--benchmark_out_format=json)")
        ctx = doc["context"]
        arch = device_arch(ctx, path, arch_override)
        binary = os.path.basename(ctx.get("executable", "")) or os.path.splitext(os.path.basename(path))[0]
        runs.append({"file": os.path.basename(path), "binary": binary, "arch": arch,
                     "device": ctx.get("wavekit_device_name", ""), "date": ctx.get("date", ""),
                     "host": ctx.get("host_name", "")})
        per = {}
        for b in doc["benchmarks"]:
            run_name = b.get("run_name") or b["name"]
            per.setdefault(instance_name(run_name), []).append((run_name, b))
        for inst, entries in per.items():
            key = (arch, binary, inst)
            if key in measured:
                raise MeasuredError(f"{path}: {binary} {inst} on {arch} is also in {measured[key]['file']}; "
                                    "keep one run per binary and device in the directory")
            measured[key] = pick(entries, os.path.basename(path))
    return measured, runs


def pick(entries, file):
    for _, b in entries:
        if b.get("error_occurred") or b.get("skipped"):
            return {"failed": b.get("error_message") or b.get("skip_message") or "skipped", "file": file}
    run_name = entries[0][0]
    clock, field = timed_by(run_name)

    def us(b):
        return b[field] * TO_US[b.get("time_unit", "ns")]
    label = next((b["label"] for _, b in entries if b.get("label")), "")
    aggregates = {b.get("aggregate_name"): b for _, b in entries if b.get("run_type") == "aggregate"}
    iterations = [b for _, b in entries if b.get("run_type", "iteration") == "iteration"]
    for name in ("median", "mean"):
        if name in aggregates:
            return {"us": us(aggregates[name]), "clock": clock, "how": f"{name} of {aggregates[name]['repetitions']}",
                    "label": label, "file": file}
    times = [us(b) for b in iterations]
    how = "1 run" if len(times) == 1 else f"median of {len(times)}"
    return {"us": statistics.median(times), "clock": clock, "how": how, "label": label, "file": file}


def join(rows, measured, runs):
    """Each row with its measurement, or the reason it has none."""
    measured_targets = {r["arch"] for r in runs}
    ran = {(r["arch"], r["binary"]) for r in runs}
    out = []
    for r in rows:
        j = dict(r)
        b = r.get("bench")
        m = measured.get((r["arch"], b["binary"], b["name"])) if b else None
        if not b:
            j["missing"] = "no benchmark"
        elif r["arch"] not in measured_targets:
            j["missing"] = f"no run on {r['arch']}"
        elif m is None:
            j["missing"] = (f"not in {b['binary']}'s run" if (r["arch"], b["binary"]) in ran
                            else f"{b['binary']} not run")
        elif "failed" in m:
            j["missing"] = "failed: " + m["failed"]
        else:
            j["measured"] = m
            j["error"] = r["us"] / m["us"] - 1
        out.append(j)
    return out


def unmatched(rows, measured):
    """Measured instances no row names (the bench's other cases), counted per binary."""
    named = {(r["arch"], r["bench"]["binary"], r["bench"]["name"]) for r in rows if "bench" in r}
    count = {}
    for key in measured:
        if key not in named:
            count[key[1]] = count.get(key[1], 0) + 1
    return count


# --- the measured report ---

def us_text(v):
    return f"{v:.2f}" if v < 10 else f"{v:.1f}"


def rows_text(n):
    return f"{n} row" + ("" if n == 1 else "s")


def rate_text(r, us):
    """TFLOPS for compute rows, GB/s of the ideal bytes for memory rows."""
    if r["kind"] == "compute":
        return f"{r['flops'] / us / 1e6:.0f} TFLOPS"
    return f"{r['ideal_bytes'] / us / 1e3:.0f} GB/s"


def summary(joined, arch):
    sel = [j for j in joined if j["arch"] == arch]
    errs = [j["error"] for j in sel if "error" in j]
    if not errs:
        return f"| {arch} | {len(sel)} | 0 | {len(sel)} | - | - | - |\n"
    within = sum(abs(e) <= 0.25 for e in errs)
    return (f"| {arch} | {len(sel)} | {len(errs)} | {len(sel) - len(errs)} | "
            f"{100 * sum(abs(e) for e in errs) / len(errs):.0f}% | {100 * statistics.median(errs):+.0f}% | "
            f"{within} of {len(errs)} |\n")


def predicted_text(j):
    """The prediction with its calibrated interval (the model's held-out error) where the row has one."""
    if "low_us" not in j:
        return us_text(j["us"])
    return f"{us_text(j['us'])} ({us_text(j['low_us'])}-{us_text(j['high_us'])})"


def in_interval(j, measured_us):
    if "low_us" not in j:
        return "-"
    return "yes" if j["low_us"] <= measured_us <= j["high_us"] else "no"


def op_table(rows):
    head = ("| shape | target | model's plan | predicted us (interval) | measured us | error | in interval | "
            "measured rate | predicted rate | benchmark | ran (label) |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
    lines = []
    for j in rows:
        bench = f"`{j['bench']['binary']}` `{j['bench']['name']}`" if "bench" in j else "-"
        if "measured" in j:
            m = j["measured"]
            clock = "" if m["clock"] == "manual" else f" ({m['clock']} time)"
            ran = "same" if m["label"] == j["config"] else (m["label"] or "-")  # a differing plan stands out
            lines.append(f"| {j['shape']} | {j['arch']} | `{j['config']}` | {predicted_text(j)} | "
                         f"{us_text(m['us'])}{clock} | {100 * j['error']:+.0f}% | {in_interval(j, m['us'])} | "
                         f"{rate_text(j, m['us'])} | {rate_text(j, j['us'])} | {bench} | {ran} |")
        else:
            lines.append(f"| {j['shape']} | {j['arch']} | `{j['config']}` | {predicted_text(j)} | not measured: "
                         f"{j['missing']} | - | - | - | {rate_text(j, j['us'])} | {bench} | - |")
    return head + "\n".join(lines) + "\n"


def render(data, joined, runs, extra, ops, plot_name):
    targets = sorted({r["arch"] for r in runs})
    text = ["# Performance report: measured\n\n",
            "Generated by `tools/perf_report.py --measured` (tools/perf_measure.sh runs the benchmarks on the GPU "
            "and calls it) from the bench/ binaries' Google Benchmark JSON, beside the analytical model's "
            "predictions for the same rows ([performance.md](performance.md) is the model-only report; "
            "[performance-model.md](performance-model.md) the model). Measured us: the benchmark's time per call "
            "(hipEvents around the call, operands evicted from L2 first; the median of the repetitions where "
            "there are several). Error: predicted / measured - 1, negative where the model is too fast. Rates: "
            "the row's FLOPs (compute rows) or ideal bytes (memory rows) over the time.\n\n",
            "| file | binary | target | device | host | date |\n|---|---|---|---|---|---|\n"]
    for r in runs:
        text.append(f"| {r['file']} | {r['binary']} | {r['arch']} | {r['device'] or '-'} | {r['host'] or '-'} | "
                    f"{r['date'] or '-'} |\n")
    if plot_name:
        text.append(f"\n![predicted vs measured](perf/{plot_name})\n")
    text.append("\n## The model's error per target\n\n| target | rows | measured | not measured | mean abs error | "
                "median error | within +-25% |\n|---|---|---|---|---|---|---|\n")
    for arch in targets:
        text.append(summary(joined, arch))
    skipped = [a for a in data["targets"] if a not in targets]
    for arch in skipped:
        n = sum(j["arch"] == arch for j in joined)
        text.append(f"\nNo run on {arch} ({data['targets'][arch]['product']}) in the directory; not listed: "
                    f"{rows_text(n)}.\n")
    for op, title in ops:
        sel = [j for j in joined if j["op"] == op and j["arch"] in targets]
        if sel:
            text.append(f"\n## {op}: {title}\n\n" + op_table(sel))
    rest = sorted({j["op"] for j in joined} - {op for op, _ in ops})
    for op in rest:
        sel = [j for j in joined if j["op"] == op and j["arch"] in targets]
        if sel:
            text.append(f"\n## {op}\n\n" + op_table(sel))
    missing = [j for j in joined if "missing" in j and j["arch"] in targets]
    text.append("\n## Not measured\n\n")
    if missing:
        reasons = {}
        for j in missing:
            reasons.setdefault(j["missing"], []).append(f"{j['op']} {j['arch']} {j['shape']}")
        for why, what in sorted(reasons.items()):
            text.append(f"- {why}: {rows_text(len(what))} ({'; '.join(what)})\n")
    else:
        text.append("Every row of the measured targets has its time.\n")
    if extra:
        text.append("\nMeasured cases no report row names (the benchmarks' other shapes): " +
                    ", ".join(f"{b} {n}" for b, n in sorted(extra.items())) + ".\n")
    return "".join(text)


def plot_points(joined):
    return [{"op": j["op"], "arch": j["arch"], "shape": j["shape"], "predicted": j["us"],
             "measured": j["measured"]["us"], "error": j["error"]} for j in joined if "measured" in j]


# --- the plots' colours ---

# One colour per op in every plot (the roofline of each target, predicted vs published, predicted vs
# measured): the op's place in the report's op list (the model's "ops") picks it. matplotlib's tab10 without its grey
# (the plots draw y = x and the roofs in grey and black), then tab20's light tones.
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf",
           "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5"]
TARGET_MARKERS = {"gfx942": "o", "gfx950": "^"}


def op_colours(ops, extra=()):
    """{op: colour} for the op names `ops` (the report's order), then any `extra` ops after them."""
    names = list(ops) + sorted(set(extra) - set(ops))
    if len(names) > len(PALETTE):
        raise ValueError(f"{len(names)} ops, {len(PALETTE)} colours: add colours to perf_measured.PALETTE")
    return {op: PALETTE[i] for i, op in enumerate(names)}


def op_legend_handles(colours, present, marker="o"):
    """Legend entries, one per op of `present`, in the colour order."""
    from matplotlib.lines import Line2D
    return [Line2D([], [], ls="none", marker=marker, color=colours[op], label=op) for op in colours if op in present]


def target_legend_handles(targets, products=None):
    from matplotlib.lines import Line2D
    return [Line2D([], [], ls="none", marker=TARGET_MARKERS[a], mfc="none", color="k",
                   label=f"{products[a]} ({a})" if products else a) for a in sorted(targets)]


def draw(points, path, ops, products=None):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    colours = op_colours(ops, {p["op"] for p in points})
    fig, ax = plt.subplots(figsize=(8.5, 5), layout="constrained")
    for op in colours:
        for arch in sorted({p["arch"] for p in points if p["op"] == op}):
            sel = [p for p in points if p["op"] == op and p["arch"] == arch]
            ax.scatter([p["measured"] for p in sel], [p["predicted"] for p in sel], s=16,
                       marker=TARGET_MARKERS[arch], color=colours[op])
    values = [p["measured"] for p in points] + [p["predicted"] for p in points]
    lo, hi = min(values) / 1.5, max(values) * 1.5
    ax.plot([lo, hi], [lo, hi], color="grey", lw=1, label="y = x (model exact)")
    ax.fill_between([lo, hi], [lo * 0.75, hi * 0.75], [lo * 1.25, hi * 1.25], color="grey", alpha=0.15,
                    label="within +-25%")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("measured time per call (us; bench/ on a real GPU)")
    ax.set_ylabel("predicted time per call (us; the model)")
    ax.set_title("wavekit's kernels: the model's prediction vs the measured time (same kernels)", fontsize=10)
    fig.legend(handles=op_legend_handles(colours, {p["op"] for p in points}), title="op", loc="outside right upper",
               fontsize=7, title_fontsize=8)
    fig.legend(handles=target_legend_handles({p["arch"] for p in points}, products) + ax.get_legend_handles_labels()[0],
               title="target, guides", loc="outside right lower", fontsize=7, title_fontsize=8)
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)


def write_measured(data, directory, out, ops, arch_override=None, plot=True):
    measured, runs = load_measured(directory, arch_override)
    joined = join(data["rows"], measured, runs)
    plot_dir = os.path.join(os.path.dirname(os.path.abspath(out)), "perf")
    points = plot_points(joined)
    plot_name = "predicted_vs_measured.png" if plot and points else None
    text = render(data, joined, runs, unmatched(data["rows"], measured), ops, plot_name)
    os.makedirs(plot_dir, exist_ok=True)
    with open(out, "w") as fh:
        fh.write(text)
    with open(os.path.join(plot_dir, "measured_data.json"), "w") as fh:
        fh.write(json.dumps({"runs": runs, "points": points}, indent=1, sort_keys=True) + "\n")
    if plot_name:
        draw(points, os.path.join(plot_dir, plot_name), [op for op, _ in ops],
             {a: t["product"] for a, t in data["targets"].items()})
    n = len(points)
    shown = [j for j in joined if j["arch"] in {r["arch"] for r in runs}]
    print(f"{out}: {n} of {len(shown)} rows measured" +
          (f", mean abs error {100 * sum(abs(p['error']) for p in points) / n:.0f}%" if n else ""))
    return 0

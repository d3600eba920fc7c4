#!/usr/bin/env python3
"""wavekit performance report: the analytical model's predictions (tools/perf_model, the model in
include/wavekit/planning/model/) over every modelled op's benchmark shapes, next to the peers' published
times, as docs/performance.md and plots under docs/perf/.

  perf_report.py --model BIN --write        rewrite docs/performance.md, docs/perf/plot_data.json and *.png
  perf_report.py --model BIN --check        fail (naming the fix) if the committed report is stale
  perf_report.py --model BIN --measured DIR [--out FILE]
                                            on a GPU: the predictions beside the times of the bench/
                                            binaries' Google Benchmark JSON in DIR, as a separate
                                            report (default docs/performance-measured.md, its plot
                                            and data in docs/perf/); tools/perf_measure.sh runs it all
  perf_report.py --model BIN --check-benches BENCH_DIR
                                            fail unless every row's benchmark is in its emulated
                                            binary's --benchmark_list_tests
  perf_report.py --model BIN --list-benches per binary, the --benchmark_filter of the report's rows

BIN is the wavekit_perf_model binary or its output saved as a .json file. The plots are drawn from
docs/perf/plot_data.json, which --check compares (PNG bytes depend on the plotting package's
version, the data they show does not). The report's sections are the ops the model's JSON lists
("ops": each op with a report title in include/wavekit/ops/registry.hpp, in its order); every plot
gives an op one colour, from its place in that list (perf_measured.op_colours). A roofline draws one
roof per dtype whose peak its target's rows carry (each row's "roof"; none for rows the model gives
no peak). tools/perf_measured.py holds the measured side.

Each row's LDS column joins the LDS census (docs/perf/lds_census_<target>.json, written by
tools/lds_census: the emulator's counters of each kernel config on a small problem); a row without
its census entry fails the report.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys

import perf_measured
import perf_profiles

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPORT = os.path.join(ROOT, "docs", "performance.md")
PLOT_DIR = os.path.join(ROOT, "docs", "perf")
PLOT_DATA = os.path.join(PLOT_DIR, "plot_data.json")
CENSUS_FIX = "regenerate with `cmake --build --preset ci --target lds_census`"


def report_ops(data):
    """The report's sections, (op, title) in the model's order (the op registry's)."""
    return [(o["op"], o["title"]) for o in data["ops"]]


def run_model(binary):
    if binary.endswith(".json"):
        with open(binary) as fh:
            return json.load(fh)
    out = subprocess.run([binary], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def f(v, digits=1):
    return f"{v:.{digits}f}"


def rate(r):
    """TFLOPS for compute rows, GB/s of the ideal bytes for memory rows."""
    if r["kind"] == "compute":
        return f"{r['flops'] / r['us'] / 1e6:.0f} TFLOPS"
    return f"{r['ideal_bytes'] / r['us'] / 1e3:.0f} GB/s"


class CensusError(Exception):
    pass


def load_census(targets):
    """The LDS census entries of every target, by (op, arch, config)."""
    census = {}
    for arch in targets:
        path = os.path.join(PLOT_DIR, f"lds_census_{arch}.json")
        if not os.path.exists(path):
            raise CensusError(f"{os.path.relpath(path, ROOT)} is missing; {CENSUS_FIX}")
        with open(path) as fh:
            for e in json.load(fh):
                census[(e["op"], e["arch"], e["config"])] = e
    return census


def census_config(row):
    """The config a row's census entry is filed under: the row's config without its K splits (they
    change how much of K a workgroup runs, not its LDS accesses); for MLA, whose config column names
    the split plan, the kernel (its config<waves, KV tile> and cache type)."""
    if row["op"] == "mla_decode":
        return row["kernel"]
    return re.sub(r", sk\d+>$", ">", row["config"])


def census_of(row, census):
    key = (row["op"], row["arch"], census_config(row))
    if key not in census:
        raise CensusError(f"no LDS census entry for {row['op']} on {row['arch']} with config '{key[2]}' (the row "
                          f"{row['shape']}): tools/lds_census must run that config; {CENSUS_FIX}")
    return census[key]


def census_note(rows, census):
    """The census problem of each config a table's rows use."""
    seen = []
    for r in rows:
        e = census_of(r, census)
        if e not in seen:
            seen.append(e)
    items = "".join(f"- {e['arch']} `{e['config']}`: {e['problem']}\n" for e in seen)
    return ("\nLDS conflict cycles / LDS instructions: the emulator's counters over every launch of the row's "
            "kernel config on its census problem (tools/lds_census), not on the row's shape:\n\n" + items)


def op_table(rows, census):
    head = ("| shape | target | config | predicted us (interval) | rate | % of limit | bound | VGPR / AGPR / LDS / occ. "
            "| MFMA share | DRAM bytes / ideal | LDS conflict cycles / LDS instr. (emulated) | peers (published us) |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|---|\n")
    lines = []
    for r in rows:
        lds = census_of(r, census)
        res = f"{r['vgpr']} / {r['agpr']} / {r['lds']} / {r['occupancy']}" if "vgpr" in r else "-"
        share = f(r["mfma_share"], 3) if "mfma_share" in r else "-"
        peers = "; ".join(f"{p['who']} {p['us']:g}" for p in r["peers"]) or "-"
        bounds = " + ".join(l["bound"] for l in r["launches"])
        lines.append(f"| {r['shape']} | {r['arch']} | `{r['config']}` | {f(r['us'])} ({interval(r)}) | {rate(r)} | "
                     f"{100 * r['limit_us'] / r['us']:.0f}% | {bounds} | {res} | {share} | "
                     f"{r['dram_bytes'] / r['ideal_bytes']:.3f} | "
                     f"{lds['lds_bank_conflict_cycles']} / {lds['lds_instructions']} | {peers} |")
    return head + "\n".join(lines) + "\n" + census_note(rows, census)


def interval(r):
    """A row's calibrated interval (the model's held-out error), as 'low-high'."""
    return f"{f(r['low_us'])}-{f(r['high_us'])}"


def calibration_section(c):
    """The calibration table: every published code-and-time pair, fitted or held out, and the error
    per family (docs/performance-model.md)."""
    pairs, fit, held = c["pairs"], c["fitted"], c["held_out"]
    text = ["## Calibration: the model on published kernels\n\n",
            "The model's free parameters are fitted on the pairs marked *fit*: kernels whose code is public, "
            "compiled here by wavekit's compiler, and their published MI300X times "
            "(`tools/perf_model/published_pairs.hpp`; tools/foreign_kernels/README.md says how each profile was "
            "made). The *held out* pairs were not used in the fit; their error is the interval every "
            "prediction in this report carries. Each pair's prediction is what `wavekit_perf_model --profile ROW "
            "--launch DESC` prints for its kernel's profile rows and launch descriptions (the JSON holds each "
            "command).\n\n",
            f"Fitted: a load's round trip {fit['load_latency_ns']:g} ns, exposed LDS phases at "
            f"{fit['exposed_lds']:g} times their full-width time, a launch {fit['launch_us']:g} us. Held out: predicted / "
            f"published from {held['ratio_low']:g} to {held['ratio_high']:g}, so a prediction p is given as "
            f"p / {held['ratio_high']:g} to p / {held['ratio_low']:g}.\n\n",
            "| pair | family | set | published us | predicted us | predicted / published |\n"
            "|---|---|---|---|---|---|\n"]
    for p in pairs:
        text.append(f"| {p['id']} | {p['family']} | {p['set']} | {p['published_us']:g} | {f(p['us'], 2)} | "
                    f"{p['us'] / p['published_us']:.3f} |\n")
    text.append("\n| family | set | pairs | median abs(predicted / published - 1) | worst |\n|---|---|---|---|---|\n")
    for family in sorted({p["family"] for p in pairs}):
        for kind in ("fit", "held out"):
            errs = sorted(abs(p["us"] / p["published_us"] - 1) for p in pairs
                          if p["family"] == family and p["set"] == kind)
            if errs:
                mid = len(errs) // 2
                median = errs[mid] if len(errs) % 2 else (errs[mid - 1] + errs[mid]) / 2
                text.append(f"| {family} | {kind} | {len(errs)} | {100 * median:.1f}% | {100 * errs[-1]:.1f}% |\n")
    worst = max((abs(p["us"] / p["published_us"] - 1) for p in pairs if p["set"] == "held out"), default=0)
    text.append(f"\nWorst held-out error: {100 * worst:.1f}% ({'within' if worst <= 0.25 else 'outside'} the 25% "
                "target). Published times whose code is not public or does not build here (aiter's assembly and "
                "CK kernels, HipKittens' MLA decode, the MI355X task times) are not pairs: they appear below beside "
                "wavekit's predictions and are outside this error. No pair is on MI355X: its predictions use "
                "MI300X's calibration.\n\n")
    return "".join(text)


def comparisons(rows):
    out = []
    for r in rows:
        for p in r["peers"]:
            out.append({"op": r["op"], "arch": r["arch"], "shape": r["shape"], "who": p["who"], "published": p["us"],
                        "predicted": r["us"], "low": r["low_us"], "high": r["high_us"]})
    return out


def render(data, census):
    rows = data["rows"]
    text = ["# Performance report\n\n",
            "Generated by `tools/perf_report.py` from the analytical model ([performance-model.md]"
            "(performance-model.md); the model lives in `include/wavekit/planning/model/`); do not edit. Regenerate with "
            "`cmake --build --preset ci --target perf_report`; the test `lint: performance report is current` "
            "fails when this file differs from what the code gives.\n\n",
            "No AMD GPU was available: every wavekit time here is the model's prediction for the plan wavekit's "
            "dispatch chooses, from the codegen report's figures of that plan's kernel and the bytes it moves. "
            "Peer times are published measurements on real GPUs (sources in performance-model.md). On a GPU, "
            "the benchmarks print measured times (`bench/`); [the last section](#measured-times) says how they "
            "join this report. The LDS column is measured, not modelled: the emulator's bank-conflict cycles and "
            "LDS instructions of each row's kernel config on a small problem (the LDS census; each table names "
            "its problems).\n\n",
            "![roofline MI300X](perf/roofline_gfx942.png) ![roofline MI355X](perf/roofline_gfx950.png)\n\n",
            "![predicted vs published](perf/predicted_vs_published.png)\n\n",
            calibration_section(data["calibration"])]
    text.append("## wavekit (predicted) against the peers (published)\n\n"
                "Not a validation: the peers ran their own kernels. The ratio says how far wavekit's predicted "
                "time is from the best published one for the same problem; the interval is the calibration's "
                "held-out error, and a ratio whose interval spans 1 says neither is known to be faster.\n\n"
                "| op | target | shape | peer | published us | wavekit predicted us (interval) | "
                "predicted / published (interval) |\n"
                "|---|---|---|---|---|---|---|\n")
    for c in comparisons(rows):
        text.append(f"| {c['op']} | {c['arch']} | {c['shape']} | {c['who']} | {c['published']:g} | "
                    f"{f(c['predicted'])} ({f(c['low'])}-{f(c['high'])}) | {c['predicted'] / c['published']:.2f} "
                    f"({c['low'] / c['published']:.2f}-{c['high'] / c['published']:.2f}) |\n")
    for op, title in report_ops(data):
        text.append(f"\n## {op}: {title}\n\n")
        text.append(op_table([r for r in rows if r["op"] == op], census))
    unmeasured = sorted({r["op"] for r in rows if "bench" not in r})
    text.append("\n## Measured times\n\nEach row names the benchmark case that measures it (`bench/`; the model's "
                "JSON carries its binary and name). On an MI300X or MI355X, `tools/perf_measure.sh` (or `cmake --build "
                "--preset gpu --target perf_report_measured`) runs those cases and writes "
                "`docs/performance-measured.md`: the measured time and rate and the model's error beside each "
                "prediction." + (" No benchmark measures " + ", ".join(f"`{o}`" for o in unmeasured) + " yet."
                                 if unmeasured else "") + "\n")
    return "".join(text)


class PlotError(Exception):
    pass


def roof_dtype(r):
    """The dtype of the row's compute roof (tools/perf_model/perf_model.cpp names it with the peak it
    passes: the target's fp8, fp4 or bf16 dense TFLOPS; bf16 and fp16 share theirs); None where the
    model gives the row no peak (0)."""
    if not r["peak_tflops"]:
        return None
    if "roof" not in r:
        raise PlotError(f"{r['op']} {r['arch']} {r['shape']}: a peak of {r['peak_tflops']:g} TFLOPS of no dtype; "
                        "tools/perf_model/perf_model.cpp must name the row's roof")
    return r["roof"]


def roofs(rows, arch):
    """The compute roofs of a target: each dtype's peak, as its rows carry it, highest first."""
    peaks = {}
    for r in rows:
        dtype = roof_dtype(r)
        if r["arch"] != arch or dtype is None:
            continue
        if peaks.setdefault(dtype, r["peak_tflops"]) != r["peak_tflops"]:
            raise PlotError(f"{arch} {dtype}: rows carry two peaks, {peaks[dtype]:g} and {r['peak_tflops']:g} TFLOPS "
                            f"({r['op']} {r['shape']})")
    return [{"dtype": d, "peak_tflops": p} for d, p in sorted(peaks.items(), key=lambda dp: (-dp[1], dp[0]))]


def plot_data(data):
    points = {}
    targets = {}
    for arch in data["targets"]:
        points[arch] = [{"op": r["op"], "shape": r["shape"], "intensity": r["flops"] / r["dram_bytes"],
                         "achieved": r["flops"] / r["us"] / 1e6, "peak_tflops": r["peak_tflops"],
                         "dtype": roof_dtype(r)}
                        for r in data["rows"] if r["arch"] == arch and r["flops"]]
        targets[arch] = dict(data["targets"][arch], roofs=roofs(data["rows"], arch))
    return {"ops": [op for op, _ in report_ops(data)], "targets": targets, "roofline": points,
            "predicted_vs_published": comparisons(data["rows"]),
            "calibration": [{"kernel": p["family"], "set": p["set"], "published_us": p["published_us"], "us": p["us"]}
                            for p in data["calibration"]["pairs"]]}


def log_limits(values, margin=1.6):
    return min(values) / margin, max(values) * margin


ROOF_STYLES = ["-", "--", "-.", ":"]
DTYPE_MARKERS = {"mxfp4": "D", "fp8": "o", "bf16/fp16": "s", None: "v"}


def draw_roofline(arch, pts, target, colours, path):
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    hbm, product, rfs = target["hbm_tb_per_s"], target["product"], target["roofs"]
    ridges = [r["peak_tflops"] / hbm for r in rfs]
    xlo, xhi = log_limits([p["intensity"] for p in pts] + ridges, 2.5)
    ylo, yhi = log_limits([p["achieved"] for p in pts] + [r["peak_tflops"] for r in rfs] + [xlo * hbm], 1.6)
    fig, ax = plt.subplots(figsize=(9, 5), layout="constrained")
    top = max(ridges) if ridges else xhi
    ax.plot([xlo, top], [xlo * hbm, top * hbm], color="k", lw=1.2)
    ax.text(top / 1.2, top * hbm, f"HBM {hbm:g} TB/s", ha="right", va="bottom", fontsize=8)
    roof_handles = [Line2D([], [], color="k", lw=1.2, label=f"HBM {hbm:g} TB/s")]
    for i, (r, ridge) in enumerate(zip(rfs, ridges)):
        style = ROOF_STYLES[i % len(ROOF_STYLES)]
        ax.plot([ridge, xhi], [r["peak_tflops"]] * 2, color="dimgrey", lw=1.2, ls=style)
        ax.text(1.01, r["peak_tflops"], f"{r['dtype']} roof\n{r['peak_tflops']:g} TFLOPS", ha="left", va="center",
                fontsize=7, transform=ax.get_yaxis_transform())
        roof_handles.append(Line2D([], [], color="dimgrey", lw=1.2, ls=style, marker=DTYPE_MARKERS[r["dtype"]],
                                   mfc="none", mec="k", label=f"{r['dtype']} roof {r['peak_tflops']:g} TFLOPS"))
    if any(p["dtype"] is None for p in pts):
        ops = sorted({p["op"] for p in pts if p["dtype"] is None}, key=list(colours).index)
        roof_handles.append(Line2D([], [], ls="none", marker=DTYPE_MARKERS[None], mfc="none", mec="k",
                                   label=f"no compute roof modelled ({', '.join(ops)})"))
    for op in colours:
        for dtype in sorted({p["dtype"] for p in pts if p["op"] == op}, key=list(DTYPE_MARKERS).index):
            sel = [p for p in pts if p["op"] == op and p["dtype"] == dtype]
            ax.scatter([p["intensity"] for p in sel], [p["achieved"] for p in sel], s=18, color=colours[op],
                       marker=DTYPE_MARKERS[dtype], zorder=3)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(xlo, xhi)
    ax.set_ylim(ylo, yhi)
    ax.set_xlabel("arithmetic intensity (FLOPs per DRAM byte moved)")
    ax.set_ylabel("throughput (TFLOPS; predicted by the model)")
    ax.set_title(f"{product} ({arch}): wavekit's kernels on every modelled shape (model's prediction)", fontsize=10)
    fig.legend(handles=perf_measured.op_legend_handles(colours, {p["op"] for p in pts}), title="op (colour)",
               loc="outside right upper", fontsize=7, title_fontsize=8)
    ax.legend(handles=roof_handles, title="roofs (a point's marker: its roof)", loc="lower right", fontsize=7,
              title_fontsize=8)
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)


def draw_published(pd, colours, path):
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    comp, val = pd["predicted_vs_published"], pd["calibration"]
    fig, ax = plt.subplots(figsize=(9, 6), layout="constrained")
    for op in colours:
        for arch in sorted({c["arch"] for c in comp if c["op"] == op}):
            sel = [c for c in comp if c["op"] == op and c["arch"] == arch]
            ax.scatter([c["published"] for c in sel], [c["predicted"] for c in sel], s=16, color=colours[op],
                       marker=perf_measured.TARGET_MARKERS[arch])
    for kind, marker in (("fit", "+"), ("held out", "x")):
        sel = [v for v in val if v["set"] == kind]
        ax.scatter([v["published_us"] for v in sel], [v["us"] for v in sel], marker=marker, s=40, color="k", zorder=3)
    lo, hi = log_limits([c["published"] for c in comp] + [c["predicted"] for c in comp] +
                        [v["published_us"] for v in val] + [v["us"] for v in val], 1.5)
    ax.plot([lo, hi], [lo, hi], color="grey", lw=1)
    ax.fill_between([lo, hi], [lo * 0.75, hi * 0.75], [lo * 1.25, hi * 1.25], color="grey", alpha=0.15)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("published time per call (us; peer kernels measured on a real GPU)")
    ax.set_ylabel("predicted time per call (us; the model)")
    ax.set_title("wavekit (model) vs peer kernels (published, real GPU): different kernels\n"
                 "only the calibration points (+ fit, x held out) model the same kernel that was measured", fontsize=10)
    fig.legend(handles=perf_measured.op_legend_handles(colours, {c["op"] for c in comp}),
               title="wavekit's kernel (model) vs\npeers' kernels (published):\ndifferent kernels, by op",
               loc="outside right upper", fontsize=7, title_fontsize=8)
    products = {a: t["product"] for a, t in pd["targets"].items()}
    kernels = sorted({v["kernel"] for v in val})
    fig.legend(handles=perf_measured.target_legend_handles({c["arch"] for c in comp}, products) +
               [Line2D([], [], ls="none", marker="+", color="k",
                       label="calibration, fit: " + "; ".join(kernels) + "\nmodelled vs its published time (same kernel)"),
                Line2D([], [], ls="none", marker="x", color="k", label="calibration, held out"),
                Line2D([], [], color="grey", lw=1, label="y = x"),
                plt.Rectangle((0, 0), 1, 1, color="grey", alpha=0.15, label="within +-25% of y = x")],
               title="target (marker), calibration", loc="outside right lower", fontsize=7, title_fontsize=8)
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)


def draw(pd):
    import matplotlib
    matplotlib.use("Agg")
    ops = {p["op"] for pts in pd["roofline"].values() for p in pts} | {c["op"] for c in pd["predicted_vs_published"]}
    colours = perf_measured.op_colours(pd["ops"], ops)
    for arch, pts in pd["roofline"].items():
        draw_roofline(arch, pts, pd["targets"][arch], colours, os.path.join(PLOT_DIR, f"roofline_{arch}.png"))
    draw_published(pd, colours, os.path.join(PLOT_DIR, "predicted_vs_published.png"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True, help="the wavekit_perf_model binary, or its output as .json")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--measured", metavar="DIR", help="Google Benchmark JSON outputs of the bench/ binaries")
    mode.add_argument("--check-benches", metavar="BENCH_DIR", help="the emulated bench binaries' directory")
    mode.add_argument("--list-benches", action="store_true")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "performance-measured.md"),
                    help="--measured: the report to write; its plot and data go to perf/ beside it")
    ap.add_argument("--arch", choices=perf_measured.TARGETS, help="--measured: the target of JSON that does not say")
    ap.add_argument("--no-plot", action="store_true", help="--measured: no PNG (no matplotlib needed)")
    args = ap.parse_args()
    data = run_model(args.model)
    if args.measured:
        try:
            return perf_measured.write_measured(data, args.measured, args.out, report_ops(data), args.arch,
                                                not args.no_plot)
        except perf_measured.MeasuredError as e:
            print(f"FAIL {e}")
            return 1
    if args.check_benches:
        return perf_measured.check_benches(data["rows"], args.check_benches)
    if args.list_benches:
        for binary, pattern in perf_measured.bench_filters(data["rows"]).items():
            print(f"{binary}\t{pattern}")
        return 0
    # The report's op column is the instance list's (include/wavekit/planning/instances.hpp).
    listed_ops = {op for op, _, _, _ in perf_profiles.families()}
    unlisted = sorted({r["op"] for r in data["rows"]} - listed_ops)
    if unlisted:
        print("FAIL the model's rows name ops that include/wavekit/planning/instances.hpp does not list: "
              + ", ".join(unlisted))
        return 1
    try:
        text = render(data, load_census(data["targets"]))
    except CensusError as e:
        print(f"FAIL {e}")
        return 1
    try:
        pd = json.dumps(plot_data(data), indent=1, sort_keys=True) + "\n"
    except PlotError as e:
        print(f"FAIL {e}")
        return 1
    if args.check:
        stale = []
        for path, want in ((REPORT, text), (PLOT_DATA, pd)):
            if not os.path.exists(path) or open(path).read() != want:
                stale.append(os.path.relpath(path, ROOT))
        if stale:
            print("FAIL stale: " + ", ".join(stale) + "; regenerate with `cmake --build --preset ci --target perf_report`")
            return 1
        print("performance report is current")
        return 0
    os.makedirs(PLOT_DIR, exist_ok=True)
    with open(REPORT, "w") as fh:
        fh.write(text)
    with open(PLOT_DATA, "w") as fh:
        fh.write(pd)
    draw(json.loads(pd))
    return 0


if __name__ == "__main__":
    sys.exit(main())

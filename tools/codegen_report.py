#!/usr/bin/env python3
"""wavekit codegen report: resource use and hot-loop shape of every shipped kernel instance.

  compile  run one device-only compile, keeping its assembly and its resource-usage remarks
  report   read (assembly, remarks) pairs, write the report (Markdown) and its data (JSON)
  profile  print the performance model's profile row of each kernel in any .s (wavekit_perf_model
           --profile takes it: how the model predicts a kernel that is not wavekit's)
  check    fail if any kernel spills, uses scratch, or misses the LDS / occupancy targets it
           declares with arch::declare_codegen_targets (a '; wavekit.targets' comment in its
           assembly)

Figures per kernel: VGPRs, AGPRs, SGPRs and occupancy (waves/SIMD), LDS bytes, scratch bytes per
lane and spills come from clang's -Rpass-analysis=kernel-resource-usage remarks. The hot loop is
found in the assembly: among the loops of its control-flow graph (a block with a branch back to it
from a block it dominates, with every block that reaches such a branch without passing through
it, wherever the compiler laid them out), the one with the most MFMA instructions, ties broken by the
smaller loop; blocks it reaches only through a block marked rarely taken (arch::mark_rare_block)
are counted apart ("rare"). For it the report counts all instructions, MFMAs, their share, s_waitcnt and s_barrier, and the instructions per 64
MFMA 16x16x32 of work (a 32x32x16 MFMA is two: twice the multiply-adds and, on gfx942, cycles),
and the cycles its MFMAs hold the matrix pipe (`mfma_cycles`, for the performance model).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

# clang: "<file>:<line>:<col>: remark:     VGPRs: 10 [-Rpass-analysis=kernel-resource-usage]";
# LLVM through llvmlite (gfx950): "remark: <file>:<line>:<col>:     VGPRs: 10" (file may be <unknown>).
REMARK = re.compile(r"remark:\s+(?:\S*:\d+:\d+:\s+)?(?P<key>[^:]+?):\s+(?P<value>\S+)")
REMARK_KEYS = {
    "Function Name": "symbol", "VGPRs": "vgpr", "AGPRs": "agpr", "SGPRs": "sgpr", "TotalSGPRs": "sgpr",
    "ScratchSize [bytes/lane]": "scratch", "Occupancy [waves/SIMD]": "occupancy",
    "SGPRs Spill": "sgpr_spill", "VGPRs Spill": "vgpr_spill", "LDS Size [bytes/block]": "lds",
}
TARGETS = re.compile(r";\s*wavekit\.targets\s+lds_bytes_max=(\S+)\s+occupancy_min=(\S+)"
                     r"(?:\s+loop_per_64_max=(\S+))?(?:\s+loop_max=(\S+))?")
LABEL = re.compile(r"^(\.?[A-Za-z_$][\w.$]*):")
BRANCH = re.compile(r"^\s*s_(?:cbranch_\w+|branch)\s+(\.LBB\w+)")


def cmd_compile(args):
    """Run the compiler; stderr (the remarks) goes to --remarks. Fails loudly on errors."""
    proc = subprocess.run(args.command, stderr=subprocess.PIPE, text=True)
    with open(args.remarks, "w") as f:
        f.write(proc.stderr)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        return proc.returncode
    return 0


def parse_remarks(text):
    kernels, current = {}, None
    for line in text.splitlines():
        m = REMARK.search(line)
        if not m or m.group("key") not in REMARK_KEYS:
            continue
        key, value = REMARK_KEYS[m.group("key")], m.group("value")
        if key == "symbol":
            current = kernels.setdefault(value, {"symbol": value})
        elif current is not None:
            current[key] = int(value)
    return kernels


def kernel_bodies(asm):
    """Map kernel symbol -> its instruction-stream lines (from its label to .Lfunc_end)."""
    kernels = set(re.findall(r"^\s*\.amdhsa_kernel\s+(\S+)", asm, re.M))
    bodies, current = {}, None
    for line in asm.splitlines():
        m = LABEL.match(line)
        if m and m.group(1) in kernels:
            current = bodies.setdefault(m.group(1), [])
            continue
        if current is not None and line.startswith(".Lfunc_end"):
            current = None
        if current is not None:
            current.append(line)
    return bodies


def is_instruction(line):
    s = line.strip()
    return bool(s) and not s.startswith((";", ".", "//")) and not LABEL.match(s)


def basic_blocks(lines):
    """The kernel body's basic blocks as (first line, last line) pairs in layout order, and each
    block's successors (block indices): a block starts at a label or after a branch, falls through
    unless it ends in an unconditional branch or the end of the program, and branches to the
    block of its branch's label."""
    starts = {0}
    for idx, line in enumerate(lines):
        if LABEL.match(line.strip()):
            starts.add(idx)
        elif is_instruction(line) and line.strip().startswith(("s_branch", "s_cbranch", "s_setpc", "s_endpgm")):
            starts.add(idx + 1)
    starts = sorted(s for s in starts if s < len(lines))
    blocks = [(b, (starts[k + 1] if k + 1 < len(starts) else len(lines)) - 1) for k, b in enumerate(starts)]
    block_of_label = {}
    for k, (b, e) in enumerate(blocks):
        for idx in range(b, e + 1):
            m = LABEL.match(lines[idx].strip())
            if m:
                block_of_label[m.group(1)] = k
    succ = []
    for k, (b, e) in enumerate(blocks):
        last = next((lines[i].strip() for i in range(e, b - 1, -1) if is_instruction(lines[i])), "")
        out = []
        m = BRANCH.match(last)
        if m and m.group(1) in block_of_label:
            out.append(block_of_label[m.group(1)])
        if not last.startswith(("s_branch", "s_setpc", "s_endpgm")) and k + 1 < len(blocks):
            out.append(k + 1)
        succ.append(out)
    return blocks, succ


RARE_BLOCK = "; wavekit rare block"  # arch::mark_rare_block()


def hot_loop(lines, arch, with_body=False):
    """The kernel's main loop: of its loops (natural loops of the control flow: a branch to a block
    that dominates the branch's own block), the one with the most MFMAs (the shortest among equals);
    in a kernel without MFMAs (a GEMV, a quantizer), the longest. Its blocks wherever the compiler
    placed them, in layout order, without the blocks reached only through a block marked rarely
    taken (arch::mark_rare_block), which are counted apart ("rare")."""
    blocks, succ = basic_blocks(lines)
    pred = [[] for _ in blocks]
    for k, out in enumerate(succ):
        for t in out:
            pred[t].append(k)
    marked = {k for k, (b, e) in enumerate(blocks) if any(lines[i].strip() == RARE_BLOCK for i in range(b, e + 1))}
    # Dominators (iteratively, from the entry block): a back edge is a branch to a block that
    # dominates its source, wherever the two lie in the layout (a loop's test may sit after its
    # body). A loop is the union of the natural loops of its header's back edges: the blocks that
    # reach an edge's source without passing through the header.
    everything = set(range(len(blocks)))
    dom = [everything if k else {0} for k in range(len(blocks))]
    changed = True
    while changed:
        changed = False
        for k in range(1, len(blocks)):
            new = {k} | (set.intersection(*(dom[q] for q in pred[k])) if pred[k] else set())
            if new != dom[k]:
                dom[k], changed = new, True
    tails = {}
    for tail, out in enumerate(succ):
        for header in out:
            if header in dom[tail]:
                tails.setdefault(header, []).append(tail)
    def walk(start, edges, admit):
        """The blocks reached from `start` along `edges` through blocks `admit` accepts."""
        seen, stack = set(start), list(start)
        while stack:
            for q in edges[stack.pop()]:
                if q not in seen and admit(q):
                    seen.add(q)
                    stack.append(q)
        return seen

    best = None
    for header, edge_tails in tails.items():
        # The header dominates every block that reaches a tail without passing through it, so the
        # loop's blocks are all reached from the header.
        loop = {header} | walk(set(edge_tails) - {header}, pred, lambda q: q != header)
        # The iterations that skip the marked blocks; no loop unless one of them reaches a tail.
        common = {header} if header in marked else walk({header}, succ, lambda q: q in loop and q not in marked)
        if not any(t in common for t in edge_tails):
            continue  # header reaches no tail but through a rare block, or not at all
        rare = loop - common
        body = [lines[i].strip() for k in sorted(common) for i in range(blocks[k][0], blocks[k][1] + 1)
                if is_instruction(lines[i])]
        stats = loop_stats(body, arch)
        stats["rare"] = sum(1 for k in rare for i in range(blocks[k][0], blocks[k][1] + 1) if is_instruction(lines[i]))
        key = (stats["mfma"], -stats["instructions"] if stats["mfma"] else stats["instructions"])
        if best is None or key > best[0]:
            best = (key, stats, body)
    if best is None:
        empty = {"instructions": 0, "mfma": 0, "mfma_work": 0.0, "mfma_cycles": 0.0, "waitcnt": 0, "barriers": 0,
                 "valu": 0, "vmem_loads": 0, "load_cover": 0.0, "load_trips": 0.0, "mfma_kind": "", "share": 0.0, "per_64": None,
                 "issue_ratio": None, "rare": 0}
        return (empty, []) if with_body else empty
    return (with_ratios(best[1]), best[2]) if with_body else with_ratios(best[1])


def with_ratios(stats):
    stats["share"] = round(stats["mfma"] / stats["instructions"], 3) if stats["instructions"] else 0.0
    stats["per_64"] = round(stats["instructions"] * 64 / stats["mfma_work"]) if stats["mfma_work"] else None
    # One wave's issue slots (4 clocks each) for its VALU and MFMA instructions over the clocks its
    # MFMAs hold the matrix pipe: above 1.0 the waves of a SIMD, sharing one issue port, cannot keep
    # the pipe busy (docs/codegen-report.md).
    stats["issue_ratio"] = (round(4 * (stats["valu"] + stats["mfma"]) / stats["mfma_cycles"], 2)
                            if stats["mfma_cycles"] else None)
    return stats


def loop_stats(body, arch, loop=True):
    """The figures of one pass over `body` (instruction lines): of a loop, or with loop=False of a
    whole kernel that runs straight through (no load cover: its loads wait once, the fill)."""
    return {
            "instructions": len(body),
            "mfma": sum(1 for l in body if l.startswith(MATRIX)),
            "mfma_work": sum(mfma_work(l) for l in body if l.startswith(MATRIX)),
            "mfma_cycles": sum(mfma_cycles(l, arch) for l in body if l.startswith(MATRIX)),
            "waitcnt": sum(1 for l in body if l.startswith("s_waitcnt")),
            "barriers": sum(1 for l in body if l.startswith("s_barrier")),
            "valu": sum(1 for l in body if l.startswith("v_") and not l.startswith(MATRIX)),
            "vmem_loads": sum(1 for l in body if is_vmem(l) and "_load" in l.split()[0]),
            "load_cover": load_cover(body, arch) if loop else 0.0,
            "load_trips": load_trips(body, arch) if loop else 0.0,
            "mfma_kind": mfma_kind(body),
    }


# Matrix-core instructions: the dense MFMAs and the sparse ones (v_smfmac_*).
MATRIX = ("v_mfma", "v_smfmac")
# Vector-memory instructions: on gfx9 every one of them, load or store, counts in vmcnt.
VMEM = ("buffer_", "global_", "flat_", "scratch_")
VMCNT = re.compile(r"vmcnt\((\d+)\)")


def is_vmem(line):
    return line.startswith(VMEM) and not line.startswith(("buffer_wbl2", "buffer_inv", "buffer_gl"))


def issue_costs(body, arch):
    """Each instruction's clocks as one wave issues it: an MFMA its matrix-pipe cycles, any other
    instruction one issue slot (4 clocks)."""
    return [mfma_cycles(l, arch) if l.startswith(MATRIX) else 4.0 for l in body]


def loads_memory(body):
    return any(is_vmem(l) and "_load" in l.split()[0] for l in body)


def retired(line, outstanding):
    """(the operations an s_waitcnt vmcnt(N) line retires, those still outstanding), in issue order
    (vector-memory operations complete in order); (None, outstanding) for any other line."""
    m = VMCNT.search(line) if line.startswith("s_waitcnt") else None
    if not m:
        return None, outstanding
    keep = int(m.group(1))
    return (outstanding[:-keep], outstanding[-keep:]) if keep else (outstanding, [])


def load_cover(body, arch):
    """How far ahead the hot loop loads: for each vector-memory load of the loop, the work between its
    issue and the s_waitcnt vmcnt(N) that first guarantees it returned, in iterations of the loop,
    the smallest over the loop's loads. Work is weighted as one wave issues it: an MFMA by its
    matrix-pipe cycles, any other instruction by one issue slot (4 clocks). A loop that waits for
    its loads in the same iteration has a cover below 1; one that loads a step ahead and waits at the
    end of the next, about 1; deeper prefetch, more. The performance model's latency floor divides a
    load's round trip by it (docs/performance-model.md). 0: the loop loads nothing from memory; a
    load not waited for within three iterations counts three."""
    costs = issue_costs(body, arch)
    total = sum(costs)
    if total == 0 or not loads_memory(body):
        return 0.0
    outstanding, cover, clock = [], None, 0.0  # outstanding: (issue time, copy, is load)
    for copy in range(4):
        for line, cost in zip(body, costs):
            if is_vmem(line):
                outstanding.append((clock, copy, "_load" in line.split()[0]))
            else:
                done, outstanding = retired(line, outstanding)
                if done is not None:
                    for issued, c, load in done:
                        if c == 1 and load:
                            d = (clock - issued) / total
                            cover = d if cover is None else min(cover, d)
            clock += cost
    if any(c == 1 and load for _, c, load in outstanding):
        cover = 3.0 if cover is None else min(cover, 3.0)
    return round(cover if cover is not None else 3.0, 3)


def load_trips(body, arch):
    """How many load round trips an iteration of the hot loop waits out one after another when the
    round trip is long against the loop's work: the growth of the loop's steady-state iteration time
    per cycle of round trip. A loop that loads each K step a step ahead and runs two steps an
    iteration waits two trips an iteration (its load cover, in iterations, is then about half a
    step's share); one that loads two iterations ahead, half a trip. The loop is run as one wave
    issues it (load_cover's weights), each s_waitcnt vmcnt(N) stalling until the operations it
    retires have returned, at two long round trips. 0: the loop loads nothing from memory; a
    loop that never waits for its loads counts a third of a trip (load_cover's three iterations)."""
    costs = issue_costs(body, arch)
    if sum(costs) == 0 or not loads_memory(body):
        return 0.0
    copies, settled = 16, 8

    def iteration_time(trip):
        outstanding, clock, ends = [], 0.0, []  # outstanding: return times in issue order
        for _ in range(copies):
            for line, cost in zip(body, costs):
                if is_vmem(line):
                    outstanding.append(clock + trip)
                else:
                    done, outstanding = retired(line, outstanding)
                    if done:
                        clock = max([clock] + done)
                clock += cost
            ends.append(clock)
        return (ends[-1] - ends[settled - 1]) / (copies - settled)

    long_trip = 1e6
    trips = (iteration_time(2 * long_trip) - iteration_time(long_trip)) / long_trip
    return round(max(trips, 1 / 3), 3)


def mfma_kind(body):
    """The operand kind of the loop's MFMAs, which sets the clock a saturating GEMM sustains
    (docs/performance-model.md): "fp8" (fp8/bf8 and the f8f6f4 forms), "bf16", "f16", "" none."""
    for l in body:
        if l.startswith(MATRIX):
            if any(t in l for t in ("fp8", "bf8", "f8f6f4", "i8")):
                return "fp8"
            return "bf16" if "bf16" in l else "f16"
    return ""


def mfma_work(line):
    """An MFMA's multiply-adds in units of one v_mfma_f32_16x16x32_fp8 (16*16*32): 32x32x16 counts 2.
    On gfx942 this is also its share of the matrix pipe (docs/hardware.md 1.1: 32 and 16 cycles).
    A sparse v_smfmac multiplies half its K (A is 2:4 sparse): 16x16x64 counts 1, as its 16 cycles
    (docs/hardware.md 1.5)."""
    m = re.match(r"v_(s?)mfmac?_\w*?_(\d+)x(\d+)x(\d+)", line)
    if not m:
        return 1.0
    return int(m[2]) * int(m[3]) * int(m[4]) / 8192 / (2 if m[1] else 1)


# Multiply-adds per cycle of one SIMD's matrix pipe, by target and operand kind (docs/hardware.md
# 1.2 and 6: the cycle counts behind the dense peak rates). On gfx950 the CDNA3 fp8 forms
# (v_mfma_f32_*_fp8_fp8, v_smfmac_*_fp8_fp8) are assumed to keep their gfx942 rate: no public
# table gives their CDNA4 cycles.
MACS_PER_CYCLE = {
    "gfx942": {"fp8": 512, "half": 256},
    "gfx950": {"fp8": 512, "half": 512, "f8f6f4_fp8": 1024, "f8f6f4_narrow": 2048},
}


def mfma_cycles(line, arch):
    """Cycles an MFMA holds its SIMD's matrix pipe: its multiply-adds (a sparse v_smfmac's dense half)
    over the rate of its operand kind. f8f6f4 forms run at the fp8 rate when either operand is fp8
    (CBSZ / BLGP 0 or 1, the default) and twice that for fp6 / fp4 (docs/hardware.md 1.2)."""
    m = re.match(r"v_(s?)mfmac?_(?:scale_)?f32_(\d+)x(\d+)x(\d+)_?(\w*)", line)
    if not m:
        return 0.0
    macs = int(m[2]) * int(m[3]) * int(m[4]) / (2 if m[1] else 1)
    rates = MACS_PER_CYCLE.get(arch, MACS_PER_CYCLE["gfx942"])
    kind = m[5]
    if kind.startswith("f8f6f4"):
        cbsz = re.search(r"cbsz:(\d+)", line)
        blgp = re.search(r"blgp:(\d+)", line)
        fp8 = any(int(f.group(1)) < 2 if f else True for f in (cbsz, blgp))
        return macs / rates["f8f6f4_fp8" if fp8 else "f8f6f4_narrow"]
    return macs / rates["fp8" if ("fp8" in kind or "bf8" in kind or "i8" in kind) else "half"]


def demangle(symbols):
    tool = shutil.which("llvm-cxxfilt-19") or shutil.which("llvm-cxxfilt") or shutil.which("c++filt")
    if not tool or not symbols:
        return {s: s for s in symbols}
    out = subprocess.run([tool], input="\n".join(symbols), capture_output=True, text=True).stdout.splitlines()
    return dict(zip(symbols, out)) if len(out) == len(symbols) else {s: s for s in symbols}


def strip_parameters(name):
    """Drop the trailing (parameter list) of a demangled function name (parentheses inside template
    arguments, such as enum casts, are kept)."""
    depth = 0
    for i, ch in enumerate(name):
        depth += ch == "<"
        depth -= ch == ">"
        if ch == "(" and depth == 0:
            return name[:i]
    return name


def short_name(demangled):
    """'void wavekit::ops::f<wavekit::small_float<wavekit::format::e4m3fnuz> >(...)' -> 'f<e4m3fnuz>'."""
    name = strip_parameters(re.sub(r"^void\s+", "", demangled))
    name = re.sub(r"wavekit::small_float<wavekit::format::(\w+)\s*>", r"\1", name)
    name = re.sub(r"\bwavekit::(\w+::)*", "", name).replace(" >", ">")
    name = re.sub(r"\bconfig<(\d+), (\d+), (\d+), (\d+), (\d+), \(mfma_shape\)(\d)"
                  r"(?:, (\d+), (\d+))?>",
                  lambda m: f"{m[1]}x{m[2]}x{m[3]} w{m[4]}x{m[5]} mfma{16 if m[6] == '0' else 32}"
                            + (" 1 stage" if m[7] == "1" else ""), name)
    # ops::gemm_half::config<BlockM, BlockN, BlockK, WavesM, WavesN, MFMA edge, Stages, SplitK>; an
    # edge of 8 is the sparse MFMA's row pairs (arch/mfma_row_pairs.hpp).
    name = re.sub(r"\bconfig<(\d+), (\d+), (\d+), (\d+), (\d+), (\d+), (\d+), (\d+)>",
                  lambda m: f"{m[1]}x{m[2]}x{m[3]} w{m[4]}x{m[5]} "
                            + ("smfmac row pairs" if m[6] == "8" else f"mfma{m[6]}")
                            + (" 1 stage" if m[7] == "1" else ""),
                  name)
    # ops::moe::config<BlockM, BlockN, BlockK, WavesM, WavesN, MFMA edge, Stages>
    name = re.sub(r"\bconfig<(\d+), (\d+), (\d+), (\d+), (\d+), (\d+), (\d+)>",
                  lambda m: f"{m[1]}x{m[2]}x{m[3]} w{m[4]}x{m[5]} mfma{m[6]}" + (" 1 stage" if m[7] == "1" else ""),
                  name)
    name = name.replace("(stage)0", "gate_up").replace("(stage)1", "down_weighted").replace("(stage)2", "down")
    # ops::gemm_mx::config's K step is bytes of a row (128 MXFP8 or 256 MXFP4 elements).
    name = re.sub(r"^(gemm_mx_kernel<\d+x\d+x\d+)", r"\1B", name)
    # core/scale_granularity.hpp's kinds.
    for value, kind in enumerate(("tensor", "row", "group_1x128")):
        name = name.replace(f"(scale_granularity){value}", kind)
    # The MX quantizer's element rounding (core/mx_rounding.hpp): the default, nearest even, unnamed.
    name = name.replace(", (mx_rounding)0>", ">").replace("(mx_rounding)1", "ties_away")
    return name.replace("(layout)0", "k_contiguous").replace("(layout)1", "mn_contiguous")


def cmd_report(args):
    rows, seen = [], set()
    for asm_path in args.asm:
        remarks_path = re.sub(r"\.s$", ".remarks", asm_path)
        with open(asm_path) as f:
            asm = f.read()
        with open(remarks_path) as f:
            remarks = parse_remarks(f.read())
        for symbol, body in sorted(kernel_bodies(asm).items()):
            # A kernel that several instances instantiate (one launcher's helper) is one row.
            if symbol in seen:
                continue
            seen.add(symbol)
            r = dict(remarks.get(symbol, {"symbol": symbol}))
            targets = TARGETS.search("\n".join(body))
            r["lds_bytes_max"] = int(targets.group(1), 0) if targets else None
            r["occupancy_min"] = int(targets.group(2), 0) if targets else None
            r["loop_per_64_max"] = int(targets.group(3), 0) if targets and targets.group(3) else 0
            r["loop_max"] = int(targets.group(4), 0) if targets and targets.group(4) else 0
            r["loop"] = hot_loop(body, args.arch)
            r["source"] = os.path.basename(asm_path)
            rows.append(r)
    names = demangle([r["symbol"] for r in rows])
    for r in rows:
        r["name"] = short_name(names[r["symbol"]])
    with open(args.json, "w") as f:
        json.dump({"arch": args.arch, "kernels": rows}, f, indent=1)
    reference = []
    if args.reference and os.path.exists(args.reference):
        with open(args.reference) as f:
            reference = json.load(f).get(args.arch, [])
    with open(args.out, "w") as f:
        f.write(render(args.arch, rows, reference))
    print(render(args.arch, rows, reference), end="")
    return 0


def render(arch, rows, reference):
    head = ("| kernel | VGPR | AGPR | SGPR | LDS B | scratch | spills v/s | occupancy | "
            "hot loop: instr / MFMA / share / waitcnt / barriers | instr per 64 MFMA 16x16x32 of work | "
            "issue ratio | targets (LDS max, occ min, loop max) |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|---|\n")
    lines = [f"# {arch} codegen report\n\n", head]
    for r in rows:
        l = r["loop"]
        issue = f"{l['issue_ratio']:.2f}" if l.get("issue_ratio") is not None else "-"
        rare = f" (+{l['rare']} rare)" if l.get("rare") else ""
        targets = ("none declared" if r["lds_bytes_max"] is None
                   else f"{r['lds_bytes_max']}, {r['occupancy_min']}"
                   + (f", loop {r['loop_per_64_max']}" if r.get("loop_per_64_max") else "")
                   + (f", loop {r['loop_max']} a pass" if r.get("loop_max") else ""))
        lines.append(f"| `{r['name']}` | {r.get('vgpr', '?')} | {r.get('agpr', '?')} | {r.get('sgpr', '?')} | "
                     f"{r.get('lds', '?')} | {r.get('scratch', '?')} | {r.get('vgpr_spill', '?')}/{r.get('sgpr_spill', '?')} | "
                     f"{r.get('occupancy', '?')} | {l['instructions']}{rare} / {l['mfma']} / {l['share']:.3f} / "
                     f"{l['waitcnt']} / {l['barriers']} | {l['per_64'] if l['per_64'] is not None else '-'} | "
                     f"{issue} | {targets} |\n")
    if reference:
        lines.append("\nReference rows (not wavekit code; compiled with the same compiler, see docs/codegen-report.md):\n\n")
        lines.append(head)
        for r in reference:
            lines.append("| " + " | ".join(str(c) for c in r) + " |\n")
    return "".join(lines)


def violations(r):
    out = []
    name = r.get("name", r["symbol"])
    if "vgpr" not in r:
        out.append(f"{name}: no resource-usage remarks found for this kernel")
        return out
    if r.get("vgpr_spill", 0) or r.get("sgpr_spill", 0):
        out.append(f"{name}: spills (VGPR {r.get('vgpr_spill')}, SGPR {r.get('sgpr_spill')})")
    if r.get("scratch", 0):
        out.append(f"{name}: uses {r['scratch']} bytes/lane of scratch")
    if r["lds_bytes_max"] is None:
        out.append(f"{name}: declares no codegen targets (arch::declare_codegen_targets)")
    else:
        if r.get("lds", 0) > r["lds_bytes_max"]:
            out.append(f"{name}: LDS {r['lds']} B exceeds its target of {r['lds_bytes_max']} B")
        if r.get("occupancy", 0) < r["occupancy_min"]:
            out.append(f"{name}: occupancy {r['occupancy']} waves/SIMD below its target of {r['occupancy_min']}")
        per_64, budget = r["loop"].get("per_64"), r.get("loop_per_64_max", 0)
        if budget and (per_64 is None or per_64 > budget):
            out.append(f"{name}: hot loop of {per_64} instructions per 64 MFMA 16x16x32 of work exceeds its "
                       f"target of {budget}")
        loop_max, instructions = r.get("loop_max", 0), r["loop"].get("instructions", 0)
        if loop_max and instructions > loop_max:
            out.append(f"{name}: hot loop of {instructions} instructions exceeds its target of {loop_max}")
    return out


# The resource figures clang writes after each kernel in its assembly ("; Kernel info:").
ASM_INFO = {"NumVgprs": "vgpr", "NumAgprs": "agpr", "LDSByteSize": "lds", "Occupancy": "occupancy"}


def asm_resources(asm):
    """symbol -> {vgpr, agpr, lds, occupancy} from the '; Kernel info:' comments of a bare .s (no
    remarks needed): each block follows its kernel's .Lfunc_end and its .size line names it."""
    out, current = {}, None
    for line in asm.splitlines():
        m = re.match(r"^\s*\.size\s+([^,\s]+),\s*\.Lfunc_end", line)
        if m:
            current = out.setdefault(m.group(1), {})
            continue
        m = re.match(r"^;\s*(\w+):\s*(\d+)", line)
        if m and current is not None and m.group(1) in ASM_INFO:
            current.setdefault(ASM_INFO[m.group(1)], int(m.group(2)))
    return out


def profile_row(arch, symbol, name, resources, loop):
    """A kernel's figures as the performance model's profile row (`wavekit_perf_model --profile`)."""
    fields = {"target": arch, "kernel": name.replace(", ", ",").replace(" ", "_"), "vgpr": resources.get("vgpr", 0),
              "agpr": resources.get("agpr", 0), "lds": resources.get("lds", 0),
              "occupancy": resources.get("occupancy", 1), "loop_instructions": loop["instructions"],
              "loop_mfma": loop["mfma"], "loop_mfma_work": loop["mfma_work"], "loop_mfma_cycles": loop["mfma_cycles"],
              "loop_barriers": loop["barriers"], "loop_valu": loop["valu"], "loop_vmem_loads": loop["vmem_loads"],
              "loop_load_cover": loop["load_cover"], "loop_load_trips": loop["load_trips"],
              "loop_mfma_kind": loop["mfma_kind"] or "none"}
    return " ".join(f"{k}={v}" for k, v in fields.items())


def cmd_profile(args):
    """Print the profile row of each kernel of an assembly file (any compiler's gfx942/gfx950 .s with
    clang's kernel-info comments), or of the kernels whose demangled name contains --kernel."""
    with open(args.asm) as f:
        asm = f.read()
    resources, bodies = asm_resources(asm), kernel_bodies(asm)
    names = demangle(sorted(bodies))
    rows = []
    for symbol, body in sorted(bodies.items()):
        if args.kernel and args.kernel not in names[symbol]:
            continue
        loop = hot_loop(body, args.arch)
        if not loop["instructions"]:
            # No loop (a kernel compiled for one shape may unroll it away): the whole kernel is one
            # pass, so its launch takes iterations=1.
            loop = loop_stats([l.strip() for l in body if is_instruction(l)], args.arch, loop=False)
            print(f"{short_name(names[symbol])}: no loop; the row describes the whole kernel, run once a wave "
                  "(--launch iterations=1)", file=sys.stderr)
        rows.append(profile_row(args.arch, symbol, short_name(names[symbol]), resources.get(symbol, {}), loop))
    if not rows:
        print(f"no kernel{' matching ' + repr(args.kernel) if args.kernel else ''} in {args.asm}", file=sys.stderr)
        return 1
    print("\n".join(rows))
    return 0


def cmd_check(args):
    with open(args.json) as f:
        data = json.load(f)
    if not data["kernels"]:
        print(f"FAIL {data['arch']}: the report holds no kernels")
        return 1
    problems = [v for r in data["kernels"] for v in violations(r)]
    for p in problems:
        print("FAIL", p)
    print(f"{data['arch']}: {len(data['kernels'])} kernels checked, {len(problems)} problems")
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compile")
    c.add_argument("--remarks", required=True)
    c.add_argument("command", nargs=argparse.REMAINDER)
    r = sub.add_parser("report")
    r.add_argument("--arch", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--json", required=True)
    r.add_argument("--reference", help="JSON of reference rows per arch, shown below wavekit's")
    r.add_argument("asm", nargs="+")
    k = sub.add_parser("check")
    k.add_argument("json")
    pr = sub.add_parser("profile", help="print the performance model's profile row of each kernel in a .s")
    pr.add_argument("--arch", required=True)
    pr.add_argument("--kernel", help="only kernels whose demangled name contains this")
    pr.add_argument("asm")
    args = ap.parse_args()
    if args.cmd == "compile":
        args.command = [a for a in args.command if a != "--"]
    return {"compile": cmd_compile, "report": cmd_report, "check": cmd_check, "profile": cmd_profile}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())

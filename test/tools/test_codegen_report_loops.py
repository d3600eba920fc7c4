#!/usr/bin/env python3
"""tools/codegen_report.py's hot-loop finder on hand-written assembly: loops are natural loops of
the control-flow graph, wherever the compiler laid their blocks out, and blocks reached only
through a block marked rarely taken (arch::mark_rare_block) are counted apart.

  test_codegen_report_loops.py
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import codegen_report as cr  # noqa: E402

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def loop_of(text):
    lines = [l for l in text.strip("\n").split("\n")]
    return cr.hot_loop(lines, "gfx942")


MFMA = "v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]"

# A loop whose second block the compiler placed after the branch back, jumping back into it.
out_of_line = f"""
s_mov_b32 s0, 0
.LBB0_1:
{MFMA}
s_cbranch_scc1 .LBB0_3
.LBB0_2:
v_add_u32_e32 v1, 1, v1
s_add_i32 s0, s0, 1
s_cmp_lt_i32 s0, 8
s_cbranch_scc1 .LBB0_1
s_endpgm
.LBB0_3:
v_mul_f32_e32 v2, v2, v2
v_mul_f32_e32 v3, v3, v3
s_branch .LBB0_2
"""
l = loop_of(out_of_line)
check(l["mfma"] == 1 and l["instructions"] == 9 and l["rare"] == 0,
      f"a block laid out after the loop's branch back counts (9 instructions; got {l['instructions']})")

# The same with the out-of-line block marked rare: counted apart.
marked = out_of_line.replace(".LBB0_3:\n", ".LBB0_3:\n\t;;#ASMSTART\n\t; wavekit rare block\n\t;;#ASMEND\n")
l = loop_of(marked)
check(l["instructions"] == 6 and l["rare"] == 3,
      f"a block marked rare is left out and counted apart (6 + 3 rare; got {l['instructions']} + {l['rare']})")

# A rare block laid out in line, skipped by a forward branch.
in_line = f"""
s_mov_b32 s0, 0
.LBB1_1:
{MFMA}
s_cbranch_vccz .LBB1_3
; wavekit rare block
v_pk_mul_f32 v[8:9], v[8:9], v[10:11]
v_pk_mul_f32 v[12:13], v[12:13], v[10:11]
.LBB1_3:
s_add_i32 s0, s0, 1
s_cmp_lt_i32 s0, 8
s_cbranch_scc1 .LBB1_1
s_endpgm
"""
l = loop_of(in_line)
check(l["instructions"] == 5 and l["rare"] == 2 and l["valu"] == 0,
      f"an in-line rare block is left out (5 + 2 rare; got {l['instructions']} + {l['rare']})")

# A loop whose test follows its body: the entry jumps to the test, which branches back to the body.
test_after = f"""
s_branch .LBB2_2
.LBB2_1:
{MFMA}
v_add_u32_e32 v1, 1, v1
.LBB2_2:
s_add_i32 s0, s0, 1
s_cmp_lt_i32 s0, 8
s_cbranch_scc1 .LBB2_1
s_endpgm
"""
l = loop_of(test_after)
check(l["mfma"] == 1 and l["instructions"] == 5, f"a loop whose test follows its body is found (5; got {l['instructions']})")

# A block placed after the code it returns to and entered from before it: layout, not a loop.
layout = f"""
s_cbranch_scc1 .LBB3_2
.LBB3_1:
{MFMA}
s_endpgm
.LBB3_2:
v_mov_b32_e32 v0, 0
s_branch .LBB3_1
"""
l = loop_of(layout)
check(l["instructions"] == 0, f"a block that only jumps back to code before it is not a loop (got {l['instructions']})")

print("\n%d failure(s)" % len(failures) if failures else "\nall passed")
sys.exit(1 if failures else 0)

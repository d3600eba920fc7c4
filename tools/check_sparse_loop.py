#!/usr/bin/env python3
"""The skinny GEMM's row-pair kernel runs the sparse MFMA: usage check_sparse_loop.py kernel.s report.md.
Passes when the kernel's assembly holds v_smfmac_f32_16x16x64_fp8_fp8 and no dense MFMA, and the
codegen report's rows for the row-pair config (named "smfmac row pairs") count matrix
instructions in their hot loop (tools/codegen_report.py counts v_smfmac there)."""
import re
import sys


def main(asm_path, report_path):
    text = open(asm_path).read()
    sparse = len(re.findall(r"^\s*v_smfmac_f32_16x16x64_fp8_fp8\b", text, re.M))
    dense = len(re.findall(r"^\s*v_mfma_", text, re.M))
    rows = [line.strip() for line in open(report_path) if "smfmac row pairs" in line]
    print(f"{asm_path}: {sparse} v_smfmac_f32_16x16x64_fp8_fp8, {dense} dense MFMA; report rows: {len(rows)}")
    print("\n".join(rows))
    loops_run_it = rows and all(re.search(r"\| \d+ / [1-9]\d* / ", row) for row in rows)
    return 0 if sparse > 0 and dense == 0 and loops_run_it else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))

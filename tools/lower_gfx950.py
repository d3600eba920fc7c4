#!/usr/bin/env python3
"""Lower clang-19 device bitcode to gfx950 assembly with a newer LLVM (llvmlite, LLVM >= 20).

clang-19 does not know gfx950, so wavekit's gfx950 device code is compiled by clang-19 as a
gfx942 device pass with the target macros swapped (-U__gfx942__ -D__gfx950__) and without LLVM
optimisation (-Xclang -disable-llvm-passes). This tool then:
  1. retargets every function to gfx950: target-cpu = gfx950, and drops the gfx942 feature
     list so LLVM derives gfx950's features from the CPU name;
  2. sets __oclc_ISA_version (linked from the gfx942 device library) to gfx950's 9500;
  3. runs LLVM's standard -O3 module pipeline for gfx950 and emits assembly.
With -pass-remarks-analysis=kernel-resource-usage LLVM prints the same resource remarks as
clang's -Rpass-analysis; they go to stderr, which `codegen_report.py compile` keeps.

Intrinsics whose signature changed between LLVM 19 and the newer LLVM, and that its bitcode
reader does not upgrade, are rewritten in LLVM 19's textual IR first (obtained with llvm-dis from
LLVM 19): llvm.amdgcn.make.buffer.rsrc takes its record count as i64 now.

usage: lower_gfx950.py <input.bc> <output.s> <llvm-dis of LLVM 19>
"""
import re
import subprocess
import sys

import llvmlite.binding as llvm


MAKE_RSRC = re.compile(r"^(\s*)(%[\w.]+) = call ptr addrspace\(8\) @llvm\.amdgcn\.make\.buffer\.rsrc\.p0\("
                       r"ptr ([^,]+), i16 ([^,]+), i32 ([^,]+), i32 ([^)]+)\)(.*)$")


def upgrade_intrinsics(ir):
    """LLVM 19 -> newer: make.buffer.rsrc(ptr, i16, i32, i32) becomes .p8.p0(ptr, i16, i64, i32)."""
    out = []
    for n, line in enumerate(ir.splitlines()):
        m = MAKE_RSRC.match(line)
        if m:
            indent, result, base, stride, records, flags, rest = m.groups()
            if records.lstrip("-").isdigit():
                wide = records
            else:
                wide = "%wavekit.records." + str(n)
                out.append(f"{indent}{wide} = zext i32 {records} to i64")
            line = (f"{indent}{result} = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p0("
                    f"ptr {base}, i16 {stride}, i64 {wide}, i32 {flags}){rest}")
        elif line.startswith("declare") and "@llvm.amdgcn.make.buffer.rsrc.p0(" in line:
            line = re.sub(r"@llvm\.amdgcn\.make\.buffer\.rsrc\.p0\(([^,]+), i16, i32, i32\)",
                          r"@llvm.amdgcn.make.buffer.rsrc.p8.p0(\1, i16, i64, i32)", line)
        out.append(line)
    return "\n".join(out) + "\n"


def retarget(ir):
    ir = ir.replace('"target-cpu"="gfx942"', '"target-cpu"="gfx950"')
    ir = re.sub(r'\s*"target-features"="[^"]*"', "", ir)
    ir = re.sub(r"(@__oclc_ISA_version = [^\n]*i32 )9402\b", r"\g<1>9500", ir)
    if '"target-cpu"="gfx942"' in ir or '"target-cpu"="gfx950"' not in ir:
        raise SystemExit("lower_gfx950: the bitcode has no gfx942 device functions to retarget")
    return ir


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    major = llvm.llvm_version_info[0]
    if major < 20:
        raise SystemExit(f"lower_gfx950: llvmlite ships LLVM {major}; gfx950 needs LLVM >= 20")
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    llvm.set_option("lower_gfx950", "-pass-remarks-analysis=kernel-resource-usage")
    ir = subprocess.run([sys.argv[3], sys.argv[1], "-o", "-"], check=True, capture_output=True, text=True).stdout
    module = llvm.parse_assembly(retarget(upgrade_intrinsics(ir)))
    module.verify()
    machine = llvm.Target.from_triple("amdgcn-amd-amdhsa").create_target_machine(cpu="gfx950", opt=3)
    builder = llvm.create_pass_builder(machine, llvm.create_pipeline_tuning_options(speed_level=3))
    builder.getModulePassManager().run(module, builder)
    with open(sys.argv[2], "w") as f:
        f.write(machine.emit_assembly(module))
    return 0


if __name__ == "__main__":
    sys.exit(main())

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

usage: lower_gfx950.py <input.bc> <output.s>
"""
import re
import sys

import llvmlite.binding as llvm


def retarget(ir):
    ir = ir.replace('"target-cpu"="gfx942"', '"target-cpu"="gfx950"')
    ir = re.sub(r'\s*"target-features"="[^"]*"', "", ir)
    ir = re.sub(r"(@__oclc_ISA_version = [^\n]*i32 )9402\b", r"\g<1>9500", ir)
    if '"target-cpu"="gfx942"' in ir or '"target-cpu"="gfx950"' not in ir:
        raise SystemExit("lower_gfx950: the bitcode has no gfx942 device functions to retarget")
    return ir


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    major = llvm.llvm_version_info[0]
    if major < 20:
        raise SystemExit(f"lower_gfx950: llvmlite ships LLVM {major}; gfx950 needs LLVM >= 20")
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    llvm.set_option("lower_gfx950", "-pass-remarks-analysis=kernel-resource-usage")
    with open(sys.argv[1], "rb") as f:
        module = llvm.parse_bitcode(f.read())
    module = llvm.parse_assembly(retarget(str(module)))
    module.verify()
    machine = llvm.Target.from_triple("amdgcn-amd-amdhsa").create_target_machine(cpu="gfx950", opt=3)
    builder = llvm.create_pass_builder(machine, llvm.create_pipeline_tuning_options(speed_level=3))
    builder.getModulePassManager().run(module, builder)
    with open(sys.argv[2], "w") as f:
        f.write(machine.emit_assembly(module))
    return 0


if __name__ == "__main__":
    sys.exit(main())

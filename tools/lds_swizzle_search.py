#!/usr/bin/env python3
"""Search for the chunk-XOR masks of tile/lds_swizzled_rows.hpp's 64-byte-row layout.

A mask maps a row to the 16-byte chunk position its chunks are XORed with. This tries every mask
that is linear over row bits 0-5 (two output bits, each the parity of a subset of row bits) and
keeps those under which, in the bank and phase models of docs/hardware.md 4.2 (the
same models the emulator's counters use, emu/lds_banks.hpp):
  - the MFMA operand reads (16-byte ds_read, 16x16x32 and 32x32x16 wave tiles) and
  - the fills of both tile loaders (k_contiguous: 16-byte stores; mn_contiguous: 4-byte stores
    of units of 4 K x 4, 8 or 16 rows, with the row-pair trade every unit_rows rows)
are free of bank conflicts. It prints the masks that also ignore row bit 2, which lets the
transposing loader store rows r and r + 4 with one ds_write2 (the layout uses one per target).

  tools/lds_swizzle_search.py [gfx942|gfx950]
"""
import sys

BK = 64  # 64-byte rows: two per 128-byte line

READ128 = {
    "gfx942": (32, [[*range(0, 4), *range(20, 24)], [*range(4, 8), *range(16, 20)],
                    [*range(8, 12), *range(28, 32)], [*range(12, 16), *range(24, 28)],
                    [*range(32, 36), *range(52, 56)], [*range(36, 40), *range(48, 52)],
                    [*range(40, 44), *range(60, 64)], [*range(44, 48), *range(56, 60)]]),
    "gfx950": (64, [[*range(0, 4), *range(12, 16), *range(20, 28)], [*range(4, 12), *range(16, 20), *range(28, 32)],
                    [*range(32, 36), *range(44, 48), *range(52, 60)], [*range(36, 44), *range(48, 52), *range(60, 64)]]),
}
WRITE128 = {"gfx942": (32, 8), "gfx950": (64, 16)}  # banks, consecutive lanes per phase
WRITE32 = (32, 32)  # both targets (gfx950: modelled like its measured ds_write_b64)


def parity(x):
    return bin(x).count("1") & 1


def offset(mask, swap_rows):
    def at(row, k):
        slot = row ^ ((row // swap_rows) & 1)
        return slot * BK + ((k // 16) ^ mask(row)) * 16 + k % 16
    return at


def conflicts(offsets, phases, nbytes, banks):
    extra = 0
    for phase in phases:
        seen = {}
        for lane in phase:
            if offsets[lane] is None:
                continue
            for d in range(nbytes // 4):
                word = offsets[lane] // 4 + d
                seen.setdefault(word % banks, set()).add(word)
        extra += sum(len(words) - 1 for words in seen.values())
    return extra


def total_conflicts(arch, at, unit_rows):
    banks, phases = READ128[arch]
    n = 0
    for row0 in range(0, 256, 16):  # 16x16x32: lane reads row l % 16, K slice l / 16
        n += conflicts([at(row0 + l % 16, (l // 16) * 16) for l in range(64)], phases, 16, banks)
    for row0 in range(0, 256, 32):  # 32x32x16: row l % 32, K slice l / 32, two reads
        for r in range(2):
            n += conflicts([at(row0 + l % 32, (l // 32) * 32 + 16 * r) for l in range(64)], phases, 16, banks)
    wbanks, wlanes = WRITE32
    for w0 in range(0, 512, 64):  # mn_contiguous: unit u = (K group u % 16, row group u / 16)
        for j in range(unit_rows):
            offs = []
            for l in range(64):
                u = w0 + l
                row = (u // 16) * unit_rows + j
                offs.append(at(row, 4 * (u % 16)) if row < 256 else None)
            n += conflicts(offs, [list(range(p, p + wlanes)) for p in range(0, 64, wlanes)], 4, wbanks)
    wbanks, wlanes = WRITE128[arch]
    for w0 in range(0, 1024, 64):  # k_contiguous: chunk c = (row c / 4, chunk c % 4)
        offs = [at((w0 + l) // 4, ((w0 + l) % 4) * 16) for l in range(64)]
        n += conflicts(offs, [list(range(p, p + wlanes)) for p in range(0, 64, wlanes)], 16, wbanks)
    return n


def main():
    arch = sys.argv[1] if len(sys.argv) > 1 else "gfx942"
    found = []
    for lo in range(64):
        for hi in range(64):
            mask = lambda r, lo=lo, hi=hi: parity(r & lo) | (parity(r & hi) << 1)  # noqa: E731
            if all(total_conflicts(arch, offset(mask, um), um) == 0 for um in (4, 8, 16)):
                found.append((lo, hi))
    print(f"{arch}: {len(found)} conflict-free linear masks (bit 0 = parity(row & lo), bit 1 = parity(row & hi))")
    without_bit2 = [(lo, hi) for lo, hi in found if not (lo | hi) & 4]
    print(f"  of which ignore row bit 2 (rows r, r + 4 share a mask): {len(without_bit2)}")
    for lo, hi in without_bit2[:12]:
        print(f"    lo={lo:#04x} hi={hi:#04x}")
    return 0 if without_bit2 else 1


if __name__ == "__main__":
    sys.exit(main())

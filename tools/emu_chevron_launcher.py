#!/usr/bin/env python3
"""Compiler launcher for CPU-emulator builds: lets plain C++ compile HIP's kernel<<<...>>>(...).

Used as CMake's CXX_COMPILER_LAUNCHER by wavekit_emulated(). It finds the source file of the
compile command; if it contains '<<<', it writes a copy in which every

    KERNEL<<<grid, block[, shared_bytes[, stream]]>>>(args)
becomes
    ::wavekit::emu::chevron(KERNEL, grid, block[, shared_bytes[, stream]])(args)

(KERNEL: a name, possibly qualified, possibly with template arguments), prefixed by a #line
directive so diagnostics and __FILE__ still name the original file, and compiles that copy with
the original directory on the quoted-include path. Anything else is compiled unchanged.

The copy is written beside the object file (its -o path plus ".chevron.cpp") and kept there, so
that the same compile gives the same command line each time (a compiler cache behind this
launcher, ccache in direct mode, can hit) and the dependency file names a file that exists;
without -o, in a temporary file, removed after the compile.
"""
import os
import re
import subprocess
import sys
import tempfile

SOURCE_SUFFIXES = (".cpp", ".cc", ".cxx", ".hip", ".cu")


def kernel_start(text, end):
    """Index where the kernel expression ending just before `end` begins."""
    i = end
    while True:
        while i > 0 and text[i - 1].isspace():
            i -= 1
        if i > 0 and text[i - 1] == ">":  # template arguments: skip the balanced <...>
            depth, j = 0, i - 1
            while j >= 0:
                depth += text[j] == ">"
                depth -= text[j] == "<"
                if depth == 0:
                    break
                j -= 1
            i = j
            continue
        j = i
        while j > 0 and (text[j - 1].isalnum() or text[j - 1] == "_"):
            j -= 1
        if j == i:
            return i
        i = j
        if text[max(0, i - 2):i] == "::":
            i -= 2
            continue
        return i


def code_mask(text):
    """mask[i] is True where text[i] is code: not inside a comment, string or character literal."""
    mask = [True] * len(text)
    i, n = 0, len(text)
    while i < n:
        two = text[i:i + 2]
        if two == "//" or two == "/*":
            end = text.find("\n" if two == "//" else "*/", i + 2)
            end = n if end < 0 else end + (0 if two == "//" else 2)
        elif text[i] in "\"'":
            quote, end = text[i], i + 1
            while end < n and text[end] != quote:
                end += 2 if text[end] == "\\" else 1
            end = min(n, end + 1)
        else:
            i += 1
            continue
        for k in range(i, end):
            mask[k] = False
        i = end
    return mask


def rewrite(text):
    mask = code_mask(text)
    out, pos = [], 0
    for m in re.finditer(r"<<<", text):
        if m.start() < pos or not mask[m.start()]:
            continue
        close = m.end()
        while True:
            close = text.find(">>>", close)
            if close < 0 or mask[close]:
                break
            close += 3
        if close < 0:
            break
        start = kernel_start(text, m.start())
        out.append(text[pos:start])
        out.append("::wavekit::emu::chevron(" + text[start:m.start()].strip() + ", " + text[m.end():close] + ")")
        pos = close + 3
    out.append(text[pos:])
    return "".join(out)


def main():
    command = sys.argv[1:]
    sources = [i for i, a in enumerate(command) if a.endswith(SOURCE_SUFFIXES) and os.path.isfile(a)]
    if len(sources) != 1:
        os.execvp(command[0], command)
    index = sources[0]
    path = os.path.abspath(command[index])
    with open(path) as f:
        text = f.read()
    if "<<<" not in text:
        os.execvp(command[0], command)
    rewritten = '#line 1 "%s"\n' % path + rewrite(text)
    suffix = os.path.splitext(path)[1]
    out = command[command.index("-o") + 1] if "-o" in command[:-1] else None
    if out:
        copy = out + ".chevron" + suffix
        os.makedirs(os.path.dirname(os.path.abspath(copy)), exist_ok=True)
        with open(copy, "w") as f:
            f.write(rewritten)
    else:
        with tempfile.NamedTemporaryFile("w", suffix=".chevron" + suffix, delete=False) as tmp:
            tmp.write(rewritten)
        copy = tmp.name
    command = command[:index] + ["-iquote", os.path.dirname(path), copy] + command[index + 1:]
    try:
        return subprocess.call(command)
    finally:
        if not out:
            os.unlink(copy)


if __name__ == "__main__":
    sys.exit(main())

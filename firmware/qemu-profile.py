#!/usr/bin/env python3
"""Instruction profile of a firmware binary under QEMU, from its execution trace.

    qemu-system-arm <the runner's arguments from .cargo/config.toml, without -kernel> \\
        -d in_asm,exec,nochain -D trace.log -kernel target/<target>/release/minimal
    python3 qemu-profile.py trace.log target/<target>/release/minimal [--calls f1,f2,...]
    python3 qemu-profile.py trace.log target/<target>/release/minimal --blocks FUNCTION

Each translated block is listed once (`-d in_asm`) with its instructions and logged at every
execution (`-d exec`, `nochain` so that chained blocks are logged too). The profile is the
instructions executed per function (block size times executions, by the symbol QEMU names).
With `--calls`, it counts instead the calls into the named functions (e.g. the soft-float
`__aeabi_fadd,__aeabi_fmul`) by calling source line (`arm-none-eabi-addr2line` on the block
that ran just before each call). With `--blocks`, it lists the translated blocks of the functions
whose symbol contains FUNCTION, the costliest first: address, executions, size, instructions,
and the source line of the block's first instruction.
"""

import collections
import re
import subprocess
import sys


def read(log):
    size, symbol, order = {}, {}, []
    current, sym, count = None, None, 0
    with open(log) as f:
        for line in f:
            if line.startswith("IN:"):
                sym, current, count = line[3:].strip(), None, 0
                continue
            m = re.match(r"^0x([0-9a-f]+):", line)
            if m:
                if current is None:
                    current = int(m.group(1), 16)
                    symbol[current] = sym
                # A block translated again is listed again: keep its size, not the sum.
                count += 1
                size[current] = max(size.get(current, 0), count)
                continue
            if line.startswith("Trace"):
                m = re.search(r"\[[0-9a-f]+/([0-9a-f]+)/", line)
                order.append(int(m.group(1), 16))
                current = None
    return size, symbol, order


def functions(size, symbol, order):
    per = collections.Counter()
    for block, n in collections.Counter(order).items():
        per[symbol.get(block, "?")] += n * size.get(block, 0)
    total = sum(per.values())
    print(f"{total} instructions")
    for name, n in per.most_common(30):
        print(f"{n:>10} {100 * n / total:5.1f}%  {name}")


def calls(size, symbol, order, binary, names):
    inside = {b for b, s in symbol.items() if any(n in s for n in names)}
    entry = {}
    for b in inside:
        s = symbol[b]
        entry[s] = min(entry.get(s, b), b)
    entries = set(entry.values())
    sites = collections.Counter()
    previous = None
    for b in order:
        if b in entries and previous is not None and previous not in inside:
            sites[previous] += 1
        previous = b
    by_line = collections.Counter()
    for block, n in sites.items():
        out = subprocess.run(
            ["arm-none-eabi-addr2line", "-i", "-e", binary, hex(block)],
            capture_output=True, text=True, check=True,
        ).stdout.split("\n")
        lines = [l.split("/src/")[-1] for l in out if l and "/rustc/" not in l]
        by_line[lines[0] if lines else "?"] += n
    print(f"{sum(by_line.values())} calls")
    for line, n in by_line.most_common(40):
        print(f"{n:>8}  {line}")


def blocks(size, symbol, order, binary, name):
    runs = collections.Counter(b for b in order if name in symbol.get(b, ""))
    rows = sorted(runs.items(), key=lambda r: -r[1] * size.get(r[0], 0))
    total = sum(n * size.get(b, 0) for b, n in rows)
    print(f"{total} instructions in blocks of functions matching {name!r}")
    print(f"{'block':>10} {'runs':>8} {'size':>5} {'instructions':>12}  first line")
    for block, n in rows[:30]:
        out = subprocess.run(
            ["arm-none-eabi-addr2line", "-e", binary, hex(block)],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
        line = out.split("/src/")[-1] if "/rustc/" not in out else out.split("/library/")[-1]
        print(f"{block:>#10x} {n:>8} {size.get(block, 0):>5} {n * size.get(block, 0):>12}  {line}")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    size, symbol, order = read(sys.argv[1])
    if len(sys.argv) > 4 and sys.argv[3] == "--calls":
        calls(size, symbol, order, sys.argv[2], sys.argv[4].split(","))
    elif len(sys.argv) > 4 and sys.argv[3] == "--blocks":
        blocks(size, symbol, order, sys.argv[2], sys.argv[4])
    else:
        functions(size, symbol, order)


if __name__ == "__main__":
    main()

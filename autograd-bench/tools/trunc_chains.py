"""The depth InstCombine's truncation test walks in a generated function (PERFORMANCE.md,
"Leaves of one pair apart; what overflows rustc's stack"):

    cd target/compile-time   # after `cargo xtask bench --compile-time --ops 1000`
    cargo rustc --release -p gen-reverse-1000 -- --emit=llvm-ir
    python3 ../../autograd-bench/tools/trunc_chains.py target/release/deps/gen_reverse_1000-*.ll

For every function of at least 2,000 values: its count of `trunc`s and the eight longest chains
of integer operations, `select`s and `phi`s under one (what LLVM 22's `canEvaluateTruncated`
recurses through, one level a value).
"""
import re
import sys

EVALUABLE = {'add', 'sub', 'mul', 'and', 'or', 'xor', 'shl', 'lshr', 'ashr', 'select', 'phi',
             'udiv', 'urem'}


def operands(op, rest):
    if op == 'phi':
        return re.findall(r'\[\s*(%[\w.\-]+),', rest)
    names = re.findall(r'(%[\w.\-]+)', rest)
    return names[1:] if op == 'select' else names


def main(path):
    sys.setrecursionlimit(100000)
    for f in re.split(r'\ndefine ', open(path).read())[1:]:
        defs = {}
        for line in f.split('\n}\n')[0].split('\n'):
            m = re.match(r'\s*(%[\w.\-]+) = (\w+)\s+(.*)', line)
            if m:
                defs[m.group(1)] = (m.group(2), m.group(3), line.strip())
        if len(defs) < 2000:
            continue
        memo = {}

        def depth(v, open_):
            if v in memo:
                return memo[v]
            d = defs.get(v)
            if not d or d[0] not in EVALUABLE or v in open_:
                return 0
            open_.add(v)
            best = max((depth(o, open_) for o in operands(d[0], d[1])), default=0)
            open_.discard(v)
            memo[v] = best + 1
            return best + 1

        found = []
        for op, rest, line in defs.values():
            if op == 'trunc':
                src = re.findall(r'(%[\w.\-]+)', rest)
                if src:
                    found.append((depth(src[0], set()), line[:150]))
        found.sort(reverse=True)
        print(f.split('(')[0][-80:], 'values', len(defs), 'truncs', len(found))
        for d, line in found[:8]:
            print('  ', d, line)


if __name__ == '__main__':
    main(sys.argv[1])

#!/usr/bin/env python3
"""Instructions per request from a callgrind profile, by object file and by function.

    bench/callgrind_summary.py PROFILE REQUESTS [TOP]

Reads one callgrind output file (the "Ir" event, the default), adds up each function's own
cost (self cost: the cost lines that follow a "calls=" line are the callee's inclusive cost
and are skipped), and prints the total, the objects and the TOP functions (default 15), each
divided by REQUESTS. Used by bench/instructions.sh.
"""

import collections
import re
import sys

COMPRESSED = re.compile(r"\((\d+)\)(?: (.*))?")


def summarize(path):
    """Returns (cost by object, cost by (object, function)) of one profile."""
    names = {}

    def name(kind, value):
        # Callgrind names a file, object or function in full once, as "(id) name", and by
        # "(id)" alone after that.
        match = COMPRESSED.match(value)
        if not match:
            return value
        key = (kind, match.group(1))
        if match.group(2):
            names[key] = match.group(2)
        return names.get(key, "?")

    by_object = collections.Counter()
    by_function = collections.Counter()
    obj = function = None
    callee_cost_next = False
    with open(path, encoding="utf-8", errors="replace") as profile:
        for line in profile:
            line = line.rstrip("\n")
            key, _, value = line.partition("=")
            if key == "ob":
                obj = name("ob", value)
            elif key == "cob":
                name("ob", value)
            elif key == "fn":
                function = name("fn", value)
            elif key == "cfn":
                name("fn", value)
            elif key in ("fl", "fi", "fe", "cfi", "cfl"):
                name("fl", value)
            elif key == "calls":
                callee_cost_next = True
            elif line and (line[0].isdigit() or line[0] in "+-*"):
                if callee_cost_next:
                    callee_cost_next = False
                    continue
                fields = line.split()
                if len(fields) >= 2:
                    cost = int(fields[1])
                    by_object[obj] += cost
                    by_function[(obj, function)] += cost
    return by_object, by_function


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__.strip().splitlines()[2].strip())
    by_object, by_function = summarize(sys.argv[1])
    requests = int(sys.argv[2])
    top = int(sys.argv[3]) if len(sys.argv) == 4 else 15
    total = sum(by_object.values())
    print(f"{total / requests:,.0f} instructions per request ({requests} requests)")
    print("by object:")
    for obj, cost in by_object.most_common():
        if cost * 1000 >= total:
            print(f"  {cost / requests:>11,.0f} {100 * cost / total:5.1f}%  {obj.split('/')[-1]}")
    print("by function (own instructions):")
    for (obj, function), cost in by_function.most_common(top):
        where = obj.split("/")[-1] if obj else "?"
        print(f"  {cost / requests:>11,.0f} {100 * cost / total:5.1f}%  {function[:90]} ({where})")


if __name__ == "__main__":
    main()

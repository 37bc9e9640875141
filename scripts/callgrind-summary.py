#!/usr/bin/env python3
"""callgrind-summary.py FILE N [TOP]: where the instructions of a callgrind dump of N requests go,
per request: self cost by shared object and by function, and the calls from kgate's functions
into Jansson (libjansson has no symbols, so its cost is shown by who calls it). Reads dumps
written with --compress-strings=no (scripts/profile-requests.sh)."""
import collections
import re
import sys


def main():
    path, n = sys.argv[1], float(sys.argv[2])
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    self_fn, self_ob, jansson = (collections.Counter() for _ in range(3))
    ob = fn = cob = "?"
    after_call = False
    for line in open(path):
        line = line.rstrip("\n")
        key, _, val = line.partition("=")
        if key in ("ob", "fn", "cob", "cfn"):
            name = re.sub(r"^\(\d+\) ?", "", val)
            if key == "ob":
                ob = name
            elif key == "fn":
                fn = name
            elif key == "cob":
                cob = name
            continue
        if key == "calls":
            after_call = True
            continue
        fields = line.split()
        if len(fields) < 2 or not (line[0].isdigit() or line[0] in "+-*"):
            continue
        cost = int(fields[1])
        if after_call:
            if "kgate" in ob and "jansson" in cob:
                jansson[fn] += cost
            after_call, cob = False, ob
            continue
        self_fn[fn] += cost
        self_ob[ob] += cost
    total = sum(self_ob.values())
    print("%.0f instructions per request" % (total / n))
    for title, counts in (("by object", self_ob), ("by function", self_fn),
                          ("into Jansson, by caller", jansson)):
        print("--- " + title)
        for name, cost in counts.most_common(top):
            print("%10.0f %5.1f%%  %s" % (cost / n, 100.0 * cost / total, name))


main()

#!/usr/bin/env python3
"""Exits 0 when two suites have the same results, times aside: results.json (without the suite's
name and the elapsed times), results.csv (without elapsed_s) and every file under kernels/.
Usage: same-results.py SUITE_A SUITE_B (prints the first difference otherwise)."""
import csv
import json
import os
import sys

TIMES = {"suite", "elapsed_s", "created", "written", "wall_s"}  # wall-clock facts: context.created, .written, .wall_s


def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in TIMES}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x


def rows(path):
    with open(path, newline="") as f:
        return [{k: v for k, v in r.items() if k not in TIMES} for r in csv.DictReader(f)]


def kernels(suite):
    d = os.path.join(suite, "kernels")
    out = {}
    for name in sorted(os.listdir(d)):
        with open(os.path.join(d, name), "rb") as f:
            out[name] = f.read()
    return out


def first_diff(a, b, where=""):
    if type(a) is not type(b):
        return f"{where}: {a!r} != {b!r}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{where}.{k}: only in {'B' if k not in a else 'A'}"
            d = first_diff(a[k], b[k], f"{where}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} items != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_diff(x, y, f"{where}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{where}: {a!r} != {b!r}"


def main():
    a, b = sys.argv[1], sys.argv[2]
    checks = [
        ("results.json", lambda s: strip(json.load(open(os.path.join(s, "results.json"))))),
        ("results.csv", lambda s: rows(os.path.join(s, "results.csv"))),
        ("kernels/", lambda s: {k: v.hex() for k, v in kernels(s).items()}),
    ]
    for what, load in checks:
        d = first_diff(load(a), load(b))
        if d:
            print(f"{what} differs: {d}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The static checks' Python parser: lib/eval/static.c runs this (python3 -I -B, no torch) with
{"task": source, "candidate": source} on stdin and reads one JSON line back, what
kernelpro.pystatic.analyze finds (docs/internals/eval.md, "Static checks"). Nothing of either source
is executed: both are only parsed."""

import json
import sys

from kernelpro import pystatic  # harness/kernelpro, beside this script


def main():
    try:
        req = json.load(sys.stdin)
        out = pystatic.analyze(str(req.get("task", "")), str(req.get("candidate", "")))
    except (ValueError, RecursionError, MemoryError) as e:
        out = {"ok": False, "error": "%s: %s" % (type(e).__name__, str(e)[:200])}
    sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Splits an unpacked real-capture (bench/gpu-capture-real.sh) into one profile directory per kernel.

    python3 bench/corpus-real/split.py CAPTURE_DIR [--out bench/corpus-real/h200] [--private .real/corpus-real]

Each ncu group directory (gN) holds the launches of several kernels; a launch belongs to the kernel
whose NVTX range (capture.py pushes one named after the kernel's id) it ran in, or, without NVTX
columns, to the KPREAL-BEGIN/END markers of program.log around its "==PROF== Profiling" line.

--out gets what is measurement and ours to commit: ncu_raw.csv and ncu_details.csv with that
kernel's launches, ptxas.txt (ptxas -v's resource lines), build.json (the check against the task's
Model) and time.txt (the task's Model and ModelNew forward times). --private (git-ignored) gets what
is derived from the third-party kernel code: sass.txt (cuobjdump -sass of the built extension) and
the source pages (ncu_source_sass.csv, ncu_source_cuda_sass.csv, which embed the CUDA source).
The dev31 directory of the capture (our own kernels) is copied whole to bench/corpus-dev31/h200.
"""
import argparse
import csv
import io
import json
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NVTX_ID = re.compile(r":(l\dp\d\d):")


def read_csv_lines(path):
    """(preamble lines, header, rows as (raw line, fields)) of an ncu CSV; ncu may print ==PROF== lines first."""
    with open(path, newline="") as f:
        text = f.read()
    lines = text.splitlines(keepends=True)
    pre, body = [], []
    for ln in lines:
        (body if ln.startswith('"') else (pre if not body else body)).append(ln)
    rows = [(ln, next(csv.reader(io.StringIO(ln)))) for ln in body]
    return pre, rows


def launch_owner(raw_rows, program_log):
    """{ncu launch ID: kernel id}, from the NVTX column when there is one, else from the markers."""
    head = raw_rows[0][1]
    nvtx = [i for i, h in enumerate(head) if "Push/Pop_Range" in h]
    owner = {}
    for _, r in raw_rows[1:]:
        if not r or not r[0].isdigit():
            continue
        if nvtx:
            m = NVTX_ID.search(r[nvtx[0]])
            if m:
                owner[int(r[0])] = m.group(1)
    if owner:
        return owner
    cur = None
    with open(program_log, errors="replace") as f:
        for ln in f:
            if ln.startswith("KPREAL-BEGIN "):
                cur = ln.split()[1]
            elif ln.startswith("KPREAL-END "):
                cur = None
            else:
                m = re.search(r'==PROF== Profiling ".*" - (\d+):', ln)
                if m and cur:
                    owner[int(m.group(1))] = cur
    return owner


def write_rows(path, rows, keep):
    """The header rows (and the units row of the raw page) plus the rows whose ID is in keep."""
    with open(path, "w", newline="") as f:
        for ln, r in rows:
            if not r or not r[0].isdigit() or int(r[0]) in keep:
                f.write(ln)


def times(program_log):
    out = {}
    with open(program_log, errors="replace") as f:
        for ln in f:
            p = ln.split()
            if ln.startswith("KPREAL-TIME ") and len(p) == 6:
                out[p[1]] = (float(p[3]), float(p[5]))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("capture", help="the unpacked real-capture directory")
    ap.add_argument("--out", default=os.path.join(HERE, "h200"))
    ap.add_argument("--private", default=os.path.join(ROOT, ".real", "corpus-real"))
    ap.add_argument("--dev31", default=os.path.join(ROOT, "bench", "corpus-dev31", "h200"))
    a = ap.parse_args(argv)
    cap = a.capture
    groups = sorted(d for d in os.listdir(cap) if re.fullmatch(r"g\d+", d))
    done = []
    for g in groups:
        gd = os.path.join(cap, g)
        raw_path = os.path.join(gd, "ncu_raw.csv")
        if not os.path.exists(raw_path):
            print("split: %s has no ncu_raw.csv: skipped" % g, file=sys.stderr)
            continue
        _, raw = read_csv_lines(raw_path)
        owner = launch_owner(raw, os.path.join(gd, "program.log"))
        tm = times(os.path.join(gd, "program.log"))
        pages = {}
        for page in ("ncu_details.csv", "ncu_source_sass.csv", "ncu_source_cuda_sass.csv"):
            p = os.path.join(gd, page)
            if os.path.exists(p) and os.path.getsize(p):
                pages[page] = read_csv_lines(p)[1]
        for kid in sorted(set(owner.values())):
            keep = {lid for lid, k in owner.items() if k == kid}
            pub, priv = os.path.join(a.out, kid), os.path.join(a.private, kid)
            for d in (pub, priv):
                shutil.rmtree(d, ignore_errors=True)
                os.makedirs(d)
            write_rows(os.path.join(pub, "ncu_raw.csv"), raw, keep)
            if "ncu_details.csv" in pages:
                write_rows(os.path.join(pub, "ncu_details.csv"), pages["ncu_details.csv"], keep)
            for page in ("ncu_source_sass.csv", "ncu_source_cuda_sass.csv"):
                if page in pages:
                    write_rows(os.path.join(priv, page), pages[page], keep)
            bd = os.path.join(cap, "builds", kid)
            for name, dest in (("ptxas.txt", pub), ("build.json", pub), ("sass.txt", priv)):
                if os.path.exists(os.path.join(bd, name)):
                    shutil.copy(os.path.join(bd, name), os.path.join(dest, name))
            if kid in tm:
                with open(os.path.join(pub, "time.txt"), "w") as f:
                    f.write("KernelBench Model forward %.4f ms, ModelNew forward %.4f ms (CUDA events, median of 3, "
                            "outside ncu's range; speedup %.2fx)\n" % (tm[kid][0], tm[kid][1], tm[kid][0] / tm[kid][1]))
            done.append("%s (%d launch%s)" % (kid, len(keep), "" if len(keep) == 1 else "es"))
    dev = os.path.join(cap, "dev31")
    if os.path.exists(os.path.join(dev, "ncu_raw.csv")):
        shutil.rmtree(a.dev31, ignore_errors=True)
        os.makedirs(a.dev31)
        for name in ("ncu_raw.csv", "ncu_details.csv", "sass.txt", "ptxas.txt", "plain-run.log"):
            if os.path.exists(os.path.join(dev, name)):
                shutil.copy(os.path.join(dev, name), os.path.join(a.dev31, name))
        done.append("dev31")
    with open(os.path.join(a.out, "env.txt"), "w") as f:
        f.write(open(os.path.join(cap, "env.txt")).read())
    print("split: %d: %s" % (len(done), ", ".join(done)))
    return 0 if done else 1


if __name__ == "__main__":
    sys.exit(main())

#!/bin/sh
# Prepares .kb-corpus/ (git-ignored through .git/info/exclude, never committed): kernels a real model
# wrote for KernelBench tasks, with the verdicts KernelBench's own harness gave them, and the tasks
# they were written for. Even-numbered problems only (the odd ones are kept for acceptance).
#   bench/kb-corpus-prepare.sh KERNEL_CODER_GIT_DIR KERNELBENCH_GIT_DIR
# KERNEL_CODER_GIT_DIR: a clone or bare mirror of github.com/j1mk1m/Kernel-Coder, whose published
# run directories (runs/<run>/<evaluation_id>_kernel.py beside eval_results.json) are in commit
# $KC_COMMIT (default 03880e67334fe8ce0f0526a5543ab4cb81d24296, not at its HEAD).
# KERNELBENCH_GIT_DIR: a clone or mirror of ScalingIntelligence/KernelBench ($KB_REV, default its
# main branch: the tasks kernelpro evaluates). The layout is KernelBench's own, so any tool that reads
# a KernelBench run directory can read it:
#   .kb-corpus/runs/<run>/{eval_results.json,config.yaml,<evaluation_id>_kernel.py}
#   .kb-corpus/KernelBench/level<L>/<P>_<Name>.py
#   .kb-corpus/SOURCES   (the two commits)
# eval_results.json keeps KernelBench's list of entries, only those of even problems whose kernel
# file exists. bench/real-output-judge.sh evaluates the corpus; carry .kb-corpus to the GPU machine.
set -eu
kc=${1:?usage: bench/kb-corpus-prepare.sh KERNEL_CODER_GIT_DIR KERNELBENCH_GIT_DIR}
kb=${2:?usage: bench/kb-corpus-prepare.sh KERNEL_CODER_GIT_DIR KERNELBENCH_GIT_DIR}
kc_commit=${KC_COMMIT:-03880e67334fe8ce0f0526a5543ab4cb81d24296}
kb_rev=${KB_REV:-refs/heads/main}
root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/.kb-corpus"

git --git-dir="$kc" cat-file -e "$kc_commit^{commit}" 2>/dev/null ||
	{ echo "kb-corpus-prepare: $kc has no commit $kc_commit (fetch it, or set KC_COMMIT)" >&2; exit 1; }
kb_commit=$(git --git-dir="$kb" rev-parse --verify "$kb_rev^{commit}" 2>/dev/null) ||
	{ echo "kb-corpus-prepare: $kb has no revision $kb_rev (set KB_REV)" >&2; exit 1; }

rm -rf "$dest"
mkdir -p "$dest"
# Only the files the corpus needs are read (git cat-file), so a mirror that lacks other blobs (logs)
# still serves.
python3 - "$kc" "$kc_commit" "$kb" "$kb_commit" "$dest" <<'PY'
import json, os, re, subprocess, sys

kc, kc_commit, kb, kb_commit, dest = sys.argv[1:6]
PROBLEM = re.compile(r"^level_(\d+)_problem_(\d+)$")


def ls(git_dir, commit, path):
    out = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "--name-only", commit, "--", path],
                         check=True, capture_output=True, text=True).stdout
    return out.splitlines()


def show(git_dir, commit, path):
    return subprocess.run(["git", "--git-dir", git_dir, "show", "%s:%s" % (commit, path)],
                          check=True, capture_output=True).stdout


def write(rel, data):
    path = os.path.join(dest, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


files = set(ls(kc, kc_commit, "runs"))
kept_tasks = set()
n_kernels = n_correct = 0
for res in sorted(f for f in files if f.endswith("/eval_results.json") and f.count("/") == 2):
    run = res.split("/")[1]
    keep = []
    for e in json.loads(show(kc, kc_commit, res)):
        m = PROBLEM.match(str(e.get("task_id", "")))
        kernel = "runs/%s/%s_kernel.py" % (run, e.get("evaluation_id", ""))
        if not m or int(m.group(2)) % 2 or kernel not in files:
            continue
        keep.append(e)
        write(kernel, show(kc, kc_commit, kernel))
        kept_tasks.add((m.group(1), m.group(2)))
        n_kernels += 1
        n_correct += bool(e.get("correctness"))
    if keep:
        write("runs/%s/eval_results.json" % run, json.dumps(keep, indent=2).encode())
        if "runs/%s/config.yaml" % run in files:
            write("runs/%s/config.yaml" % run, show(kc, kc_commit, "runs/%s/config.yaml" % run))
n_tasks = 0
for path in ls(kb, kb_commit, "KernelBench"):
    m = re.match(r"^KernelBench/level(\d+)/(\d+)_[^/]*\.py$", path)
    if m and (m.group(1), m.group(2)) in kept_tasks:
        write(path, show(kb, kb_commit, path))
        n_tasks += 1
print("kb-corpus-prepare: %d kernels (%d judged correct by KernelBench) of even problems, %d tasks"
      % (n_kernels, n_correct, n_tasks))
PY
printf 'kernel-coder %s\nkernelbench %s\n' "$kc_commit" "$kb_commit" >"$dest/SOURCES"
exclude="$(git -C "$root" rev-parse --git-path info/exclude)"
case "$exclude" in /*) ;; *) exclude="$root/$exclude" ;; esac
mkdir -p "$(dirname "$exclude")"
grep -qx '/.kb-corpus/' "$exclude" 2>/dev/null || echo '/.kb-corpus/' >>"$exclude"
echo "kb-corpus-prepare: $dest ($(du -sh "$dest" | cut -f1))"

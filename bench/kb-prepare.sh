#!/bin/sh
# Prepares .kb/ (git-ignored through .git/info/exclude, never committed): KernelBench's Python
# package, exported from a local clone or mirror, for bench/eval-latency.sh to compare against.
#   bench/kb-prepare.sh GIT_DIR
# GIT_DIR is a KernelBench clone or bare mirror (e.g. the one the search tool's fetch of
# github:ScalingIntelligence/KernelBench leaves under /work/.mirror/). Carry .kb to the GPU machine.
set -eu
src=${1:?usage: bench/kb-prepare.sh KERNELBENCH_GIT_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/.kb/KernelBench"
rm -rf "$dest"
mkdir -p "$dest"
git --git-dir="$src" archive HEAD src pyproject.toml | tar -x -C "$dest"
git --git-dir="$src" rev-parse HEAD >"$dest/COMMIT"
exclude="$(git -C "$root" rev-parse --git-path info/exclude)"
grep -qx '/.kb/' "$exclude" 2>/dev/null || echo '/.kb/' >>"$exclude"
echo "kb-prepare: KernelBench $(cut -c1-8 "$dest/COMMIT") in $dest ($(du -sh "$dest" | cut -f1))"

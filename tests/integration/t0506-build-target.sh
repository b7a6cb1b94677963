#!/bin/sh
# The nvcc target kernelpro builds a candidate for: SASS for the GPU's architecture only
# (-gencode=arch=compute_90a,code=sm_90a; -arch=sm_90a would also compile compute_90 PTX and embed it,
# a second cicc and ptxas pass that nothing reads), PTX only for a "compute_" architecture, and the
# same option from the C builder (lib/eval/build.c) and the Python one (kernelpro/build.py).
. "$KP_ROOT/tests/integration/lib.sh"
KERNELPRO_HOME=${KERNELPRO_HOME:-$KP_ROOT}
export KERNELPRO_HOME
task="$KP_ROOT/examples/native/row_sum"
cand="$task/candidates/warp_shuffle.cu"

# Both builders' command lines, through an nvcc that records them.
cat >fake-nvcc <<'SH'
#!/bin/sh
case "$1" in --version) echo "Cuda compilation tools, release 0.0"; echo "Build fake"; exit 0 ;; esac
# The static checks' preprocessing pass (nvcc -E, lib/eval/preproc.c) is no build: its output is the
# source itself here (no linemarkers, so no file outside the candidate), and it is not recorded.
if [ "$1" = -E ]; then for a; do last=$a; done; cat "$last"; exit 0; fi
printf '%s\n' "$*" >>"$NVCC_LOG"
while [ $# -gt 0 ]; do [ "$1" = -o ] && : >"$2"; shift; done
SH
chmod +x fake-nvcc
NVCC_LOG=$PWD/argv.log
export NVCC_LOG
for arch in sm_90a compute_90; do
	expect_exit 0 "$KP" eval --build-only --json --nvcc "$PWD/fake-nvcc" --arch $arch --cache "$KP_TMP/fake-$arch" "$task" "$cand"
done
python3 - "$KP_ROOT" <<'PY' || fail "the C and Python builders' nvcc targets"
import os, sys
sys.path.insert(0, os.path.join(sys.argv[1], "harness"))
from kernelpro import build
c = [l.split() for l in open("argv.log")]  # the reference's build and the candidate's, per arch
want = {"sm_90a": "-gencode=arch=compute_90a,code=sm_90a", "compute_90": "-arch=compute_90"}
assert len(c) == 4 and [a[3] for a in c] == [want["sm_90a"]] * 2 + [want["compute_90"]] * 2, c
assert not any("-arch=sm_" in w for a in c for w in a), c
for arch, a in (("sm_90a", c[1]), ("compute_90", c[3])):
    py = build.nvcc_argv("nvcc", arch, a[4:6], "warp_shuffle.cu", "lib.so", includes=[a[6][2:]])
    assert py[1:] == a, (py, a)
assert build.nvcc_target("sm_86") == "-gencode=arch=compute_86,code=sm_86"
PY

# What the real nvcc makes of the recorded command lines (--dryrun lists its steps): for sm_90a one
# cicc and one ptxas pass and a cubin, no PTX in the fat binary; for compute_90 PTX and no cubin.
NVCC=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
[ -x "$NVCC" ] || NVCC=$(command -v nvcc) || skip "no nvcc (the fake's half passed)"
printf '__global__ void k(float *x) { x[threadIdx.x] *= 2; }\n' >warp_shuffle.cu
sed -n 2p argv.log >line.sm_90a
sed -n 4p argv.log >line.compute_90
for arch in sm_90a compute_90; do
	# shellcheck disable=SC2046
	"$NVCC" --dryrun $(sed 's/-I[^ ]*//' line.$arch) >dry.$arch 2>&1 || { cat dry.$arch; fail "nvcc --dryrun ($arch)"; }
	grep '^#\$ fatbinary' dry.$arch | grep -v -- ' -link ' >fatbin.$arch
done
[ "$(grep -c '/cicc"* ' dry.sm_90a)" -eq 1 ] || { cat dry.sm_90a; fail "sm_90a: more than one cicc pass"; }
[ "$(grep -c '^#\$ ptxas ' dry.sm_90a)" -eq 1 ] || { cat dry.sm_90a; fail "sm_90a: more than one ptxas pass"; }
contains fatbin.sm_90a "kind=elf,sm=90a"
lacks fatbin.sm_90a "kind=ptx"
contains fatbin.compute_90 "kind=ptx,sm=90"
lacks fatbin.compute_90 "kind=elf"
echo ok

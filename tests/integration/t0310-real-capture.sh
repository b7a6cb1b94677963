#!/bin/sh
# bench/gpu-capture-real.sh and bench/corpus-real/split.py without a GPU: a stand-in torch (load_inline
# writes an extension, the models are plain Python), ncu (runs the program, keeps its KPREAL markers as
# the "report", prints raw/details pages with one launch per marker and its NVTX range), cuobjdump and
# nvcc. Checks: builds run and are checked against the task's Model (a wrong output is not profiled),
# ptxas lines and SASS are kept, each ncu group's pages are exported, $OUT holds exactly two files,
# the deadline still writes them; split.py gives each kernel its own launches by NVTX range, keeps
# SASS and source pages apart from the committed pages, and copies dev31.
. "$KP_ROOT/tests/integration/lib.sh"
command -v python3 >/dev/null || skip "no python3"
mkdir -p root fake py/torch/utils py/torch/cuda
ln -s "$KP_ROOT/bench" root/bench
ln -s "$KP_ROOT/harness" root/harness # capture.py builds with the harness's light cuda.cu rule (kernelpro.inline_cache)
R="$PWD/root"

# --- a stand-in torch: just what capture.py and the test kernels touch
cat >py/torch/__init__.py <<'EOF'
import contextlib
from . import nn, cuda, utils  # noqa: F401
class T:
    def __init__(s, v, shape=(2,)): s.v, s.shape = v, shape
    def float(s): return s
    def __sub__(s, o): return T(s.v - o.v, s.shape)
    def abs(s): return T(abs(s.v), s.shape)
    def max(s): return s.v
    def __float__(s): return float(s.v)
class _B:
    def any(s): return False
def set_default_device(d): pass
def manual_seed(s): pass
def rand(*shape): return T(1.0, shape)
def allclose(a, b, atol, rtol): return abs(a.v - b.v) <= atol + rtol * abs(b.v)
def isnan(x): return _B()
no_grad = contextlib.nullcontext
EOF
echo 'class Module:
    def __call__(s, *a): return s.forward(*a)' >py/torch/nn.py
cat >py/torch/cuda/__init__.py <<'EOF'
from . import nvtx, profiler  # noqa: F401
def synchronize(): pass
def empty_cache(): pass
class Event:
    def __init__(s, enable_timing=False): pass
    def record(s): pass
    def elapsed_time(s, o): return 2.0
EOF
printf 'def range_push(n): pass\ndef range_pop(): pass\n' >py/torch/cuda/nvtx.py
printf 'def start(): pass\ndef stop(): pass\n' >py/torch/cuda/profiler.py
echo 'from . import cpp_extension  # noqa: F401' >py/torch/utils/__init__.py
cat >py/torch/utils/cpp_extension.py <<'EOF'
import os, types
def load_inline(name, cpp_sources="", cuda_sources="", functions=None, build_directory=None, verbose=False,
                extra_cuda_cflags=None, **kw):
    assert "--ptxas-options=-v" in extra_cuda_cflags and build_directory, (extra_cuda_cflags, build_directory)
    print("ptxas info    : Compiling entry function '_Z1kPf' for 'sm_90'")
    print("    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads")
    print("ptxas info    : Used 30 registers, used 0 barriers", flush=True)
    open(os.path.join(build_directory, name + ".so"), "w").write("so")
    return types.SimpleNamespace(run=lambda x: x)
def _import_module_from_library(name, path, is_python_module):
    assert os.path.exists(os.path.join(path, name + ".so")), "not built: " + name
    return types.SimpleNamespace(run=lambda x: x)
EOF

# --- ncu: a collection runs the program and keeps its markers; an import prints pages from them
cat >fake/ncu <<'EOF'
#!/bin/sh
[ "$1" = --version ] && { echo "Version 2025.3.1.0 (fake)"; exit 0; }
rep= page= imp=
while [ $# -gt 0 ]; do
	case "$1" in
	--import) imp=$2; shift 2 ;;
	--page) page=$2; shift 2 ;;
	--export) rep=$2; shift 2 ;;
	--nvtx|--force-overwrite) shift ;;
	--csv) shift ;;
	--*) shift 2 ;;
	*) break ;;
	esac
done
if [ -n "$imp" ]; then
	case "$page" in
	raw)
		echo '"ID","Process ID","thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg","Kernel Name","gpu__time_duration.sum"'
		echo '"","","","","ns"'
		n=0
		for id in $(cat "$imp"); do
			echo "\"$n\",\"1\",\"<default domain>:$id:none:none:none:none:none:none\",\"k_$id\",\"1000\""
			n=$((n + 1))
		done ;;
	details)
		echo '"ID","Kernel Name","Section Name","Rule Name"'
		n=0
		for id in $(cat "$imp"); do echo "\"$n\",\"k_$id\",\"SpeedOfLight\",\"SOLBottleneck\""; n=$((n + 1)); done ;;
	source) echo '"Address","Source"' ;;
	esac
	exit 0
fi
"$@" >"$rep.out" 2>&1
rc=$?
cat "$rep.out"
sed -n 's/^KPREAL-BEGIN //p' "$rep.out" >"$rep.ncu-rep"
[ -n "${FAKE_NCU_NO_IDS:-}" ] && : >"$rep.ncu-rep"
exit $rc
EOF
printf '#!/bin/sh\necho "Function : _Z1kPf"\n' >fake/cuobjdump
cat >fake/nvcc <<'EOF'
#!/bin/sh
out=
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
echo "ptxas info    : Used 110 registers, used 0 barriers" >&2
printf '#!/bin/sh\necho "ok $1"\n' >"$out" && chmod +x "$out"
EOF
chmod +x fake/*

# --- three prepared kernels: two right, one whose output differs from the task's Model
for k in l1p02 l1p04 l1p06; do
	d="$R/.real/kernels/$k"
	mkdir -p "$d"
	echo '{"overrides": {"batch_size": 4}}' >"$d/meta.json"
	cat >"$d/task.py" <<'EOF'
import torch
batch_size = 16
class Model(torch.nn.Module):
    def __init__(s, *a): pass
    def forward(s, x): return x
def get_inputs(): return [torch.rand(batch_size, 3)]
def get_init_inputs(): return []
EOF
	cat >"$d/kernel.py" <<'EOF'
import torch
from torch.utils.cpp_extension import load_inline
ext = load_inline(name="gelu", cpp_sources="", cuda_sources="", functions=["run"], extra_cuda_cflags=["-O3"])
class ModelNew(torch.nn.Module):
    def __init__(s, *a): pass
    def forward(s, x): return ext.run(x)
EOF
done
sed -i 's/def forward(s, x): return x$/def forward(s, x): return torch.T(5.0, (4, 3))/' "$R/.real/kernels/l1p06/task.py"
echo "kernelbench fake" >"$R/.real/COMMITS"

capture() {
	rm -rf "$1" && mkdir -p "$1"
	(cd "$R" && PATH="$FAKE/fake:$PATH" PYTHONPATH="$FAKE/py" TORCHPY=python3 OUT="$FAKE/$1" NCU="$FAKE/fake/ncu" \
		CUOBJDUMP="$FAKE/fake/cuobjdump" NVCC="$FAKE/fake/nvcc" KP_REAL_IDS="l1p02 l1p04 l1p06" \
		KP_REAL_BUILD_S=${BUILD_S:-60} KP_REAL_DEADLINE_S=${DEADLINE_S:-200} sh bench/gpu-capture-real.sh) >"$1.log" 2>&1
}
FAKE="$PWD"

capture out1 || { cat out1.log; fail "capture script failed"; }
[ "$(ls out1 | sort | tr '\n' ' ')" = "real-capture.tgz real-summary.txt " ] || fail "\$OUT holds $(ls out1)"
tar xzf out1/real-capture.tgz -C out1 || fail "capture tarball"
C=out1/real-capture
contains "$C/log.txt" "builds done: 2 kernels build and match their task's Model"
contains "$C/log.txt" "wrong output"
for k in l1p02 l1p04; do
	contains "$C/builds/$k/build.json" '"correct": true'
	contains "$C/builds/$k/ptxas.txt" "Used 30 registers"
	contains "$C/builds/$k/ptxas.txt" "bytes stack frame"
	[ -s "$C/builds/$k/sass.txt" ] || fail "$k: no sass.txt"
	[ ! -e "$C/builds/$k/ext" ] || fail "$k: the built extension came back"
done
contains "$C/builds/l1p06/build.json" '"correct": false'
lacks "$C/builds/ok.txt" "l1p06"
cat "$C"/g*/ids.txt >ids
[ "$(sort ids | tr '\n' ' ')" = "l1p02 l1p04 " ] || fail "profiled: $(cat ids)"
for f in ncu_raw.csv ncu_details.csv ncu_raw_instances.csv program.log; do
	[ -s "$C/g1/$f" ] || fail "no g1/$f"
done
contains "$C/g1/program.log" "KPREAL-TIME"
contains "$C/dev31/plain-run.log" "ok all"
contains "$C/dev31/ptxas.txt" "Used 110 registers"

# split.py: each kernel its own launch (NVTX), private files apart, dev31 copied
python3 "$KP_ROOT/bench/corpus-real/split.py" "$C" --out split --private priv --dev31 d31 >split.log 2>&1 ||
	{ cat split.log; fail "split.py"; }
for k in l1p02 l1p04; do
	[ "$(grep -c "k_$k" split/$k/ncu_raw.csv)" -eq 1 ] || fail "$k: its launch not in its raw page"
	[ "$(grep -c '^"[0-9]' split/$k/ncu_raw.csv)" -eq 1 ] || fail "$k: another kernel's launch in its raw page"
	grep -q '"ns"' split/$k/ncu_raw.csv || fail "$k: the units row was lost"
	[ -s priv/$k/sass.txt ] && [ ! -e split/$k/sass.txt ] || fail "$k: SASS not kept apart"
	contains split/$k/time.txt "speedup 1.00x"
done
[ -s d31/ncu_raw.csv ] && [ -s d31/ptxas.txt ] || fail "dev31 not copied"

# out of time: nothing runs, the two files still come back
DEADLINE_S=0 BUILD_S=0 capture out2 || { cat out2.log; fail "capture script failed (deadline)"; }
[ "$(ls out2 | wc -l)" -eq 2 ] || fail "deadline: \$OUT holds $(ls out2)"
echo ok

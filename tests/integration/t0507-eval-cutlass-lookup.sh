#!/bin/sh
# kernelpro looks for CUTLASS (and, without .cutlass or CUTLASS_PATH, starts a python3 to ask pip's
# nvidia-cutlass: tens of ms of every evaluation) only for a candidate whose text names cute/ or
# cutlass/. With the stand-in adapter (tests/python/fake_harness) and a python3 that logs its calls.
. "$KP_ROOT/tests/integration/lib.sh"
command -v python3 >/dev/null || skip "no python3"
[ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null || skip "no nvcc (the toolchain an evaluation resolves)"
home="$KP_TMP/home"
mkdir -p "$home/harness"
ln -s "$KP_ROOT/tests/python/fake_harness/kp_torch.py" "$home/harness/kp_torch.py"
real=$(command -v python3)
cat >py <<SH
#!/bin/sh
printf '%s\n' "\$*" | tr '\n' ' ' >>"$KP_TMP/py.log"; echo >>"$KP_TMP/py.log"
exec "$real" "\$@"
SH
chmod +x py
KERNELPRO_HOME="$home" KERNELPRO_PYTHON="$PWD/py"
export KERNELPRO_HOME KERNELPRO_PYTHON
unset CUTLASS_PATH
task="$KP_ROOT/examples/kernelbench/swish_scale.py"
: >"$KP_TMP/py.log"
expect_exit 0 "$KP" eval --cache "$KP_TMP/cache" "$task" "$KP_ROOT/examples/kernelbench/swish_scale_fast.py"
contains out "correct"
grep -q kp_torch.py "$KP_TMP/py.log" || { cat "$KP_TMP/py.log"; fail "the logging python3 did not run the adapter"; }
lacks "$KP_TMP/py.log" "cutlass_library"
# A candidate that names CuTe: CUTLASS is looked for (through pip when nothing nearer has it).
if [ ! -d "$KP_ROOT/.cutlass" ]; then
	{ echo "# uses <cute/tensor.hpp> in a fast-path source"; cat "$KP_ROOT/examples/kernelbench/swish_scale_fast.py"; } >cute_named.py
	expect_exit 0 "$KP" eval --cache "$KP_TMP/cache" "$task" cute_named.py
	contains "$KP_TMP/py.log" "cutlass_library"
fi
echo ok

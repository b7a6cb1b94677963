#!/bin/sh
# Test double for the bundled examples' recorded replies (no GPU): compiles the candidate with nvcc
# for real (a native .cu, or the CUDA source inside a fast-path .py), so a reply that should fail to
# compile does and the others build. What a GPU would measure is not known here: a compiled
# candidate gets the placeholder speedup 1.0, which the tests never compare.
f=$1
out=${TMPDIR:-/tmp}/kp-compile-check-$$
trap 'rm -rf "$out"' EXIT
mkdir -p "$out"
ok() { printf '{"status":"correct","speedup":1.0,"runtime":{"median_ms":1.0},"ref_runtime":{"median_ms":1.0}}\n'; }
[ "$KP_EVAL_ROLE" = reference ] && { ok; exit 0; }
case $f in
*.py) awk '/^SRC = r"""/{p=1;next} /^"""/{p=0} p' "$f" >"$out/cand.cu" ;;
*) cp "$f" "$out/cand.cu" ;;
esac
if "${NVCC:-nvcc}" -arch=sm_90 -shared -Xcompiler -fPIC -I"$KP_ROOT/harness/include" -o "$out/cand.so" \
	"$out/cand.cu" >"$out/log" 2>&1; then
	ok
else
	python3 -c 'import json,sys; print(json.dumps({"status": "compile_error", "log": open(sys.argv[1]).read()}))' "$out/log"
fi

# The benchmark pipeline on three kernels: NVML measurement, ncu profile with the proxy's metrics and
# markers, then validate (join by markers, cuBLAS's launches summed) and calibrate.
. "$KP_ROOT/tests/integration/lib.sh"
corpus=${KERNELPRO_LIBEXEC:-$KP_BUILD/libexec/kernelpro}/kp-energy-corpus
[ -x "$corpus" ] || skip "kp-energy-corpus was not built"
command -v ncu >/dev/null 2>&1 || skip "ncu is not on PATH"
only=vec_add_f4,fma_fp32,cublas_tf32

"$corpus" measure --only $only --windows 2 --window-s 0.5 >measured.jsonl 2>measure.log || { cat measure.log; fail "measure failed"; }
[ "$(grep -c . measured.jsonl)" -eq 3 ] || { cat measure.log; fail "expected 3 measurements"; }
ncu --metrics "$("$KP" energy metrics)" --profile-from-start off --clock-control none --export prof --force-overwrite \
	"$corpus" profile --only $only >ncu.log 2>&1 || { tail -20 ncu.log; fail "ncu failed"; }
ncu --import prof.ncu-rep --csv --page raw --print-units base >raw.csv 2>>ncu.log || fail "ncu --import failed"
expect_exit 0 "$KP" energy validate --measured measured.jsonl --ncu-csv raw.csv --out corpus.jsonl
cat out
contains out "3 kernels on"
[ "$(grep -c . corpus.jsonl)" -eq 3 ] || fail "corpus.jsonl should hold 3 samples"
lacks corpus.jsonl '"fp32": null'
expect_exit 0 "$KP" energy calibrate --dry-run corpus.jsonl
contains out "leave-one-out"

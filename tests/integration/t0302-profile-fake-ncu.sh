#!/bin/sh
# kernelpro profile against a fake ncu: the exact command line, saved files, and each way ncu fails.
. "$KP_ROOT/tests/integration/lib.sh"
unset CUDA_HOME
mkdir bin
cp "$KP_ROOT/tests/integration/fake-ncu" bin/ncu
PATH="$PWD/bin:$PATH"; export PATH
export XDG_CACHE_HOME="$PWD/cache" KP_FAKE_NCU_ARGS="$PWD/ncu.args" KP_FAKE_NCU_ENV="$PWD/ncu.env"

KP_FAKE_NCU_MODE=ok expect_exit 0 "$KP" profile --out p1 -k vec_add_naive -s 2 -c 3 --metrics dram__throughput.avg.pct_of_peak_sustained_elapsed sh -c 'echo program-output'
contains out "launch 0  vec_add_naive"
contains ncu.args "--clock-control"
contains ncu.args "none"
contains ncu.args "--cache-control"   # caches flushed before every replay pass, said explicitly
contains ncu.args "--replay-mode"
contains ncu.args "--csv"
contains ncu.args "raw"
contains ncu.args "--print-units"
contains ncu.args "base"
contains ncu.args "--kernel-name"
grep -A1 -x -- "--launch-skip" ncu.args | grep -qx 2 || fail "launch skip"
grep -A1 -x -- "--launch-count" ncu.args | grep -qx 3 || fail "launch count"
contains ncu.args "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"
contains ncu.args "dram__throughput.avg.pct_of_peak_sustained_elapsed"
contains ncu.env "LC_ALL=C LANG=C"
test -s p1/ncu.log || fail "no ncu log"
test -s p1/ncu_raw.csv || fail "no raw csv"
contains p1/program.log "program-output"
contains p1/profile.json '"status": "ok"'
# exactly the metrics asked for: one --metrics list, no --set unless asked
test "$(grep -c -- '--metrics' ncu.args)" -eq 1 || fail "more than one --metrics"
lacks ncu.args "--set"

# analyze reads the directory again
expect_exit 0 "$KP" analyze --json p1
python3 -c "import json; o = json.load(open('out')); assert len(o['launches']) == 17" || fail "analyze"

# with the details and source pages: an exported report, imported page by page
KP_FAKE_NCU_MODE=ok expect_exit 0 "$KP" profile --out p2 --details --sass true
test -s p2/ncu_details.csv || fail "no details page"
test -s p2/sass.csv || fail "no source page"
test ! -e p2/report.ncu-rep || fail "report kept without --keep-report"
contains out "sources: ncu, sass"

# no permission to read counters: a clear message, then timing only
KP_FAKE_NCU_MODE=perm expect_exit 1 "$KP" profile --out p3 true
contains err "ERR_NVGPUCTRPERM"
contains err "continuing with timing only"
contains p3/profile.json '"error_code": "perm"'

# the program fails under ncu
KP_FAKE_NCU_MODE=ok expect_exit 1 "$KP" profile --out p4 sh -c 'exit 3'
contains err "the profiled program failed under ncu"
contains err "p4/ncu.log"

KP_FAKE_NCU_MODE=nokernel expect_exit 1 "$KP" profile --out p5 true
contains err "ncu profiled no kernel"
KP_FAKE_NCU_MODE=badmetric expect_exit 1 "$KP" profile --out p6 --metrics no__such_metric true
contains err "does not know a requested metric"
KP_FAKE_NCU_MODE=slow expect_exit 1 "$KP" profile --out p7 --timeout 1 true
contains err "timed out"

# a program that does not exist: said at once, nothing run, no profile claimed (issue 21)
KP_FAKE_NCU_MODE=ok expect_exit 1 "$KP" profile --out p9 ./missing
contains err "program './missing' not found or not executable"
lacks err "profile saved"
lacks err "continuing with timing only"
test ! -e p9 || fail "a directory was made for a program that does not exist"
KP_FAKE_NCU_MODE=ok expect_exit 1 "$KP" profile --out p9 no-such-program-kp
contains err "not on PATH"

# ncu stopped by a signal (Ctrl-C): it says it stopped, no timing-only fallback, no profile claimed
KP_FAKE_NCU_MODE=interrupted expect_exit 1 "$KP" profile --out p10 true
contains err "ncu was stopped by signal 2"
contains err "profiling stopped: nothing was profiled"
lacks err "continuing with timing only"
lacks err "profile saved"
contains p10/profile.json '"status": "stopped"'
test ! -e p10/ncu_raw.csv || fail "an interrupted run left a raw page"

# Ctrl-C to kernelpro itself while ncu runs: it ends promptly and claims no profile. (A background
# job of a script starts with SIGINT ignored: the wrapper gives kernelpro the terminal's default.)
KP_FAKE_NCU_PID="$PWD/ncu.pid" KP_FAKE_NCU_MODE=slow python3 -c \
	'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' \
	"$KP" profile --out p11 true >out 2>err &
kp=$!
n=0
while [ ! -s ncu.pid ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
test -s ncu.pid || fail "the fake ncu never started"
kill -INT $kp
n=0
while kill -0 $kp 2>/dev/null && [ $n -lt 150 ]; do sleep 0.1; n=$((n + 1)); done
kill -0 $kp 2>/dev/null && { kill -9 $kp; fail "Ctrl-C did not stop 'kernelpro profile'"; }
wait $kp
kill -- "-$(cat ncu.pid)" 2>/dev/null # its process group, should it outlive kernelpro
lacks err "continuing with timing only"
lacks err "profile saved"
if [ -e p11/profile.json ]; then lacks p11/profile.json '"status": "ok"'; fi

# no ncu at all
PATH=/usr/bin:/bin expect_exit 3 "$KP" profile --out p8 true
contains err "ncu not found"

# an .ncu-rep is imported page by page
echo fake > r.ncu-rep
expect_exit 0 "$KP" analyze --out imp r.ncu-rep
test -s imp/ncu_raw.csv || fail "import"
contains out "launch 16"
echo ok

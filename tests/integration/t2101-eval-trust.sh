#!/bin/sh
# What kernelpro checks itself in a harness child's answer (issue 21), with a stand-in for the PyTorch
# adapter (--python), so no GPU is needed: a negative runtime or an absurd speedup never makes a
# correct verdict (implausible_result); a child ended by SIGSYS (the sandbox refused a process) is
# process_spawn; the verdict carries the sandbox object and says what was not enforced. A baseline's
# reference times (every speedup is divided by them) are held to the same bounds.
. "$KP_ROOT/tests/integration/lib.sh"
KERNELPRO_HOME=${KERNELPRO_HOME:-$KP_ROOT}
# The stand-in's switch reaches it as a user's variable reaches any harness child (docs/eval.md).
KERNELPRO_PASS_ENV=FAKE
export KERNELPRO_HOME KERNELPRO_PASS_ENV
[ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] || command -v nvcc >/dev/null || skip "no nvcc"
task="$KP_ROOT/examples/kernelbench/swish_scale.py"
cand="$KP_ROOT/examples/kernelbench/swish_scale_fast.py"

# The stand-in reads the config, then prints $FAKE (a file) or ends itself by SIGSYS.
cat >fake-python <<'SH'
#!/bin/sh
cat >/dev/null
echo '{"phase":"build","limit_s":300}'
[ "$FAKE" = sigsys ] && kill -SYS $$
cat "$FAKE"
SH
chmod +x fake-python
result() { # FILE RUNTIME_MS REF_MS EXTRA
	printf '{"result":{"status":"correct","message":"ok","compiled":true,"trials_run":5,"trials_passed":5,'`
	`'"runtime":{"median_ms":%s,"mean_ms":%s,"std_ms":0,"min_ms":%s,"max_ms":%s,"trials":100},'`
	`'"ref_runtime":{"median_ms":%s,"mean_ms":%s,"std_ms":0,"min_ms":%s,"max_ms":%s,"trials":100},'`
	`'"flags":[]%s}}\n' "$2" "$2" "$2" "$2" "$3" "$3" "$3" "$3" "$4" >"$1"
}

result neg.json -0.5 1.0 ""
FAKE=neg.json expect_exit 1 "$KP" eval --json --python ./fake-python --cache "$KP_TMP/cache" "$task" "$cand"
contains out '"status": "cheat_suspected"'
contains out '"check": "implausible_result"'
contains out 'runtime -0.5 ms is not a measurement'

result fast.json 1e-5 1e6 ""
FAKE=fast.json expect_exit 1 "$KP" eval --json --python ./fake-python --cache "$KP_TMP/cache" "$task" "$cand"
contains out '"check": "implausible_result"'
contains out 'is above 1e+06'

FAKE=sigsys expect_exit 1 "$KP" eval --json --python ./fake-python --cache "$KP_TMP/cache" "$task" "$cand"
contains out '"status": "cheat_suspected"'
contains out '"check": "process_spawn"'
contains out "ended by SIGSYS in phase 'build'"

result ok.json 0.5 1.0 ',"sandbox":{"applied":true,"network":{"isolated":false,"why":"no namespace here"},"processes":{"blocked":true,"threads":"every thread","since":"x"},"limits":{"cpu_s":10},"refused":{}}'
FAKE=ok.json expect_exit 0 "$KP" eval --python ./fake-python --cache "$KP_TMP/cache" "$task" "$cand"
contains out 'sandbox: network NOT isolated (no namespace here), processes blocked, limits set'
FAKE=ok.json expect_exit 0 "$KP" eval --json --python ./fake-python --cache "$KP_TMP/cache" "$task" "$cand"
python3 - <<'PY' || fail "sandbox object in the verdict"
import json
v = json.load(open("out"))
assert v["status"] == "correct" and v["speedup"] == 2.0, v
assert v["sandbox"]["network"] == {"isolated": False, "why": "no namespace here"}, v["sandbox"]
PY

printf '{"result":{"status":"correct","message":"ok","ref_runtime":{"median_ms":%s,"mean_ms":%s,"std_ms":0,'`
	`'"min_ms":%s,"max_ms":%s,"trials":100},"flags":[]}}\n' -0.5 -0.5 -0.5 -0.5 >base-neg.json
FAKE=base-neg.json expect_exit 1 "$KP" baseline --no-compile --python ./fake-python --cache "$KP_TMP/cache" "$task"
contains err "refused by check 'implausible_result'"
contains err 'runtime -0.5 ms is not a measurement'
echo ok

# optimize through injected faults (KP_FAULT, docs/internals/faults.md): the Nth child spawn, SQLite
# write, file write or HTTP attempt fails. Each ends in a clear error naming the fault (or a retry, or
# a warning about a copy), the run resumes with --resume, and it ends as the uninterrupted run does:
# no committed row lost, none made twice.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/search/lib.sh"
unset KP_FAULT

EVALS=5
expect_exit 0 optimize --evals $EVALS --name whole
"$KP" show whole --tree --json >whole.json || fail "show whole"

# same RUN REF: the run's tree (and what it used) is the reference run's.
same() {
	"$KP" show "$1" --tree --json >"$1.json" || fail "show $1"
	python3 - "$2" "$1.json" <<'PY' || fail "run $1 differs from $2 (log: $(cat f.err))"
import json, sys
def key(p):
    d = json.load(open(p))
    tree = [(n["node"], n["parent"], n["kind"], n["outcome"], n["speedup"], n["summary"]) for n in d["tree"]]
    return tree, d["used"]["evaluations"], d["used"]["generations"], d["status"]
w, a = key(sys.argv[1]), key(sys.argv[2])
assert w == a, "\n%s\n%s" % (w, a)
PY
	R=kernelpro-runs/$1
	[ -f "$R/best.cu" ] || fail "$1: no best.cu"
	[ "$(json "$R/summary.json" 'd["used"]["evaluations"]')" = "$(json "$2" 'd["used"]["evaluations"]')" ] ||
		fail "$1: summary.json is stale"
	[ "$(ls "$R/candidates" | wc -l)" -eq "$(json "$1.json" 'len(d["tree"]) - 1')" ] || fail "$1: candidates/"
}

# through KIND N: a run with the Nth operation of KIND failing, then resumed (or, when the fault came
# before the run existed, started again) without it. Returns 2 when the run has fewer than N of them.
through() {
	name="$1-$2"
	KP_FAULT="$1:$2" "$KP" optimize "$TASK" --llm "replay:$S/replay" --evaluator "$FAKE" --evals $EVALS \
		--name "$name" >f.out 2>f.err
	rc=$?
	if ! grep -q "injected fault: $1 #$2 (KP_FAULT)" f.err; then
		[ $rc -eq 0 ] || fail "$name: failed without the fault: $(cat f.err)"
		same "$name" whole.json
		return 2
	fi
	if [ $rc -ne 0 ]; then
		grep -q "error: .*injected fault: $1 #$2" f.err || fail "$name: the error does not name the fault: $(cat f.err)"
	fi
	if [ -d "kernelpro-runs/$name" ]; then
		[ $rc -eq 0 ] || grep -q "continue it with: kernelpro optimize --resume" f.err || fail "$name: no resume hint"
		"$KP" optimize --resume "$name" --llm "replay:$S/replay" --evaluator "$FAKE" >r.out 2>r.err ||
			fail "$name: resume failed: $(cat r.err)"
	else
		[ $rc -ne 0 ] || fail "$name: exit 0 but no run"
		optimize --evals $EVALS --name "$name" >r.out 2>r.err || fail "$name: a new run failed: $(cat r.err)"
	fi
	same "$name" whole.json
}

# Spawns: the reference's evaluation, then each candidate's.
for n in 1 2 4 $((EVALS + 1)); do through spawn $n; done
# sweep KIND: the first dozen operations of KIND one by one, then every 13th, then the last few.
sweep() {
	n=1
	while through "$1" $n; do
		if [ $n -lt 12 ]; then n=$((n + 1)); else n=$((n + 13)); fi
	done
	[ $n -gt 12 ] || fail "fewer than 12 $1 operations in a run: the sweep tests too little"
	last=$n
	for n in $((last - 1)) $((last - 2)) $((last - 3)) $((last - 4)) $((last - 5)); do
		through "$1" $n || true
	done
}
# SQLite writes: the run's creation, the reference, generations, evaluations, memory, the end.
sweep sqlite-write
# File writes: the run's directory and moving it into place, summary.json, candidates/, the exec
# evaluator's candidate file, best.cu.
sweep file-write
# A faulted write of a copy is a warning, and the run goes on (file writes 1 and 2 create the run).
KP_FAULT=file-write:4 "$KP" optimize "$TASK" --llm "replay:$S/replay" --evaluator "$FAKE" --evals 2 \
	--name copy >out 2>err || fail "a faulted copy stopped the run: $(cat err)"
contains err "warning: injected fault: file-write #4"
contains err "a copy for reading"
[ ! -f kernelpro-runs/copy/candidates/2.cu ] || fail "candidates/2.cu was written after all"
"$KP" optimize --resume copy --llm "replay:$S/replay" --evaluator "$FAKE" >out 2>err || fail "resume copy"
[ -f kernelpro-runs/copy/candidates/2.cu ] || fail "the next session did not restore candidates/2.cu"

# HTTP: a lost reply is retried; replies that keep failing stop the run, and --resume goes on.
if command -v python3 >/dev/null; then
	. "$KP_ROOT/tests/integration/llm-lib.sh"
	KEY=sk-test-faults-0011223344556677KEY
	cat >reply.md <<'EOF'
A faster copy.

```cuda
#include "kp_native.h"
// fake-verdict: correct 1.5
KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream) { return 0; }
```
EOF
	start_llm_server "$KEY" reply.md
	export OPENAI_API_KEY="$KEY" OPENAI_BASE_URL="http://127.0.0.1:$LLM_PORT/s=ok/v1"
	http() { "$KP" optimize "$TASK" --llm openai:loopback --evaluator "$FAKE" --parallel 1 "$@"; }
	expect_exit 0 http --evals 3 --name hwhole
	"$KP" show hwhole --tree --json >hwhole.json || fail "show hwhole"
	KP_FAULT=http:2 http --evals 3 --name hretry >f.out 2>f.err || fail "a lost reply was not retried: $(cat f.err)"
	contains f.err "injected fault: http #2"
	same hretry hwhole.json
	KP_FAULT=http:2+ http --evals 3 --name hgiveup --llm-retries 1 >f.out 2>f.err && fail "failing replies did not stop the run"
	contains f.err "gave up after 2 attempts"
	contains f.err "continue it with: kernelpro optimize --resume"
	"$KP" optimize --resume hgiveup --evaluator "$FAKE" --parallel 1 >r.out 2>r.err || fail "resume after HTTP failures: $(cat r.err)"
	same hgiveup hwhole.json
fi
exit 0

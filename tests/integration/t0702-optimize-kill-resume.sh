# kill -9 in the middle of an optimize run loses nothing committed: --resume continues, skips the
# replies already used, and ends with exactly the tree an uninterrupted run makes.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/search/lib.sh"

expect_exit 0 optimize --evals 9 --name whole
"$KP" show whole --tree --json >whole.json || fail "show whole"

slow_run cut 4 --evals 9
kill -9 $pid
wait $pid 2>/dev/null
[ "$n" -ge 4 ] || fail "the run did not get to 4 evaluations (log: $(cat cut.err))"
"$KP" show cut --tree --json >before.json || fail "show after kill -9"
before=$(json before.json 'd["used"]["evaluations"]')
[ "$before" -ge 4 ] && [ "$before" -lt 9 ] || fail "evaluations before resume: $before"
[ "$(json before.json 'd["status"]')" = running ] || fail "a killed run still says running"

# The lock died with the process: resume works, and a second one at the same time is refused.
KP_FAKE_SLEEP=0.3 "$KP" optimize --resume cut --llm "replay:$S/replay" --evaluator "$FAKE" >r.out 2>r.err &
rpid=$!
sleep 0.5
expect_exit 1 "$KP" optimize --resume cut --llm "replay:$S/replay" --evaluator "$FAKE"
contains err "in use by another kernelpro process"
wait $rpid || { cat r.err; fail "resume failed"; }
contains r.err "resuming run cut"
"$KP" show cut --tree --json >after.json || fail "show after resume"
[ "$(json after.json 'd["used"]["evaluations"]')" = 9 ] || fail "resume did not finish the budget"
[ "$(json after.json 'd["used"]["sessions"]')" = 2 ] || fail "sessions"
# Everything committed before the kill is still there, unchanged.
python3 - before.json after.json <<'PY' || fail "nodes committed before kill -9 changed"
import json, sys
b = {n["node"]: n for n in json.load(open(sys.argv[1]))["tree"]}
a = {n["node"]: n for n in json.load(open(sys.argv[2]))["tree"]}
for k, n in b.items():
    if n["outcome"] == "pending":
        continue
    m = a[k]
    assert (n["kind"], n["outcome"], n["speedup"], n["summary"]) == (m["kind"], m["outcome"], m["speedup"], m["summary"]), (n, m)
PY
# And the run is the one an uninterrupted run makes.
python3 - whole.json after.json <<'PY' || fail "the resumed run differs from the uninterrupted one"
import json, sys
key = lambda d: [(n["node"], n["parent"], n["kind"], n["outcome"], n["speedup"]) for n in json.load(open(d))["tree"]]
w, a = key(sys.argv[1]), key(sys.argv[2])
assert w == a, "\n%s\n%s" % (w, a)
PY
exit 0

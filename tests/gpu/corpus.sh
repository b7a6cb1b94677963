# Shared by the GPU tests that run a corpus of candidates (g0502, g1301); sourced, not a test itself.
# Each candidate's header names its task, the verdict it must get and extra runs (see
# tests/adversarial/kernelbench/README.md). Counts cases in $n and wrong verdicts in $bad.
n=0
bad=0

# check_verdict JSON "STATUS[|STATUS] [CHECK]" LABEL ["CHECK ..."]: the verdict has one of the statuses
# (and the flag), and none of the flags of the fourth argument.
check_verdict() {
	python3 - "$1" "$2" "$3" "${4:-}" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
want = sys.argv[2].split()
ok = v["status"] in want[0].split("|")
if len(want) > 1:
    ok = ok and any(f["check"] == want[1] for f in v["flags"])
banned = [f["check"] for f in v["flags"] if f["check"] in sys.argv[4].split()]
if banned:
    print("    flagged %s, which it must not be (speedup %s)" % (", ".join(banned), v.get("speedup")))
    ok = False
print("%-44s %-16s %s" % (sys.argv[3], v["status"], "; ".join("%s:%s" % (f["check"], f["severity"]) for f in v["flags"])))
sb = v.get("sandbox") or {}
if any(f["check"] == "process_spawn" for f in v["flags"]) or sb.get("refused"):
    print("    sandbox refused %s, first calls %s, python %s" % (sb.get("refused"), sb.get("refused_calls"),
          [(r["event"], r["what"], r["where"]) for r in (sb.get("python") or {}).get("refused") or []]))
if not ok:
    print("    expected %s; message: %s" % (sys.argv[2], v["message"]))
    print("    log: %s" % (v["log"] or "")[:1500])
sys.exit(0 if ok else 1)
PY
}

# one FILE TASK "ARGS" "EXPECT" LABEL ["NO-FLAGS"]
one() {
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$KP" eval --json --cache "$cache" --check-timeout 60 $3 "$KP_ROOT/$2" "$1" >"$5.json" 2>"$5.err"
	if ! check_verdict "$5.json" "$4" "$5" "${6:-}"; then
		bad=$((bad + 1))
		cat "$5.err"
	fi
}

# corpus_file FILE: its run, and the kp-also run when it has one.
corpus_file() {
	name=$(basename "$1")
	task=$(sed -n 's/^.*kp-task: *//p' "$1" | head -1)
	want=$(sed -n 's/^.*kp-expect-verdict: *//p' "$1" | head -1)
	args=$(sed -n 's/^.*kp-eval-args: *//p' "$1" | head -1)
	noflag=$(sed -n 's/^.*kp-expect-no-flag: *//p' "$1" | head -1)
	one "$1" "$task" "$args" "$want" "$name" "$noflag"
	also=$(sed -n 's/^.*kp-also: *//p' "$1" | head -1)
	if [ -n "$also" ]; then
		one "$1" "$task" "${also%% =>*}" "${also#*=> }" "$name (${also%% =>*})"
	fi
}

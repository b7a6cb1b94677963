# Issue 30, N4 (the measure): kill -9 of optimize and of bench at random points, with an evaluator
# whose grandchildren sleep (one in its group, one that left it with setsid), leaves no process
# after 5 s, and loses no committed row: every resumed run ends with the tree of an uninterrupted
# run. KP_KILLS=N sessions killed per command (default 5); KP_SEED reproduces the kill points.
# Prints "optimize: K kills, L left" and "bench: ..." lines (bench/results figures come from here).
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/bench/lib.sh"
SPAWN="exec:sh $KP_ROOT/tests/integration/tree/spawning-eval.sh"
kills_wanted=${KP_KILLS:-5}
seed=${KP_SEED:-$(date +%s)}
echo "kill points from seed $seed (KP_SEED=$seed reproduces them)"
MARK="t3004-$$-$seed"

# The processes that carry this test's mark (kernelpro, its keepers, the evaluators and what they
# started: the mark is given to kernelpro alone, and KP_* passes to its children).
marked() {
	n=0
	for e in /proc/[0-9]*/environ; do
		grep -qa "KP_T3004_MARK=$MARK" "$e" 2>/dev/null && n=$((n + 1))
	done
	echo $n
}
cleanup() {
	for e in /proc/[0-9]*/environ; do
		if grep -qa "KP_T3004_MARK=$MARK" "$e" 2>/dev/null; then
			p=${e#/proc/}
			kill -9 "${p%/environ}" 2>/dev/null
		fi
	done
}
trap cleanup EXIT
run_kp() { KP_T3004_MARK="$MARK" "$KP" "$@"; }
# left_after_5s: how many marked processes remain 5 s after a kill (all of them count); lists them
left_after_5s() {
	sleep 5
	for e in /proc/[0-9]*/environ; do
		if grep -qa "KP_T3004_MARK=$MARK" "$e" 2>/dev/null; then
			p=${e#/proc/}
			p=${p%/environ}
			echo "  left: pid $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null) (ppid, pgid, state: $(awk '{print $4, $5, $3}' "/proc/$p/stat" 2>/dev/null))" >&2
		fi
	done
	marked
}
draw() { awk -v s="$seed" -v i="$1" -v lo="$2" -v hi="$3" 'BEGIN { srand(s + i); printf "%.2f", lo + rand() * (hi - lo) }'; }

# --- optimize ----------------------------------------------------------------------------------------
export KP_INNER_EVAL="$KP_ROOT/tests/integration/search/fake-harness.sh"
KP_FAKE_SLEEP=0 expect_exit 0 run_kp optimize "$TASK" --llm "replay:$S/replay" --evaluator "$SPAWN" --evals 9 --name whole
[ "$(marked)" -eq 0 ] || fail "an uninterrupted run left $(marked) processes"
"$KP" show whole --tree --json >whole.json || fail "show whole"
opt_kills=0 opt_left=0 last=0 done=0
for i in $(seq 1 $((kills_wanted * 3))); do
	[ $opt_kills -ge "$kills_wanted" ] && break
	if [ -d kernelpro-runs/cut ]; then args="--resume cut"; else args="$TASK --evals 9 --name cut"; fi
	# (a plain command, so that $! is kernelpro itself)
	KP_T3004_MARK="$MARK" KP_FAKE_SLEEP=0.3 "$KP" optimize $args --llm "replay:$S/replay" --evaluator "$SPAWN" \
		>"o$i.out" 2>"o$i.err" &
	pid=$!
	sleep "$(draw "$i" 0.2 1.6)"
	if kill -9 $pid 2>/dev/null; then
		wait $pid 2>/dev/null
		opt_kills=$((opt_kills + 1))
		left=$(left_after_5s)
		opt_left=$((opt_left + left))
		n=$("$KP" show cut --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["used"]["evaluations"])' 2>/dev/null || echo 0)
		echo "optimize kill $opt_kills: $left process(es) left after 5 s, $n evaluations committed"
		[ "$n" -ge "$last" ] || fail "committed evaluations went from $last to $n"
		last=$n
		cleanup
	else
		wait $pid && { done=1; break; }
		cat "o$i.err"; fail "optimize session $i ended badly"
	fi
done
[ $done -eq 1 ] || KP_FAKE_SLEEP=0 expect_exit 0 run_kp optimize --resume cut --llm "replay:$S/replay" --evaluator "$SPAWN"
"$KP" show cut --tree --json >cut.json || fail "show cut"
python3 - whole.json cut.json <<'PY' || fail "the killed and resumed run differs from the uninterrupted one"
import json, sys
key = lambda d: [(n["node"], n["parent"], n["kind"], n["outcome"], n["speedup"]) for n in json.load(open(d))["tree"]]
assert key(sys.argv[1]) == key(sys.argv[2]), "\n%s\n%s" % (key(sys.argv[1]), key(sys.argv[2]))
PY
echo "optimize: $opt_kills kills, $opt_left processes left after 5 s in all, 0 committed rows lost"

# --- bench -------------------------------------------------------------------------------------------
export KP_INNER_EVAL="$B/fake-gpu-eval.sh"
make_tasks tasks 3 11 7 1 12 5
sbench() { run_kp bench --suites-dir suites --evaluator "$SPAWN" --llm "replay:$S/replay" "$@"; }
trees() {
	for r in suites/$1/runs/*; do
		printf '%s ' "$(basename "$r")"
		"$KP" show "$r" --tree --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["used"]["evaluations"], [(n["node"], n["parent"], n["kind"], n["outcome"], n["speedup"]) for n in d["tree"]])'
	done >"$2"
}
KP_FAKE_SLEEP=0 expect_exit 0 sbench tasks --gpus 0,1 --evals 4 --name whole
[ "$(marked)" -eq 0 ] || fail "an uninterrupted bench left $(marked) processes"
trees whole whole.trees
b_kills=0 b_left=0 done=0
for i in $(seq 1 $((kills_wanted * 3))); do
	[ $b_kills -ge "$kills_wanted" ] && break
	if [ -d suites/cut ]; then args="suites/cut --resume --gpus 0,1"; else args="tasks --gpus 0,1 --evals 4 --name cut"; fi
	KP_T3004_MARK="$MARK" KP_FAKE_SLEEP=0.2 "$KP" bench --suites-dir suites --evaluator "$SPAWN" \
		--llm "replay:$S/replay" $args >"b$i.out" 2>"b$i.err" &
	pid=$!
	sleep "$(draw "$((i + 100))" 0.2 1.4)"
	if kill -9 $pid 2>/dev/null; then
		wait $pid 2>/dev/null
		b_kills=$((b_kills + 1))
		left=$(left_after_5s)
		b_left=$((b_left + left))
		echo "bench kill $b_kills: $left process(es) left after 5 s"
		cleanup
	else
		wait $pid && { done=1; break; }
		cat "b$i.err"; fail "bench session $i ended badly"
	fi
done
[ $done -eq 1 ] || KP_FAKE_SLEEP=0 expect_exit 0 sbench suites/cut --resume --gpus 0,1
trees cut cut.trees
diff whole.trees cut.trees || fail "the killed and resumed suite's runs differ from the uninterrupted one's"
echo "bench: $b_kills kills, $b_left processes left after 5 s in all, 0 committed rows lost"
[ $opt_kills -ge 2 ] && [ $b_kills -ge 2 ] || fail "too few kills landed ($opt_kills, $b_kills)"
[ $opt_left -eq 0 ] || fail "kill -9 of optimize left $opt_left processes"
[ $b_left -eq 0 ] || fail "kill -9 of bench left $b_left processes"
exit 0

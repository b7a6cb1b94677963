# kill -9 while optimize creates its run (issue 21): whatever the moment, the name holds a whole run
# (--resume continues it) or nothing (a new run of that name starts); 'runs' lists no broken run, and
# what a killed creation left is hidden and swept by the next one.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/search/lib.sh"

i=0
whole=0
fresh=0
for ms in 0 3 6 9 12 15 18 21 24 27 30 35 40 45 50 60 70 80 100 120 150 200; do
	i=$((i + 1))
	name=k$i
	"$KP" optimize "$TASK" --llm "replay:$S/replay" --evaluator "$FAKE" --evals 1 --codesearch off \
		--name "$name" >o.out 2>o.err &
	pid=$!
	sleep "$(awk -v m="$ms" 'BEGIN { printf "%.3f", m / 1000 }')"
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	if [ -e "kernelpro-runs/$name" ]; then
		whole=$((whole + 1))
		"$KP" optimize --resume "$name" --llm "replay:$S/replay" --evaluator "$FAKE" --codesearch off \
			>r.out 2>r.err || fail "$name (killed after ${ms} ms) does not resume: $(cat r.err)"
	else
		fresh=$((fresh + 1))
		optimize --evals 1 --codesearch off --name "$name" >r.out 2>r.err ||
			fail "$name (killed after ${ms} ms): a new run of that name failed: $(cat r.err)"
	fi
	[ "$("$KP" show "$name" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])')" = finished ] ||
		fail "$name did not finish"
done
echo "killed $i times: $whole left a run, $fresh left none"
expect_exit 0 "$KP" runs
lacks out "unreadable"
[ "$(grep -c '^k[0-9]' out)" -eq $i ] || fail "runs lists $(grep -c '^k[0-9]' out) of $i runs"
ls -A kernelpro-runs >ls.out
lacks ls.out ".kp-new-"
exit 0

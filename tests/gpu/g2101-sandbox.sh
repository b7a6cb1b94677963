#!/bin/sh
# The evaluation sandbox on a real GPU (issue 21): candidates that start a process (os.system reached
# through getattr, libc's system through ctypes, a fast-path or native library's constructor, system()
# in kp_run) are refused as process_spawn and nothing they asked for ran; honest candidates stay
# correct on both harnesses with the sandbox in force (CUDA works inside it: limits, network namespace,
# filter), and their verdicts say what was enforced; the network namespace leaves no route out; a
# broken reference is a harness error, not the candidate's; --vs-compile still compiles the reference;
# a prepared run works under ncu, and the compute-sanitizer rerun under the filter.
. "$KP_ROOT/tests/integration/lib.sh"
KERNELPRO_HOME=${KERNELPRO_HOME:-$KP_ROOT}
export KERNELPRO_HOME
cache="$KP_TMP/cache"
. "$KP_ROOT/tests/gpu/corpus.sh"
adv="$KP_ROOT/tests/adversarial"

# sandbox_ok JSON KIND: the verdict's sandbox object shows every part in force.
sandbox_ok() {
	python3 - "$1" "$2" <<'PY' || { echo "    $1: sandbox object"; bad=$((bad + 1)); }
import json, sys
v = json.load(open(sys.argv[1]))
sb = v["sandbox"]
print("    sandbox: network %s, processes %s (%s), limits %s, ignored %s" % (
    sb["network"], sb["processes"].get("blocked"), sb["processes"].get("since") or sb["processes"].get("why"),
    sb["limits"], sb.get("ignored")))
assert sb["applied"] is True, sb
assert sb["network"]["isolated"] is True, sb["network"]
assert sb["processes"]["blocked"] is True and sb["processes"]["threads"] == "every thread", sb["processes"]
assert sb["limits"] and sb["limits"]["cpu_s"] > 0 and sb["limits"]["data_bytes"] > 0, sb["limits"]
if sys.argv[2] == "kb":
    assert sb["python"]["audit_hook"] is True, sb["python"]
    assert sb["attempts"] == {"before_candidate": 0, "candidate": 0, "reference_compile": 0}, sb["attempts"]
assert sb["refused"] == {}, sb["refused"]
PY
}

# 1. Honest candidates, both harnesses: correct, with everything in force.
one "$KP_ROOT/examples/kernelbench/swish_scale_fast.py" examples/kernelbench/swish_scale.py "" correct kb_honest
sandbox_ok kb_honest.json kb
one "$KP_ROOT/examples/native/row_sum/candidates/warp_shuffle.cu" examples/native/row_sum "" correct nat_honest
sandbox_ok nat_honest.json native
# The network seen from inside the child: no route to the internet (ENETUNREACH, 101).
rm -f "$KP_TMP/kp-net-probe"
one "$adv/native/nat_net_probe.cu" examples/native/row_sum "" correct nat_net_probe
probe=$(cat "$KP_TMP/kp-net-probe" 2>/dev/null)
echo "    connect() from inside the native harness: ${probe:-no answer}"
[ "$probe" = 101 ] || { echo "    expected 101 (ENETUNREACH)"; bad=$((bad + 1)); }

# 2. Every way to start a process: refused, and the command never ran.
for c in kb_spawn_getattr.py kb_spawn_ctypes.py kb_spawn_ctor.py; do
	one "$adv/kernelbench/$c" examples/kernelbench/swish_scale.py "" "cheat_suspected process_spawn" "$c"
done
for c in nat_spawn_ctor.cu nat_spawn_fork.cu; do
	one "$adv/native/$c" examples/native/row_sum "" "cheat_suspected process_spawn" "$c"
done
one "$adv/native/nat_spawn_system.cu" examples/native/row_sum "--allow threads" "cheat_suspected process_spawn" \
	nat_spawn_system.cu
for m in "$KP_TMP"/kp-pwned-*; do
	[ -e "$m" ] || continue
	echo "    a refused candidate's command ran: $m"
	bad=$((bad + 1))
done
# After a refusal the next evaluation is clean.
one "$KP_ROOT/examples/native/row_sum/candidates/warp_shuffle.cu" examples/native/row_sum "" correct nat_after

# 3. A broken reference is the task's error (exit 3), not the candidate's runtime_error.
n=$((n + 1))
"$KP" eval --json --cache "$cache" "$adv/tasks/broken_reference.py" "$KP_ROOT/examples/kernelbench/swish_scale_fast.py" \
	>broken.json 2>broken.err
rc=$?
printf '%-44s exit %s\n' broken_reference "$rc"
if [ "$rc" -ne 3 ] || ! grep -q "the task's reference fails on its first inputs" broken.err; then
	echo "    expected exit 3 and the reference named:"; cat broken.json broken.err; bad=$((bad + 1))
fi

# 4. --vs-compile: the reference is compiled before the filter is on every thread; still measured.
one "$KP_ROOT/examples/kernelbench/swish_scale_fast.py" examples/kernelbench/swish_scale.py "--vs-compile" correct \
	kb_vs_compile
python3 - kb_vs_compile.json <<'PY' || { echo "    kb_vs_compile: no speedup_compile"; bad=$((bad + 1)); }
import json, sys
v = json.load(open(sys.argv[1]))
print("    speedup_compile %s, attempts %s" % (v["speedup_compile"], v["sandbox"]["attempts"]))
assert v["speedup_compile"] and v["speedup_compile"] > 0
PY

# 5. Prepared runs under ncu, both harnesses (no network namespace there: ncu talks to its target over
# localhost; the filter is on).
if command -v ncu >/dev/null 2>&1; then
	for c in "examples/native/row_sum examples/native/row_sum/candidates/warp_shuffle.cu" \
		"examples/kernelbench/swish_scale.py examples/kernelbench/swish_scale_fast.py"; do
		n=$((n + 1))
		set -- $c
		ncu --clock-control none --target-processes all --nvtx --nvtx-include "kp_candidate/" \
			--metrics gpu__time_duration.sum "$KP" eval --json --cache "$cache" --profile-run 2 \
			"$KP_ROOT/$1" "$KP_ROOT/$2" >ncu.out 2>ncu.err
		rc=$?
		printf '%-44s exit %s, %s kernel records\n' "ncu $(basename "$2")" "$rc" "$(grep -c gpu__time_duration ncu.out)"
		if [ "$rc" -ne 0 ] || ! grep -q gpu__time_duration ncu.out; then
			echo "    ncu on a prepared run failed:"; tail -30 ncu.out; tail -30 ncu.err; bad=$((bad + 1))
		fi
	done
else
	echo "ncu not found: prepared runs under ncu not checked"
fi

# 6. compute-sanitizer reruns an illegal address under the filter and still reports the kernel.
one "$adv/native/nat_illegal_address.cu" examples/native/row_sum "" runtime_error nat_illegal_address
grep -q "compute-sanitizer" nat_illegal_address.json || { echo "    no compute-sanitizer report"; bad=$((bad + 1)); }

# 7. Switched off, the verdict says so.
n=$((n + 1))
KERNELPRO_SANDBOX=off "$KP" eval --json --cache "$cache" "$KP_ROOT/examples/native/row_sum" \
	"$KP_ROOT/examples/native/row_sum/candidates/warp_shuffle.cu" >off.json 2>off.err
python3 - off.json <<'PY' || { echo "    KERNELPRO_SANDBOX=off"; cat off.json; bad=$((bad + 1)); }
import json, sys
v = json.load(open(sys.argv[1]))
print("%-44s %-16s applied %s" % ("KERNELPRO_SANDBOX=off", v["status"], v["sandbox"]["applied"]))
assert v["status"] == "correct" and v["sandbox"]["applied"] is False and v["sandbox"]["switched_off"] == "off"
PY

echo "$n cases, $bad wrong"
[ "$bad" -eq 0 ]

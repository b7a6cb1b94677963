#!/bin/sh
# Runs tests/integration/t*.sh against the built binary, each in its own temp dir with a time limit,
# KP_JOBS at a time (default: the number of CPUs, at most 4). Each test has its own directory and its
# own warm-worker directory, and the LLM tests' servers take free ports; the Slurm tests (t15*), which
# start a private cluster each, run one after another in one lane. The longest tests start first, so
# the lanes end together. Results are printed as tests end; the summary counts them all.
#   tests/run-integration.sh BUILD                 every test
#   tests/run-integration.sh --one BUILD RES T...  (internal) the tests T, one after another, results under RES
set -u
root=$(pwd)

one() { # BUILD RESDIR TEST...
	build=$1 res=$2
	shift 2
	KP="$root/$build/bin/kernelpro"
	export KP KP_ROOT="$root" KP_BUILD="$root/$build"
	for t in "$@"; do
		name=$(basename "$t" .sh)
		tmp=$(mktemp -d "${TMPDIR:-/tmp}/kp-it-XXXXXX")
		workers=$(mktemp -d "${TMPDIR:-/tmp}/kp-it-w-XXXXXX") # mktemp -d: mode 700, as workers need
		log="$root/$build/tests/$name.log"
		t0=$(date +%s)
		# A test that sets KERNELPRO_WORKER_DIR itself keeps its own; no test shares another's worker.
		(cd "$tmp" && KP_TMP="$tmp" KERNELPRO_WORKER_DIR="$workers" timeout 600 sh "$root/$t") >"$log" 2>&1
		rc=$?
		secs=$(($(date +%s) - t0))
		if [ $rc -eq 0 ]; then
			echo pass >"$res/$name"
			printf '  ok    %s (%ss)\n' "$name" "$secs"
		elif [ $rc -eq 77 ]; then
			echo skip >"$res/$name"
			printf '  skip  %s: %s\n' "$name" "$(tail -1 "$log")"
		else
			echo fail >"$res/$name"
			{
				printf '  FAIL  %s (log: %s)\n' "$name" "$log"
				tail -30 "$log" | sed 's/^/        /'
			} | cat # one write per failure: lanes do not interleave its lines
		fi
		rm -rf "$tmp" "$workers"
	done
}

if [ "${1:-}" = "--one" ]; then
	shift
	one "$@"
	exit 0
fi

build=$1
mkdir -p "$root/$build/tests"
jobs=${KP_JOBS:-$(nproc 2>/dev/null || echo 2)}
[ "$jobs" -gt 4 ] && [ -z "${KP_JOBS:-}" ] && jobs=4
[ "$jobs" -ge 1 ] || jobs=1
res=$(mktemp -d "${TMPDIR:-/tmp}/kp-it-res-XXXXXX")
trap 'rm -rf "$res"' EXIT
# The lanes' work, longest first (seconds on this project's 2-core machine, 2026-12-02, plain and
# sanitized): the Slurm tests as one item (~115 / 130 s), then the long ones, then the rest by name.
first="t0706 t3004 t1405 t1407 t0309 t1403 t1802 t1801 t0704 t0503 t1408"
{
	slurm=$(echo tests/integration/t15*.sh)
	[ -e "${slurm%% *}" ] && echo "$slurm"
	for p in $first; do ls tests/integration/$p-*.sh 2>/dev/null; done
	for t in tests/integration/t*.sh; do
		n=$(basename "$t")
		case " $first " in *" ${n%%-*} "*) continue ;; esac
		case $n in t15*) continue ;; esac
		echo "$t"
	done
} | xargs -P "$jobs" -L 1 sh "$root/tests/run-integration.sh" --one "$build" "$res"
pass=$(grep -lx pass "$res"/* 2>/dev/null | wc -l)
fail=$(grep -lx fail "$res"/* 2>/dev/null | wc -l)
skip=$(grep -lx skip "$res"/* 2>/dev/null | wc -l)
ran=$(ls "$res" | wc -l)
total=$(ls tests/integration/t*.sh | wc -l)
[ "$ran" -eq "$total" ] || { echo "integration: only $ran of $total tests reported a result"; fail=$((fail + 1)); }
echo "integration: $pass passed, $fail failed, $skip skipped ($jobs at a time)"
[ "$fail" -eq 0 ]

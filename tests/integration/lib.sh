# Sourced by integration and GPU tests: helpers over the built binary ($KP) and the repo root ($KP_ROOT).
set -u

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }
# For a test that runs none of our C (Python's unit tests, the Slurm fixture itself): the sanitizer pass
# (make check, KP_SANITIZED=1) has nothing more to find in it, so it runs once, in the plain pass.
plain_pass_only() { [ -z "${KP_SANITIZED:-}" ] || skip "runs none of our C: tested in the plain pass only"; }

# expect_exit CODE CMD...: runs CMD, captures stdout/stderr into ./out ./err, checks the exit code.
expect_exit() {
	# (names of its own: a caller's $want or $got must survive the call)
	_ee_want=$1; shift
	"$@" >out 2>err
	_ee_got=$?
	if [ "$_ee_got" -ne "$_ee_want" ]; then
		echo "--- stdout"; cat out; echo "--- stderr"; cat err
		fail "'$*' exited $_ee_got, expected $_ee_want"
	fi
}

# contains FILE TEXT: FILE has the fixed string TEXT.
contains() { grep -qF -- "$2" "$1" || { echo "--- $1"; cat "$1"; fail "'$1' lacks '$2'"; }; }
lacks() { ! grep -qF -- "$2" "$1" || { echo "--- $1"; cat "$1"; fail "'$1' has '$2'"; }; }

# closed_stdout CMD...: runs CMD with stdout a pipe whose reader has already gone (what `| head -1`
# leaves once head exits), stderr into ./err; returns CMD's exit status.
closed_stdout() {
	python3 -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
sys.exit(subprocess.run(sys.argv[1:], stdout=w).returncode)' "$@" 2>err
}

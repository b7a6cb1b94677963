# The command line: version, help, usage errors with exit 2 and one line saying what was wrong.
. "$KP_ROOT/tests/integration/lib.sh"

expect_exit 0 "$KP" --version
contains out "kernelpro "

expect_exit 0 "$KP" --help
contains out "doctor"
contains out "exit codes"
contains out "examples:"

expect_exit 2 "$KP" frobnicate
contains err "unknown command 'frobnicate'"
contains err "usage: kernelpro"
[ "$(wc -l <err)" -eq 2 ] || fail "usage error should be one line plus the usage line"

# A typo is answered with the name meant, on the same line: commands, sub-commands, options.
expect_exit 2 "$KP" optimze
contains err "unknown command 'optimze'; did you mean 'optimize'?"
[ "$(wc -l <err)" -eq 2 ] || fail "a suggestion stays on the error's line"
expect_exit 2 "$KP" optimize --eval 3
contains err "unknown option '--eval'; did you mean '--evals'?"
expect_exit 2 "$KP" hw calbrate
contains err "unknown command 'calbrate'; did you mean 'calibrate'?"
expect_exit 2 "$KP" help optimze
contains err "did you mean 'optimize'?"
expect_exit 2 "$KP" --verbos version
contains err "did you mean '--verbose'?"
expect_exit 2 "$KP" --bench
contains err "did you mean the command 'bench'?"

expect_exit 2 "$KP" doctor --frobnicate
contains err "unknown option '--frobnicate'"
contains err "usage: kernelpro doctor"

expect_exit 2 "$KP" doctor extra-arg
contains err "unexpected argument 'extra-arg'"

expect_exit 2 "$KP" --color=sometimes doctor
expect_exit 2 "$KP"
contains err "no command given"

expect_exit 0 "$KP" doctor --help
contains out "--json"
contains out "--no-counters"
contains out "--verbose"

expect_exit 0 "$KP" help doctor
contains out "usage: kernelpro doctor"

expect_exit 0 "$KP" version --json
contains out '"version"'

# A reader that stopped reading (`| head -1`) is no failure: no message, the command's own status.
closed_stdout "$KP" tools list || fail "tools list to a closed pipe exited $?"
[ ! -s err ] || fail "tools list to a closed pipe said: $(cat err)"
closed_stdout "$KP" --help || fail "--help to a closed pipe exited $?"
# Any other write error is one: reported, exit 1.
if [ -w /dev/full ]; then
	"$KP" tools list >/dev/full 2>err
	[ $? -eq 1 ] || fail "a full disk is a failure, exit 1"
	contains err "cannot write output"
fi

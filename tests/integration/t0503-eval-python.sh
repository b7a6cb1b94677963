#!/bin/sh
# The Python side's pure parts (build cache keys shared with C, statistics, excerpts, the result
# channel, the adapter's protocol without torch), with the python3 on this machine.
. "$KP_ROOT/tests/integration/lib.sh"
plain_pass_only
command -v python3 >/dev/null || skip "no python3"
cd "$KP_ROOT" && python3 -B -m unittest discover -s tests/python -p 'test_*.py' -v 2>&1 || fail "python unit tests"

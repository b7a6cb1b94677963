#!/bin/sh
# An exec evaluator that starts grandchildren before it answers (issue 30, N4): one sleeping in its
# process group, one that leaves the group (setsid), both far longer than any test (their output
# goes nowhere, so a survivor holds no test's pipe). Then it becomes the evaluator named by
# $KP_INNER_EVAL (a script taking the same arguments).
sleep 1000 </dev/null >/dev/null 2>&1 &
command -v setsid >/dev/null && setsid sleep 1000 </dev/null >/dev/null 2>&1 &
exec sh "${KP_INNER_EVAL:?}" "$@"

#!/bin/sh
# An exec evaluator that starts grandchildren before it answers (issue 30, N4): one sleeping in its
# process group, one that leaves the group (setsid), both far longer than any test. Then it becomes
# the evaluator named by $KP_INNER_EVAL (a script taking the same arguments).
sleep 1000 &
command -v setsid >/dev/null && setsid sleep 1000 &
exec sh "${KP_INNER_EVAL:?}" "$@"

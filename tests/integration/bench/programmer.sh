#!/bin/sh
# An exec programmer for the bench tests (--llm "exec:sh programmer.sh"): it answers each prompt
# with one of the recorded replies in tests/integration/search/replay, picked by the prompt's hash
# (KERNELPRO_PROMPT_HASH), so a prompt always gets the same reply: a task killed mid-request and
# resumed asks again and gets what it would have got, on any host, in any suite directory.
# With KP_PROG_HOLD=DIR and a file DIR/hold-TASK, the first request of the task whose reference says
# "// fake-task: TASK" makes DIR/held-TASK and waits (up to 2 minutes) for DIR/go-TASK: the tests
# act on a task that is known to be under way.
replies=$(cd "$(dirname "$0")/../search/replay" && pwd)
prompt=$(cat)
task=$(printf '%s\n' "$prompt" | sed -n 's|.*fake-task: *\([A-Za-z0-9_-]*\).*|\1|p' | head -1)
hold=${KP_PROG_HOLD:-}
if [ -n "$hold" ] && [ -n "$task" ] && [ -e "$hold/hold-$task" ] && mkdir "$hold/held-$task" 2>/dev/null; then
	i=0
	while [ ! -e "$hold/go-$task" ]; do
		sleep 0.1
		i=$((i + 1))
		[ $i -lt 1200 ] || { echo "programmer: no go-$task after 2 minutes" >&2; exit 1; }
	done
fi
n=$(ls "$replies"/*.md | wc -l)
h=$(printf '%s' "${KERNELPRO_PROMPT_HASH:?the exec backend sets it}" | cut -c1-6)
cat "$(ls "$replies"/*.md | sed -n "$((0x$h % n + 1))p")"

#!/bin/sh
# An exec evaluator that does what model-written code could (issue 30, N1/N2): it reads the
# environment of its parent and grandparent from /proc (the keeper and kernelpro itself) and, when
# it finds the key, says so in its verdict, the key quoted. It prints a correct verdict either way.
# $KP_PROC_LOG (a file outside the run) gets one line per ancestor read: "PID found|clean|unreadable".
key=$(cat "${KP_PROBE_FILE:?}") # a file: the key in our own environment would be found in kernelpro's
found=""
pid=$PPID
for level in 1 2; do
	if [ -r "/proc/$pid/environ" ] && tr '\0' '\n' <"/proc/$pid/environ" >/dev/null 2>&1; then
		if tr '\0' '\n' <"/proc/$pid/environ" | grep -qF -- "$key"; then
			echo "$pid found" >>"$KP_PROC_LOG"
			found=$key
		else
			echo "$pid clean" >>"$KP_PROC_LOG"
		fi
	else
		echo "$pid unreadable" >>"$KP_PROC_LOG"
	fi
	pid=$(awk '{print $4}' "/proc/$pid/stat" 2>/dev/null)
	[ -n "$pid" ] || break
done
if [ "$KP_EVAL_ROLE" = reference ]; then
	printf '{"status":"correct","runtime":{"median_ms":2.0},"ref_runtime":{"median_ms":2.0},"speedup":1.0}\n'
	exit 0
fi
printf '{"status":"correct","speedup":2.0,"runtime":{"median_ms":1.0},"ref_runtime":{"median_ms":2.0},'
printf '"feedback":"read from /proc: %s"}\n' "${found:-nothing}"

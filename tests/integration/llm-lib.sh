# Sourced by the LLM integration tests: starts tests/llm_server.py on a free port and stops it on exit.
# start_llm_server KEY [REPLY_FILE] sets LLM_PORT and LLM_LOG.
start_llm_server() {
	command -v python3 >/dev/null || skip "python3 is needed for the loopback LLM server"
	LLM_LOG=$PWD/server.jsonl
	rm -f port
	if [ -n "${2:-}" ]; then
		python3 "$KP_ROOT/tests/llm_server.py" --port-file port --key "$1" --log "$LLM_LOG" --reply-file "$2" &
	else
		python3 "$KP_ROOT/tests/llm_server.py" --port-file port --key "$1" --log "$LLM_LOG" &
	fi
	LLM_PID=$!
	trap 'kill $LLM_PID 2>/dev/null; wait $LLM_PID 2>/dev/null' EXIT
	i=0
	while [ ! -s port ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	[ -s port ] || fail "loopback LLM server did not start"
	LLM_PORT=$(cat port)
	# The server's own files (its port and request log) are not the run's: keep them out of the scans.
	mkdir -p srv && mv port srv/ 2>/dev/null
}

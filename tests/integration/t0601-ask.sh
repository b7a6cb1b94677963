# kernelpro ask: usage errors, a real request through each provider's wire format, replay, --json, rejections.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/llm-lib.sh"
# The prompts of this tree, whichever build directory the binary is in.
export KERNELPRO_HOME="$KP_ROOT"
V="$KP_ROOT/tests/golden/prompts/vec_add"
KEY=sk-test-ask-0011223344556677KEY
start_llm_server "$KEY"
export OPENAI_API_KEY="$KEY" ANTHROPIC_API_KEY="$KEY"
unset KERNELPRO_LLM KERNELPRO_LLM_CONFIG OPENAI_BASE_URL ANTHROPIC_BASE_URL
export XDG_CONFIG_HOME="$PWD/xdg"

# What is missing is said, with exit 2.
expect_exit 2 "$KP" ask --mode optimize --reference "$V/reference.cu"
contains err "--mode optimize needs --parent FILE"
expect_exit 2 "$KP" ask --mode initial --reference "$V/reference.cu"
contains err "no LLM chosen"
expect_exit 2 "$KP" ask --mode initial
contains err "--task-text FILE and/or --reference FILE"
expect_exit 1 "$KP" ask --mode initial --reference /nonexistent.cu --dry-run
contains err "--reference: "
# --task and --gpu: what is wrong with them is named.
expect_exit 1 "$KP" ask --task "$KP_ROOT/no/such/task" --dry-run
contains err "--task: "
expect_exit 1 "$KP" ask --task "$V/reference.cu" --dry-run
contains err "--task: "
expect_exit 2 "$KP" ask --task "$V" --gpu no-such-gpu --dry-run
contains err "option '--gpu-model': unknown GPU"
contains err "no-such-gpu"
expect_exit 2 "$KP" ask --task "$V" --gpu-model h200-sxm --hardware "$V/hardware.txt" --dry-run
contains err "give the GPU once: --gpu-model KEY or --hardware FILE"
expect_exit 2 "$KP" ask --mode optimize --task "$V"
contains err "--mode optimize needs --parent FILE"
# A task alone is enough: the model gets its reference and the format follows from it.
cat >task-model.sh <<'SH'
#!/bin/sh
in=$(cat)
printf '%s' "$in" | grep -q "input a: f32 \[67108864\]" || exit 9
printf '%s' "$in" | grep -q "__global__ void vec_add" || exit 9
printf '%s' "$in" | grep -q "NVIDIA H200 SXM 141GB (datasheet): 132 SMs" || exit 9
printf '```cuda\nKP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t s) { return 0; }\n```\n'
SH
chmod +x task-model.sh
XDG_CACHE_HOME="$PWD/cache" expect_exit 0 "$KP" ask --task "$V" --gpu-model h200-sxm --llm "exec:$PWD/task-model.sh"
contains out "kp_run"

# A missing key names its variable; nothing is sent.
OPENAI_API_KEY= expect_exit 1 "$KP" ask --reference "$V/reference.cu" --llm openai:gpt-4o
contains err "OPENAI_API_KEY is not set"

# OpenAI wire format: the code alone on stdout, usage on stderr.
OPENAI_BASE_URL="http://127.0.0.1:$LLM_PORT/s=ok/v1" expect_exit 0 "$KP" ask --reference "$V/reference.cu" \
	--llm openai:gpt-4o --temperature 0.2
contains out "KP_EXPORT int kp_run"
lacks out "Here is a faster version"
contains err "openai gpt-4o:"
contains err "1 attempt"

# Anthropic wire format, through a 429 with Retry-After, code written to a file.
ANTHROPIC_BASE_URL="http://127.0.0.1:$LLM_PORT/s=e429,n=1,ra=1,id=a1" expect_exit 0 "$KP" ask \
	--reference "$V/reference.cu" --llm anthropic:claude-sonnet-4-5 --out cand.cu
contains cand.cu "scale_kernel"
contains err "2 attempts"

# --json, and a config file choosing the provider and a price.
cat >llm.json <<JSON
{"llm": "openai:my-local-model", "base_url": "http://127.0.0.1:$LLM_PORT/s=ok/v1",
 "price": {"input": 1.0, "output": 2.0}, "retries": 1}
JSON
expect_exit 0 "$KP" ask --reference "$V/reference.cu" --llm-config llm.json --json
contains out '"rejected": false'
contains out '"provider": "openai"'
contains out '"cost_usd": 0.0'

# Record, then replay the same exchange offline.
OPENAI_BASE_URL="http://127.0.0.1:$LLM_PORT/s=ok/v1" expect_exit 0 "$KP" ask --reference "$V/reference.cu" \
	--llm openai:gpt-4o --record rec
[ -f rec/000001.json ] || fail "no recording written"
cp out recorded.out
expect_exit 0 "$KP" ask --reference "$V/reference.cu" --llm "replay-hash:rec"
cmp -s out recorded.out || fail "replayed code differs from the recorded one"
expect_exit 1 "$KP" ask --reference "$V/task.txt" --llm "replay-hash:rec"
contains err "no unused reply"

# A reply without code: exit 1 with the reason, the reply on request.
mkdir -p replies && printf 'I would use float4 loads.\n' >replies/01.md
expect_exit 1 "$KP" ask --reference "$V/reference.cu" --llm replay:replies --show-reply
contains err "the reply held no usable code: the reply has no code block"
contains err "I would use float4 loads."

# Server-side refusals are not retried and say what the server said.
OPENAI_BASE_URL="http://127.0.0.1:$LLM_PORT/s=e400/v1" expect_exit 1 "$KP" ask --reference "$V/reference.cu" \
	--llm openai:gpt-4o
contains err "maximum context length"

# exec: any command as the model, prompt on stdin.
cat >model.sh <<'SH'
#!/bin/sh
grep -q "Reference implementation" || exit 9
printf '```cuda\nKP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t s) { return 0; }\n```\n'
SH
chmod +x model.sh
expect_exit 0 "$KP" ask --reference "$V/reference.cu" --llm "exec:$PWD/model.sh"
contains out "kp_run"
exit 0

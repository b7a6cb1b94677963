# The golden prompt cases: one `kernelpro ask --dry-run` command line each. Sourced by
# tests/integration/t0602-ask-golden.sh (compare) and regen.sh (rewrite). $KP is the binary, $G this folder.
CASES="initial-cuda debug-cuda-compile optimize-cuda initial-torch debug-torch-wrong optimize-cuda-small
	initial-task-gpu optimize-task-gpu initial-task-torch optimize-task-torch optimize-task-triton"

run_case() {
	V="$G/vec_add"; S="$G/softmax"
	# --gpu KEY reads measured ceilings from the cache when `hw calibrate` stored some: keep to the datasheet.
	XDG_CACHE_HOME="$G/no-such-cache"; export XDG_CACHE_HOME
	case "$1" in
	initial-cuda)
		"$KP" ask --dry-run --mode initial --task-name vec_add --task-text "$V/task.txt" \
			--reference "$V/reference.cu" --stage1 "$V/stage1.txt" --hardware "$V/hardware.txt" \
			--reference-ms 0.233 ;;
	debug-cuda-compile)
		"$KP" ask --dry-run --mode debug --task-name vec_add --task-text "$V/task.txt" \
			--parent "$V/broken.cu" --compile-log "$V/compile.log" --memory "$V/memory.txt" ;;
	optimize-cuda)
		"$KP" ask --dry-run --mode optimize --task-name vec_add --task-text "$V/task.txt" \
			--reference "$V/reference.cu" --parent "$V/reference.cu" --stage1 "$V/stage1.txt" \
			--hardware "$V/hardware.txt" --feedback "$V/feedback.txt" --memory "$V/memory.txt" \
			--codesearch "$V/codesearch.txt" --reference-ms 0.233 --parent-ms 0.233 --best-ms 0.231 ;;
	initial-torch)
		"$KP" ask --dry-run --mode initial --task-name softmax --task-text "$S/task.txt" \
			--reference "$S/reference.py" --instructions "Keep one kernel launch per call." ;;
	debug-torch-wrong)
		"$KP" ask --dry-run --mode debug --task-name softmax --task-text "$S/task.txt" \
			--reference "$S/reference.py" --parent "$S/candidate.py" --failure wrong_output \
			--max-abs-err 0.00093 --max-rel-err 0.61 --atol 1e-4 --rtol 1e-4 \
			--mismatched 48211 --total 67108864 \
			--where "output 0 at [17, 5120]: got 0.0000391, expected 0.0000610" ;;
	optimize-cuda-small)
		# The same inputs as optimize-cuda squeezed into 7,000 characters: the order in which parts give way.
		"$KP" ask --dry-run --mode optimize --task-name vec_add --task-text "$V/task.txt" \
			--reference "$V/reference.cu" --parent "$V/reference.cu" --stage1 "$V/stage1.txt" \
			--hardware "$V/hardware.txt" --feedback "$V/feedback.txt" --memory "$V/memory.txt" \
			--codesearch "$V/codesearch.txt" --reference-ms 0.233 --parent-ms 0.233 --best-ms 0.231 \
			--max-prompt-chars 7000 ;;
	initial-task-gpu)
		# The task and GPU loaded as optimize does: task.json's description, tensors and tolerance,
		# reference.cu, the cuda format, and the H200 SXM's datasheet line.
		"$KP" ask --dry-run --mode initial --task "$V" --gpu-model h200-sxm --stage1 "$V/stage1.txt" \
			--reference-ms 0.233 ;;
	optimize-task-gpu)
		# --task with file options too: each file replaces its part (here the task text and the name).
		"$KP" ask --dry-run --mode optimize --task "$V/task.json" --gpu-model h200-sxm --task-name vec_add_f32 \
			--task-text "$V/task.txt" --parent "$V/reference.cu" --feedback "$V/feedback.txt" \
			--reference-ms 0.233 --parent-ms 0.233 ;;
	initial-task-torch)
		# A KernelBench .py: the python format follows from the task, the description from Model's docstring.
		"$KP" ask --dry-run --mode initial --task "$S/reference.py" --gpu-model h200-sxm ;;
	optimize-task-torch)
		# The torch format's optimize prompt: its knob section is the KP_TUNE dict's (prompts/knobs-torch.txt).
		"$KP" ask --dry-run --mode optimize --task "$S/reference.py" --gpu-model h200-sxm --parent "$S/candidate.py" \
			--reference-ms 0.312 --parent-ms 0.205 ;;
	optimize-task-triton)
		# The Triton format's optimize prompt: its format section, and its knob section (prompts/knobs-triton.txt).
		"$KP" ask --dry-run --mode optimize --task "$S/reference.py" --format triton --gpu-model h200-sxm \
			--parent "$S/candidate_triton.py" --reference-ms 0.312 --parent-ms 0.141 ;;
	*) echo "unknown case $1" >&2; return 2 ;;
	esac
}

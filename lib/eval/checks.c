/* The anti-cheat check table: stable ids, severities and the explanations --explain-checks prints. */
#include "base/setup.h"

#include "kernelpro/eval.h"

#define S KP_CHECK_STATIC
#define D KP_CHECK_DYNAMIC
#define W KP_SEV_WARN
#define R KP_SEV_REFUSE
#define F KP_SEV_FAIL
#define KB KP_APPLIES_KERNELBENCH
#define NA KP_APPLIES_NATIVE
#define BOTH KP_APPLIES_BOTH

static const struct kp_check_info checks[] = {
	/* --- static: read the candidate before anything is built -------------------------------- */
	{"torch_fallback", S, R, KB, "the candidate calls every PyTorch compute op of the reference",
	 "Reads both sources with Python's parser (nothing runs) and collects the compute operations the "
	 "code reached from Model.forward and from ModelNew.forward calls (torch.matmul, F.relu, a called "
	 "nn.Conv2d module, x.softmax, the operators + - * / @ **, ... normalised to one name each; "
	 "modules built in __init__ but never called, an autograd Function's backward and shape arithmetic "
	 "do not count), plus torch::/at:: calls inside its C++ strings. When the candidate still calls "
	 "every one of them, each as often as the reference, nothing was replaced. Running Model's own "
	 "forward (inherited, super().forward, an instance called) is refused the same way. At run time "
	 "the first trial's kernels' record (runtime_evidence, KERNELPRO_EVIDENCE=kernels) refuses it too "
	 "when no kernel of the candidate's own launched and every ATen op of the reference ran as often. False alarm: a candidate that keeps "
	 "every op and adds its own kernel on top; --allow torch_fallback to accept it."},
	{"torch_ops", S, W, KB, "the candidate keeps some of the reference's PyTorch compute ops",
	 "Same analysis as torch_fallback, when only part of the reference's ops remain (a common, honest "
	 "strategy in fused level-2 tasks: keep the convolution, fuse the epilogue). Recorded so that "
	 "speedups are read knowing that library code still does part of the work."},
	{"no_kernel", S, R, KB, "the candidate defines no CUDA or Triton kernel",
	 "A KernelBench candidate must contain at least one __global__ function (in a load_inline or "
	 "fast-path source string) or @triton.jit kernel. Without one it can only be a PyTorch rewrite, "
	 "which is not what is being measured. At run time, when the first trial's kernels' record "
	 "(KERNELPRO_EVIDENCE=kernels) shows that none of its kernels launched and only PyTorch's did, it "
	 "is refused the same way (kernels defined as a decoy)."},
	{"host_compute", S, R, KB, "a Triton candidate computes with PyTorch around its kernels",
	 "In a Triton candidate (docs/triton.md) the Python around the launches, everything outside the "
	 "@triton.jit functions, may allocate (torch.empty, empty_like, zeros), reshape (view, reshape, "
	 "contiguous, permute, strides and sizes) and convert, nothing more: a PyTorch compute op there "
	 "(torch.matmul, F.softmax, x.sum(), torch.where, the @ operator, a call of an nn module such as "
	 "self.conv(x), torch.compile) does work the kernels were meant to do. Python arithmetic on "
	 "tensors (x * 2) cannot be seen statically. False alarm: an op on a tiny side value; switch it "
	 "off with --allow host_compute (and read the verdict knowing PyTorch does part of the work)."},
	{"library_call", S, W, BOTH, "the candidate calls a vendor library (cuBLAS, cuDNN, ATen)",
	 "cublas*, cudnn*, cufft* calls and at::/torch:: compute calls from C++. Allowed, but the speedup "
	 "then belongs partly to the library; the flag keeps that visible."},
	{"try_fallback", S, R, KB, "try/except in the candidate",
	 "A try/except lets a candidate fall back to PyTorch when its kernel fails to build or run, so it "
	 "passes without a working kernel (KernelBench's static checker refuses it for the same reason)."},
	{"streams", S, R, BOTH, "the candidate creates or switches CUDA streams or graphs",
	 "torch.cuda.Stream, torch.cuda.stream(...), wait_stream/record_stream, CUDA graphs, "
	 "cudaStreamCreate*, cudaStreamPerThread, host callbacks, --default-stream per-thread; in Triton "
	 "candidates, a stream passed to a launch and Triton's get/set_current_stream. Work on "
	 "another stream escapes the CUDA events that time the current one. Launch on the stream you are "
	 "given (fast path and native ABI) or on torch.cuda.current_stream() (where Triton launches)."},
	{"threads", S, R, BOTH, "the candidate starts threads or processes",
	 "threading, multiprocessing, concurrent.futures, os.fork, subprocess, std::thread, pthread_create, "
	 "std::async, OpenMP; system, popen, exec*, posix_spawn in CUDA sources (as functions: x.clone() "
	 "and torch::clone() are not clone(2)). Background work can finish "
	 "outside the timed window, and a process escapes the evaluation (the sandbox refuses it at run time "
	 "too: process_spawn)."},
	{"timer_patch", S, R, KB, "the candidate assigns to torch, time or CUDA event attributes",
	 "Assignments such as torch.cuda.Event.elapsed_time = ..., torch.cuda.synchronize = ..., "
	 "time.perf_counter = ..., or setattr(torch..., ...). These rewrite the stopwatch instead of the "
	 "kernel."},
	{"harness_tamper", S, R, KB, "the candidate inspects or alters the process around it",
	 "sys.modules, sys._getframe, inspect, gc.get_objects/get_referrers, __main__, builtins, atexit, "
	 "signal, faulthandler, os._exit, sys.exit; in Triton candidates, writing os.environ (Triton reads "
	 "its settings from it). The candidate runs in the harness's process; these "
	 "are the ways to reach the harness's own objects (the reference's outputs, the result)."},
	{"dynamic_code", S, R, KB, "the candidate builds code at run time",
	 "exec, eval, compile(), importlib, __import__, marshal, pickle and base64-decoded sources hide "
	 "code from every other static check."},
	{"lazy_tensor", S, R, KB, "the candidate defines a tensor subclass",
	 "torch.Tensor subclasses, _make_subclass, as_subclass, __torch_function__, __torch_dispatch__: a "
	 "lazy tensor can compute on first access, after the timer stopped (a 600x fake speedup in "
	 "CUDA-L1's issue #12)."},
	{"precision", S, R, BOTH, "lower precision in a fp32 task",
	 "fp16/bf16/fp8 conversions and types (.half(), torch.float16, __float2half, __nv_bfloat16, "
	 "__half), TF32 (allow_tf32, set_float32_matmul_precision, fp32_precision, wmma tf32, "
	 "cvt.rna.tf32, CUBLAS_TF32_TENSOR_OP_MATH, CUBLAS_COMPUTE_32F_FAST) and autocast, when the task's "
	 "precision is fp32 or fp64; in Triton, tl.float16/bfloat16/float8 conversions, tl.dot with "
	 "allow_tf32=True or input_precision \"tf32\", \"tf32x3\", \"bf16x3\", and changing "
	 "TRITON_F32_DEFAULT. kernelpro compiles Triton with TRITON_F32_DEFAULT=ieee, so a tl.dot on fp32 "
	 "operands without input_precision is full fp32; after the candidate ran, the PyTorch adapter also "
	 "reads the Triton IR it compiled and refuses a tf32/bf16 dot on fp32 data or an fp16/bf16/fp8 dot. At the KernelBench v0.1 tolerance (1e-2) a TF32 matmul passes and "
	 "looks several times faster than the fp32 reference. Not applied to fp16/bf16 tasks. Both "
	 "harnesses also run with NVIDIA_TF32_OVERRIDE=0, and the PyTorch adapter refuses a candidate that "
	 "turned PyTorch's TF32 switches on while it ran."},
	{"fast_math", S, W, BOTH, "fast-math compilation",
	 "-use_fast_math / --use_fast_math approximate division, square roots and transcendentals. "
	 "Allowed when the tolerance holds; recorded because results move closer to its edge."},
	{"foreign_include", S, R, BOTH, "the candidate includes a file outside itself and the toolkit's headers",
	 "Native: an #include of an absolute path or one with '..', or any file the preprocessor (nvcc -E) opens "
	 "outside harness/include, the CUDA toolkit, the system's, CUTLASS's and -I directories (a computed "
	 "#include). The build would read that file, and the compiler's errors would quote it into the repair "
	 "prompt."},
	{"reads_reference", S, R, BOTH, "the candidate reaches for the reference",
	 "KernelBench: calls get_inputs/get_init_inputs from code ModelNew runs (forward and what it "
	 "reaches, any of its methods), or imports them or Model from the task; defining or copying them, "
	 "or a test block that runs its own copy at import, is not refused. Native: dlopen/dlsym or "
	 "names the reference library, so it could call the reference (or read its outputs) instead of "
	 "computing."},

	/* --- dynamic: measured while the candidate runs ----------------------------------------- */
	{"output_poison", D, W, BOTH, "outputs were not fully written",
	 "Native: every output is filled with a poison pattern (NaN for floating point) before each call "
	 "and must not hold it afterwards. KernelBench: the memory the candidate's allocations come from is "
	 "poisoned after the reference ran, so an output left unwritten shows NaN instead of the stale "
	 "reference result (Sakana's exploit). The verdict is wrong_output."},
	{"output_alias", D, R, KB, "an output aliases an input, a reference output or an earlier output",
	 "The candidate's output storage must be new: not inside an input, not a reference output, not the "
	 "tensor it returned last time (a cached result)."},
	{"repeat_mismatch", D, R, BOTH, "repeated runs on the same inputs disagree",
	 "The candidate runs twice more on the same inputs with different poison in between; results must "
	 "agree within the tolerance. Kernels that read uninitialised or stale memory fail this even when "
	 "one run happened to match (the 104x 'speedup' Wafer caught)."},
	{"input_memo", D, R, BOTH, "results do not follow new input values at the same addresses",
	 "The inputs are refilled in place with new random values and the candidate runs again on the same "
	 "buffers: a result cached by pointer or by a sample of the values comes back stale."},
	{"timed_output", D, R, KB, "a timed call's output differs from the reference's",
	 "Before each timed call the candidate's input buffers get new values (drawn outside the timed "
	 "region; copied from 3 sets when the task's inputs are drawn on the CPU), so a result cached by "
	 "the inputs' content cannot pay; the outputs of 3 timed calls picked at random are compared with "
	 "the reference's on the same inputs. A candidate right in the trials but wrong while timed (a "
	 "result cached by address) is refused. A false alarm is a kernel whose result depends on how "
	 "often it was called."},
	{"inputs_modified", D, R, BOTH, "the candidate changed its inputs",
	 "Inputs are compared bit for bit before and after each candidate call (the candidate gets its own "
	 "copies, so the reference never sees a change). Raised only when the reference leaves its inputs "
	 "alone."},
	{"host_time", D, R, BOTH, "host time with a full device sync disagrees with event time",
	 "20 calls are also timed on the host, from launch to a full device synchronize, next to CUDA events "
	 "on the current stream. Host time minus event time is work the events did not see; the same "
	 "measurement around a call that does nothing gives the harness's own overhead. More than "
	 "max(50% of the event time, 0.02 ms) of unseen work per call means the candidate ran outside the "
	 "timed stream (another stream, a deferred launch) and is refused."},
	{"constant_output", D, F, BOTH, "the output is constant where the reference's is not",
	 "Every element of an output has one value (all zeros included) while the reference's values vary "
	 "by more than the relative bound (1e-3 of max |ref| in fp32, 0.1 in fp16/bf16). Such an output "
	 "passes the elementwise tolerance |ref - out| <= atol + rtol * |out| only when every reference "
	 "value is below atol (softmax over a wide row: KernelBench issue #165). The verdict is "
	 "wrong_output. A false alarm needs a reference that varies only by rounding noise, which the "
	 "bound leaves out."},
	{"partial_match", D, F, BOTH, "only part of the output matches at the reference's own scale",
	 "An element matches when |out - ref| <= rel * (|ref| + rms(ref)): the relative bound rel (1e-3 "
	 "in fp32 at the default tolerance, 10 * rtol in general, 0.1 in fp16/bf16) applied at the "
	 "element's own size plus the output's RMS, so elements that cancel to near zero are not held to "
	 "a relative test they cannot meet. More than 1% of the elements failing means the output is "
	 "right only on a sample (every k-th element, some rows) or not at all (a scaled copy of the "
	 "input, a wrong but tiny result) and passed only through atol. The verdict is wrong_output."},
	{"relative_error", D, F, BOTH, "the error is large for the reference's own scale",
	 "||out - ref|| / ||ref|| over the whole output above the relative bound; or, for more than 1% "
	 "of the rows (slices over the last dimension) or channels (slices over dimension 1) whose "
	 "reference RMS is above rounding noise, the same ratio per row or channel: rows of a small "
	 "scale next to large ones are held to their own scale. Honest fp32 kernels (reordered sums, "
	 "fast-math) stay near 1e-6, fp16/bf16 near 1e-3, against bounds of 1e-3 and 0.1. The verdict "
	 "is wrong_output."},
	{"scaled_inputs", D, F, BOTH, "wrong on a trial with rescaled inputs",
	 "One more correctness trial with every floating-point input multiplied by a power of two (64 in "
	 "fp32, fp64 and bf16; 4 in fp16, whose range is small), so outputs tied to the inputs' magnitude "
	 "leave the region where atol hides everything, and kernels that assume the task's input range "
	 "(a table over [0, 1), a clamp) show it. It runs after repeat_mismatch and input_memo; rtol "
	 "stays, atol widens to max(atol, 128 * 2^-23 * rms(ref)) (4 * eps * rms(ref) in fp16/bf16), the "
	 "rounding error of a sum whose terms grew, so outputs that do not grow (softmax) keep the task's "
	 "atol. Skipped, and said so in the verdict, when the reference "
	 "is not defined there (it raises, or gives NaN or infinity); native tasks can set "
	 "\"scaled_trial\": false in task.json. The verdict is wrong_output."},
	{"below_floor", D, R, BOTH, "faster than the hardware allows",
	 "The floor is the time the task's unavoidable bytes need at the GPU's datasheet DRAM bandwidth "
	 "(inputs read once, outputs written once; outputs that fit in L2 may still be there when the "
	 "timer stops and are not counted, nor, with --no-l2-flush, inputs that fit), or a native task's "
	 "declared FLOPs at the fastest rate its precision allows, whichever is longer; or the floor "
	 "given with --floor (Stage 1's floor_time_s in a search). No correct kernel runs faster: a "
	 "runtime under floor * 0.9 (--floor-slack) is refused as impossible. Applied to every "
	 "evaluation on a GPU the spec table knows. False alarm: a task whose output does not depend on "
	 "all of an input's bytes."},
	{"flop_floor", D, W, KB, "faster than the reference's counted FLOPs allow",
	 "PyTorch's FlopCounterMode counts the matrix products of the KernelBench reference (mm, bmm, "
	 "addmm, baddbmm; convolutions and attention are left out: Winograd, FFT and causal kernels do "
	 "less). Running faster than those FLOPs at the GPU's fastest rate for the precision (TF32 "
	 "tensor cores for fp32, since 3xTF32 is the fastest way to fp32 accuracy) is flagged, not "
	 "refused: the reference may do work an honest kernel skips (a diagonal or triangular matrix "
	 "multiplied in full)."},
	{"excessive_speedup", D, W, BOTH, "speedup above 10x",
	 "KernelBench's own warning: more than 10x over the reference is rare enough to deserve a look "
	 "(--excessive-speedup sets the threshold)."},
	{"lazy_output", D, R, KB, "an output is not a plain CUDA tensor",
	 "Outputs must be exactly torch.Tensor (no subclass), on the GPU, with the reference's shape and "
	 "dtype."},
	{"timer_intact", D, R, KB, "the timing functions or the current stream changed",
	 "After loading and after running the candidate, torch.cuda.Event (and its record/elapsed_time), "
	 "torch.cuda.synchronize, time.perf_counter and the current CUDA stream must be what they were "
	 "before. The harness times with its own saved references either way."},
	{"extra_threads", D, R, KB, "threads left running",
	 "The number of Python threads must be the same after the candidate loaded and ran as before."},
	{"process_spawn", D, R, BOTH, "the candidate tried to start a process or reach another one",
	 "The evaluation child runs the candidate under a seccomp filter: execve, fork, vfork, clone without "
	 "CLONE_THREAD, ptrace, signals to other processes and the like fail with EPERM and are counted; "
	 "in the PyTorch adapter an audit hook also refuses os.system, subprocess, os.exec*, os.posix_spawn, "
	 "os.fork, pty.spawn and ctypes look-ups of libc's process functions, with the line that tried. A "
	 "refused attempt is the candidate's, whatever it did next; a child that ends by SIGSYS (system() and "
	 "posix_spawn block signals, so the kernel ends the process instead) is refused the same way. "
	 "docs/eval.md, \"The sandbox\", says what is enforced. False alarm: none known; a kernel never needs "
	 "another process."},
	{"implausible_result", D, R, BOTH, "the harness reported numbers no measurement gives",
	 "Times must be finite and between 1 ns and 10^7 ms, standard deviations finite and not negative, "
	 "speedups finite and at most 10^6. Anything else means the harness's result was tampered with "
	 "(the candidate runs in the harness's process) or the harness is broken; such a verdict must "
	 "never rank. The search holds every evaluator's result to the same bounds."},
};

const struct kp_check_info *kp_checks(size_t *n)
{
	*n = KP_ARRAY_SIZE(checks);
	return checks;
}

const struct kp_check_info *kp_check_find(const char *id)
{
	for (size_t i = 0; i < KP_ARRAY_SIZE(checks); i++)
		if (!strcmp(checks[i].id, id))
			return &checks[i];
	return NULL;
}

const char *kp_check_severity_name(enum kp_check_severity s)
{
	return s == KP_SEV_REFUSE ? "refuse" : s == KP_SEV_FAIL ? "fail" : "warn";
}

int kp_check_severity_parse(const char *s, enum kp_check_severity *out)
{
	static const enum kp_check_severity all[] = {KP_SEV_WARN, KP_SEV_REFUSE, KP_SEV_FAIL};
	for (size_t i = 0; i < KP_ARRAY_SIZE(all); i++)
		if (!strcmp(s, kp_check_severity_name(all[i]))) {
			*out = all[i];
			return 0;
		}
	return KP_EINVAL;
}

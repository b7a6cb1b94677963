#!/bin/sh
# The KernelBench export on the GPU: a fast-path candidate (examples/kernelbench/swish_scale_fast.py,
# extern "C" CUDA through ctypes) judged by kernelpro, exported self-contained (the fast path
# inlined), then run the way KernelBench runs a kernel: its source exec'd into a fresh namespace with
# no kernelpro on the path (eval.py's load_custom_model), checked against the reference Model with
# torch.allclose at KernelBench's fp32 tolerance (1e-2) on fresh inputs, and timed with CUDA events.
# It must be correct there too, and its speedup within 35% of the one kernelpro measured (kernelpro flushes L2 before each timed call; this loop does not): the same
# kernel, built by the same code.
. "$KP_ROOT/tests/integration/lib.sh"
export KERNELPRO_HOME="$KP_ROOT"
keep=${KP_GPU_LOGS:-$KP_TMP}/g1404

mkdir -p KernelBench/level1
cp "$KP_ROOT/examples/kernelbench/swish_scale.py" KernelBench/level1/2_Swish_scale.py
expect_exit 0 "$KP" optimize --llm none KernelBench/level1/2_Swish_scale.py \
	--from "$KP_ROOT/examples/kernelbench/swish_scale_fast.py" --evals 1 --no-profile --runs-dir runs --name fast
cat out
expect_exit 0 "$KP" report runs/fast --export exp
K=exp/kernels/level_1_problem_2_sample_0_kernel.py
[ -f "$K" ] || fail "no exported kernel (was the candidate correct? see above)"
contains "$K" "_kp_fast = _kp_inline_fast("
mkdir -p "$keep" && cp -r exp "$keep/" || fail "keeping the export"
# A fresh process, kernelpro's package nowhere on the path, a build cache of its own.
env -u PYTHONPATH -u KP_ARCH -u KP_BUILD_CACHE XDG_CACHE_HOME="$KP_TMP/cache" \
	python3 - "$K" KernelBench/level1/2_Swish_scale.py exp/results.json <<'PY' || fail "the exported kernel under KernelBench's way of running it"
import json, sys
import torch
kernel, task, results = sys.argv[1:4]
import importlib.util
assert importlib.util.find_spec("kernelpro") is None, sys.path  # the export stands alone
ref_ctx, new_ctx = {}, {}
exec(open(task).read(), ref_ctx)
exec(compile(open(kernel).read(), "<string>", "exec"), new_ctx)  # as load_custom_model does
init = ref_ctx["get_init_inputs"]()
ref = ref_ctx["Model"](*init).cuda()
new = new_ctx["ModelNew"](*init).cuda()
torch.manual_seed(42)
for trial in range(5):
    inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in ref_ctx["get_inputs"]()]
    with torch.no_grad():
        a, b = ref(*inputs), new(*inputs)
    torch.cuda.synchronize()
    assert a.shape == b.shape and torch.allclose(a, b, atol=1e-2, rtol=1e-2), ("trial", trial, (a - b).abs().max().item())

def mean_ms(m, n=100):
    inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in ref_ctx["get_inputs"]()]
    for _ in range(10):
        m(*inputs)
    times = []
    for _ in range(n):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); m(*inputs); e.record(); torch.cuda.synchronize()
        times.append(s.elapsed_time(e))
    return sum(times) / len(times)

with torch.no_grad():
    ref_ms, new_ms = mean_ms(ref), mean_ms(new)
mine = [t for t in json.load(open(results))["tasks"]][0]
kp_speedup = mine["ref_mean_ms"] / mine["best_mean_ms"] if mine["best_mean_ms"] else mine["speedup_eager"]
print("exported kernel: %.4f ms against the reference's %.4f ms (%.2fx); kernelpro measured %.2fx"
      % (new_ms, ref_ms, ref_ms / new_ms, kp_speedup))
assert abs(ref_ms / new_ms - kp_speedup) <= 0.35 * kp_speedup, "the speedup moved by more than 35%"
PY
echo ok

"""Where the reference's FLOP count spends its time (issue 12): torch.utils.flop_counter's
FlopCounterMode on first and second use, on the CPU and on the GPU, the modules its first use
imports, and whether a first use on the CPU in a parent makes a forked child's GPU use cheap
(the warm worker's case: the parent must not touch CUDA before fork).

    python3 bench/flop_count_cost.py [TASK.py]      (default examples/kernelbench/swish_scale.py)

Prints seconds; needs torch (and a GPU for the CUDA lines)."""
import importlib.util
import os
import sys
import time


def count(torch, fcm, fn):
    t = time.perf_counter()
    with torch.no_grad(), fcm(display=False) as fc:
        fn()
    if torch.cuda.is_initialized():
        torch.cuda.synchronize()
    return time.perf_counter() - t, sum(fc.get_flop_counts().get("Global", {}).values())


def main():
    task = sys.argv[1] if len(sys.argv) > 1 else "examples/kernelbench/swish_scale.py"
    t0 = time.perf_counter()
    import torch
    t1 = time.perf_counter()
    from torch.utils.flop_counter import FlopCounterMode
    t2 = time.perf_counter()
    print("import torch %.2f s, import torch.utils.flop_counter %.2f s" % (t1 - t0, t2 - t1))
    a = torch.randn(64, 64)
    before = set(sys.modules)
    s, n = count(torch, FlopCounterMode, lambda: torch.sigmoid(a @ a))
    new = sorted(set(sys.modules) - before)
    tops = {}
    for m in new:
        tops[m.split(".")[0] + "." + m.split(".")[1] if "." in m else m] = tops.get(m, 0) + 1
    print("CPU, first use: %.3f s (%d FLOPs); it imported %d modules: %s" % (
        s, n, len(new), ", ".join("%s(%d)" % kv for kv in sorted(tops.items(), key=lambda kv: -kv[1])[:12])))
    s, n = count(torch, FlopCounterMode, lambda: torch.sigmoid(a @ a))
    print("CPU, second use: %.3f s" % s)
    print("CUDA initialized in the parent: %s" % torch.cuda.is_initialized())
    if not os.path.exists("/dev/nvidiactl"):  # torch.cuda.is_available() would initialize CUDA here
        print("no GPU: CUDA lines skipped")
        return
    spec = importlib.util.spec_from_file_location("task", task)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        torch.set_default_device("cuda")
        model = mod.Model(*mod.get_init_inputs()).cuda()
        xs = [x.cuda() if hasattr(x, "cuda") else x for x in mod.get_inputs()]
        model(*xs)
        torch.cuda.synchronize()
        s1, n1 = count(torch, FlopCounterMode, lambda: model(*xs))
        s2, _ = count(torch, FlopCounterMode, lambda: model(*xs))
        os.write(w, ("forked child (parent warmed on the CPU), task reference on the GPU: first %.3f s, "
                     "second %.3f s (%d FLOPs)\n" % (s1, s2, n1)).encode())
        os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    sys.stdout.write(os.read(r, 4096).decode())


if __name__ == "__main__":
    main()

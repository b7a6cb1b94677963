"""The program bench/ncu_held_experiment.py puts under ncu: imports torch, waits on a FIFO (argv[1]),
then one elementwise kernel on 1 GiB inside the NVTX range "kp"."""
import sys, time
t0 = time.time()
import torch
print("import %.2f" % (time.time() - t0), flush=True)
with open(sys.argv[1]) as f:
    f.read()
t2 = time.time()
x = torch.rand(1 << 28, device="cuda")
torch.cuda.nvtx.range_push("kp")
y = x * torch.sigmoid(x)
torch.cuda.synchronize()
torch.cuda.nvtx.range_pop()
print("after gate %.2f" % (time.time() - t2), flush=True)

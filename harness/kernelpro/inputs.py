"""Inputs for the PyTorch adapter: the task's get_inputs() run with the GPU as the default device, so
a 6 GiB input is drawn by a seeded CUDA generator in milliseconds instead of by the CPU in seconds
and then copied (the distributions are the task's; the values differ from a CPU draw). Tasks whose
get_inputs() needs the CPU get it: a task flag, the --cpu-inputs option, or a failure on the GPU
(then every later draw of the evaluation is made on the CPU too). Also the helpers that tell whether
a model wrote into its inputs or returned memory that belongs to them, so inputs are copied only
when a model needs its own (docs/eval.md, "Inputs")."""

# A task file that sets this module-level name to True gets its inputs drawn on the CPU, exactly as
# KernelBench draws them (for get_inputs() that use numpy or build tensors the device context breaks).
TASK_FLAG = "KERNELPRO_CPU_INPUTS"


class InputMaker:
    """Draws a trial's inputs from its seed: tensors on the GPU, floating-point ones at the task's precision."""

    def __init__(self, torch, dev, dtype, get_inputs, set_seed, on_cpu=False, why_cpu=None, part=None):
        self.t = torch
        self.part = part  # part("inputs") clocks each draw (Correctness.part); None: not clocked
        self.dev = dev
        self.dtype = dtype
        self.get_inputs = get_inputs
        self.set_seed = set_seed
        self.on_cpu = bool(on_cpu)
        self.why = why_cpu if on_cpu else None
        self.moved = False  # some tensor came back on the CPU and was copied to the GPU

    def describe(self):
        """Where the inputs were made, for the result document ("gpu", "cpu: <why>")."""
        if self.on_cpu:
            return "cpu: %s" % self.why
        return "gpu, some tensors copied from the cpu" if self.moved else "gpu"

    def make(self, seed):
        if self.part is None:
            return self._make(seed)
        with self.part("inputs"):
            return self._make(seed)

    def _make(self, seed):
        self.set_seed(seed)
        if not self.on_cpu:
            try:
                with self.t.device(self.dev):
                    xs = self.get_inputs()
            except Exception as e:  # numpy, explicit CPU tensors mixed with default-device ones, ...
                self.on_cpu = True
                self.why = "get_inputs() failed with the GPU as the default device (%s: %s)" % (
                    type(e).__name__, str(e).strip().splitlines()[0][:200] if str(e).strip() else "")
                self.set_seed(seed)
                xs = self.get_inputs()
        else:
            xs = self.get_inputs()
        return [self.process(x) for x in xs]

    def process(self, x):
        """To the GPU; floating-point tensors at the task's precision. (KernelBench casts integer
        tensors too, which turns class indices into floats; kernelpro keeps their dtype.)"""
        t = self.t
        if not isinstance(x, t.Tensor):
            return x
        if x.is_floating_point() and x.dtype != self.dtype:
            x = x.to(dtype=self.dtype)
        if x.device != self.dev:
            if not self.on_cpu and x.device.type == "cpu":
                self.moved = True
            x = x.to(device=self.dev)
        return x


def clone(t, xs):
    return [x.clone() if isinstance(x, t.Tensor) else x for x in xs]


def same(t, a, b):
    """Bit-for-bit equality of the tensors in two argument lists."""
    for x, y in zip(a, b):
        if isinstance(x, t.Tensor):
            if not isinstance(y, t.Tensor) or x.shape != y.shape or x.dtype != y.dtype:
                return False
            if not t.equal(x.contiguous().reshape(-1).view(t.uint8), y.contiguous().reshape(-1).view(t.uint8)):
                return False
    return True


def span(x):
    s = x.untyped_storage()
    return s.data_ptr(), s.data_ptr() + s.nbytes()


def overlaps(t, xs, ys):
    """Whether any tensor of xs shares memory with a tensor of ys (on the same device)."""
    for x in xs:
        if not isinstance(x, t.Tensor) or x.numel() == 0:
            continue
        a0, a1 = span(x)
        for y in ys:
            if isinstance(y, t.Tensor) and y.numel() and y.device == x.device:
                b0, b1 = span(y)
                if a0 < b1 and b0 < a1:
                    return True
    return False


def nbytes(t, xs):
    return float(sum(x.numel() * x.element_size() for x in xs if isinstance(x, t.Tensor)))

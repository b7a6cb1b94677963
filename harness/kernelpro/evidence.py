"""Runtime evidence (issue 28): what ModelNew.forward executed in one correctness trial, recorded rather
than guessed from its text. A TorchDispatchMode counts the ATen ops each model runs (calls from C++
extensions included: they go through the dispatcher too), always; with KERNELPRO_EVIDENCE=kernels
torch.profiler also names the CUDA kernels each launches (its first start cost 4.5-6 s of every
evaluation on the H200, so it is not the default). From the two records:

* a kernel "of the candidate's own" is one whose name is a __global__ or @triton.jit function of its
  source, or one neither the reference launched nor PyTorch's own (at::native) kernels include (a
  CUTLASS template, a library the candidate built): a lenient reading, so a refusal stands on a fact;
* torch_fallback (refuse): no kernel of its own ran, and every ATen compute op of the reference ran in
  the candidate at least as often;
* no_kernel (refuse): no kernel of its own ran, and the ops differ (kernels defined but never launched;
  the work done by other PyTorch ops).

Both need the kernels' record: with the ATen ops alone nothing is refused (a candidate may call every
op of the reference and a kernel of its own). Nothing is concluded when the record could not be made
(no profiler, CUPTI unavailable, an error while recording): the verdict's runtime_evidence says why.
The pure parts (names, the judgement) are unit-tested without torch (tests/python/test_evidence.py)."""

import collections
import re

MAX_LISTED = 16
# ATen ops that move or describe data without computing: not "the reference's compute ops".
NON_COMPUTE = frozenset((
    "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full", "full_like",
    "view", "_unsafe_view", "reshape", "as_strided", "expand", "permute", "transpose", "t", "contiguous",
    "clone", "copy_", "_to_copy", "to", "detach", "alias", "lift_fresh", "squeeze", "unsqueeze", "flatten",
    "select", "slice", "split", "split_with_sizes", "chunk", "unbind", "narrow", "index_select", "cat",
    "stack", "size", "stride", "numel", "dim", "is_contiguous", "item", "_local_scalar_dense", "fill_",
    "zero_", "new_empty", "new_empty_strided", "new_zeros", "resize_", "set_", "record_stream",
    "_reshape_alias", "unfold", "repeat", "expand_as", "view_as", "type_as", "scalar_tensor",
))
_GLOBAL = re.compile(r"__global__\b")
_CALLED = re.compile(r"(\w+)\s*\(")
_TRITON = re.compile(r"@(?:triton\.)?(?:jit|autotune\([^@]*?\))\s*(?:@[^\n]*\n\s*)*def\s+(\w+)", re.S)


def candidate_kernels(src):
    """The kernel names a candidate's source defines: __global__ functions and @triton.jit ones."""
    names = set()
    for m in _GLOBAL.finditer(src):
        for c in _CALLED.finditer(src, m.end(), m.end() + 400):  # the declarator's name: the first `name(`
            if c.group(1) != "__launch_bounds__":
                names.add(c.group(1))
                break
    names.update(_TRITON.findall(src))
    names.discard("void")
    return names


def base_name(kernel):
    """A profiler's kernel name reduced to its function: "void ns::k<128>(float*, long)" -> "k"."""
    s = kernel.strip()
    depth, cut = 0, len(s)
    for i, ch in enumerate(s):  # the name ends at the first '(' or '<' outside template brackets
        if ch in "(<" and depth == 0:
            cut = i
            break
    head = s[:cut].split()
    name = head[-1] if head else s
    return name.split("::")[-1]


def is_pytorch_kernel(kernel):
    return "at::native" in kernel or kernel.startswith(("Memcpy", "Memset"))


def own_kernels(launched, defined, ref_launched):
    """The launched kernels that are the candidate's own (see the module's docstring)."""
    ref = set(ref_launched)
    out = []
    for k in launched:
        b = base_name(k)
        if b in defined or any(b.startswith(d + "_") for d in defined):  # Triton may suffix its names
            out.append(k)
        elif k not in ref and not is_pytorch_kernel(k):
            out.append(k)
    return out


def compute_ops(counts):
    return {op: n for op, n in counts.items() if op not in NON_COMPUTE}


def judge(rec, defined):
    """(check, message) that the record refuses, or (None, None). rec: {"candidate": {"ops", "kernels"},
    "reference": {...}} with Counters/dicts of names."""
    cand, ref = rec["candidate"], rec["reference"]
    if cand.get("kernels") is None or ref.get("kernels") is None:
        return None, None  # no kernels' record: the ops alone prove nothing
    mine = own_kernels(cand["kernels"], defined, ref["kernels"])
    if mine:
        return None, None
    listed = ", ".join(sorted(cand["kernels"])[:6]) or "none"
    rops = compute_ops(ref["ops"])
    cops = cand["ops"]
    if rops and all(cops.get(op, 0) >= n for op, n in rops.items()):
        return "torch_fallback", ("recorded while it ran: no kernel of its own launched (it launched: %s) and every "
                                  "ATen op of the reference ran as often: %s" % (listed, ", ".join(sorted(rops))))
    return "no_kernel", ("recorded while it ran: none of its own kernels launched (defined: %s; launched: %s); "
                         "the work was done by PyTorch's ops (%s)"
                         % (", ".join(sorted(defined)) or "none", listed,
                            ", ".join(sorted(compute_ops(cops))[:8]) or "none"))


def summary(rec, defined):
    """The verdict's runtime_evidence: what each side ran, bounded."""
    def top(counter):
        return dict(collections.Counter(counter).most_common(MAX_LISTED))
    cand, ref = rec["candidate"], rec["reference"]
    out = {"recorded": True, "aten_ops": top(compute_ops(cand["ops"])),
           "reference_aten_ops": top(compute_ops(ref["ops"])), "kernels": None, "own_kernels": None,
           "reference_kernels": None}
    if cand.get("kernels") is not None and ref.get("kernels") is not None:
        out.update(kernels=top(cand["kernels"]), reference_kernels=top(ref["kernels"]),
                   own_kernels=sorted(set(own_kernels(cand["kernels"], defined, ref["kernels"])))[:MAX_LISTED])
    return out


class Recorder:
    """Records one call of a model: record(fn) -> (fn's result, {"ops": Counter, "kernels": Counter or
    None}); `kernels`: also run torch.profiler for the kernels' names. Raises Unavailable when the
    dispatch mode (or the profiler) cannot be used here."""

    class Unavailable(Exception):
        pass

    def __init__(self, torch, sync, kernels=False):
        self.t = torch
        self.sync = sync
        self._profile = None
        try:
            from torch.utils._python_dispatch import TorchDispatchMode
            if kernels:
                from torch.profiler import ProfilerActivity, profile
                self._profile, self._cuda = profile, ProfilerActivity.CUDA
        except Exception as e:
            raise Recorder.Unavailable("%s: %s" % (type(e).__name__, e))

        class Ops(TorchDispatchMode):
            def __init__(self):
                super().__init__()
                self.ops = collections.Counter()

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                self.ops[func.overloadpacket.__name__] += 1
                return func(*args, **(kwargs or {}))
        self._Ops = Ops

    def record(self, fn):
        mode = self._Ops()
        if self._profile is None:
            with mode:
                out = fn()
            self.sync()
            return out, {"ops": mode.ops, "kernels": None}
        with self._profile(activities=[self._cuda]) as prof:
            with mode:
                out = fn()
            self.sync()
        kernels = collections.Counter()
        for e in prof.events():
            if str(getattr(e, "device_type", "")).endswith("CUDA") and e.name:
                kernels[e.name] += 1
        return out, {"ops": mode.ops, "kernels": kernels}

"""Pure-Python helpers of the PyTorch adapter (no torch): the verdict-ending exception and check
severities, statistics, log excerpts, the result channel, and finding fast-path sources to prebuild.
Unit-tested on machines without a GPU."""

import ast
import contextlib
import json
import math
import os
import re
import sys
import tempfile
import time

REFUSE, WARN, FAIL = "refuse", "warn", "fail"

DTYPE_NAMES = {"torch.float32": "f32", "torch.float16": "f16", "torch.bfloat16": "bf16", "torch.float64": "f64",
               "torch.int32": "i32", "torch.int64": "i64", "torch.int8": "i8", "torch.uint8": "u8"}


class Stop(Exception):
    """Ends the evaluation with a verdict."""

    def __init__(self, status, message, log=""):
        super().__init__(message)
        self.status = status
        self.message = message
        self.log = log


def first_line(e):
    """The first line of an exception's text (400 characters at most), or its type's name."""
    s = str(e).strip()
    return s.splitlines()[0][:400] if s else type(e).__name__


def unravel(idx, shape):
    """Coordinates of flat index `idx` in a C-contiguous tensor of `shape`."""
    pos = []
    for d in reversed(shape):
        pos.append(idx % d if d else 0)
        idx = idx // d if d else 0
    return list(reversed(pos))


def dtype_name(outs):
    """The first floating-point output's dtype ("f32"), else the first output's."""
    for o in outs:
        if o.is_floating_point():
            return DTYPE_NAMES.get(str(o.dtype), str(o.dtype))
    return DTYPE_NAMES.get(str(outs[0].dtype), str(outs[0].dtype)) if outs else None


def stats(times_ms):
    """median, mean, std (population, as numpy's default), min and max of a list of milliseconds."""
    xs = sorted(float(t) for t in times_ms)
    n = len(xs)
    if n == 0:
        return None
    mid = n // 2
    median = xs[mid] if n % 2 else (xs[mid - 1] + xs[mid]) / 2.0
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / n
    return {"median_ms": median, "mean_ms": mean, "std_ms": math.sqrt(var),
            "min_ms": xs[0], "max_ms": xs[-1], "trials": n}


_ERROR_LINE = re.compile(r"(error|Error|ERROR|fatal|undefined|Traceback|Exception|assert|"
                         r"illegal|out of memory|Timeout)")


def excerpt(text, cap=6000, context=2):
    """The part of a long log an LLM needs: lines that report errors with a little context, else the
    tail. Never more than `cap` characters."""
    if not text:
        return ""
    if len(text) <= cap:
        return text
    lines = text.splitlines()
    keep = set()
    for i, line in enumerate(lines):
        if _ERROR_LINE.search(line):
            for j in range(max(0, i - context), min(len(lines), i + context + 1)):
                keep.add(j)
    if keep:
        out, last, size = [], -2, 0
        for i in sorted(keep):
            if i != last + 1 and out:
                out.append("...")
            out.append(lines[i])
            size += len(lines[i]) + 1
            last = i
            if size > cap:
                break
        text = "\n".join(out)
        return text if len(text) <= cap else text[:cap - 4] + "\n..."
    return "...\n" + text[-(cap - 4):]


def tolerance(precision, mode="current"):
    """KernelBench's tolerance: 1e-4 for fp32, 1e-2 for fp16/bf16; v0.1 used 1e-2 everywhere."""
    if mode == "v0.1":
        return 1e-2
    return {"f32": 1e-4, "f64": 1e-4, "f16": 1e-2, "bf16": 1e-2}.get(precision, 1e-4)


class Parts:
    """Where a phase's time goes: named parts of its work (the verdict's seconds.correctness_parts).
    Each part is clocked exclusively: time spent in a part opened inside another counts for the inner
    one only, so the parts never add up to more than the wall time they ran in, and report() names
    the rest "other". Per part: seconds, how many times it ran, and its longest single run (a first
    call that loads or initialises something shows as longest ~ seconds)."""

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self.acc = {}    # name -> [seconds, calls, longest], in the order the parts first opened
        self.stack = []  # the open parts: [name, resumed at, seconds so far]

    @contextlib.contextmanager
    def part(self, name):
        now = self.clock()
        if self.stack:  # the enclosing part pauses
            top = self.stack[-1]
            top[2] += now - top[1]
        self.acc.setdefault(name, [0.0, 0, 0.0])
        self.stack.append([name, now, 0.0])
        try:
            yield
        finally:
            now = self.clock()
            _, since, spent = self.stack.pop()
            spent += now - since
            a = self.acc[name]
            a[0] += spent
            a[1] += 1
            a[2] = max(a[2], spent)
            if self.stack:
                self.stack[-1][1] = now

    def report(self, total):
        """{name: {"seconds", "calls", "longest"}} for every part that ran, then "other": the rest of
        `total` (the phase's seconds), calls 0."""
        out = {k: {"seconds": a[0], "calls": a[1], "longest": a[2]} for k, a in self.acc.items() if a[1]}
        rest = max(0.0, total - sum(a[0] for a in self.acc.values()))
        out["other"] = {"seconds": rest, "calls": 0, "longest": 0.0}
        return out


class Channel:
    """The result channel: a private copy of the original stdout. Everything else the process prints
    (the candidate's print(), printf in kernels, compiler chatter) goes to stderr, so nothing can
    mix into the JSON lines kernelpro reads."""

    def __init__(self, fd=None):
        if fd is None:
            fd = os.dup(1)
            os.dup2(2, 1)
        self._f = os.fdopen(fd, "w", buffering=1, encoding="utf-8")

    def send(self, obj):
        self._f.write(json.dumps(obj, allow_nan=False, default=_jsonable) + "\n")
        self._f.flush()


class Printed:
    """What the process prints on stdout (file descriptor 1, so children such as ninja too) inside
    `with`: kept in a temporary file, then written on to stderr, where stdout goes otherwise (Channel).
    text() is its last `cap` bytes. torch's load_inline(verbose=True) runs ninja with its output on
    stdout instead of in the exception, so this is where a compile_error finds it. stderr is left
    alone: faulthandler's timeout report must reach kernelpro however the import ends."""

    def __init__(self, cap=64 << 10, passthrough=1 << 20):
        self.cap, self.passthrough = cap, passthrough
        self._tail = b""

    def __enter__(self):
        _flush_std()
        self._f = tempfile.TemporaryFile()
        self._saved = os.dup(1)
        os.dup2(self._f.fileno(), 1)
        return self

    def __exit__(self, *exc):
        _flush_std()
        os.dup2(self._saved, 1)
        os.close(self._saved)
        size = self._f.seek(0, os.SEEK_END)
        keep = min(size, max(self.cap, self.passthrough))
        self._f.seek(size - keep)
        data = self._f.read(keep)
        self._f.close()
        if size > keep:
            os.write(2, b"[%d bytes of output left out]\n" % (size - keep))
        view = memoryview(data)
        while view:
            view = view[os.write(2, view):]
        self._tail = data[-self.cap:]
        return False

    def text(self):
        return self._tail.decode("utf-8", errors="replace")


def _flush_std():
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except (OSError, ValueError):
            pass


def _jsonable(x):
    try:
        return float(x)
    except Exception:
        return str(x)


def clean_json(obj):
    """Replaces NaN and infinities (not JSON) by None, recursively."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: clean_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [clean_json(v) for v in obj]
    return obj


def fast_sources(py_source):
    """Module-level string constants that look like fast-path CUDA (extern "C" and __global__):
    the adapter starts building them before importing torch. Returns [(name, source)]."""
    try:
        tree = ast.parse(py_source)
    except (SyntaxError, ValueError):
        return []
    found = []
    for node in tree.body:
        if not isinstance(node, (ast.Assign, ast.AnnAssign)):
            continue
        value = node.value
        if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
            continue
        s = value.value
        if 'extern "C"' in s and "__global__" in s and "torch/extension.h" not in s:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            name = next((t.id for t in targets if isinstance(t, ast.Name)), "kernel")
            found.append((name, s))
    return found


def fast_load_names(py_source):
    """The `name=` given to load_cuda(...) calls for each source variable, so prebuilds use the same
    file name in compiler messages: {variable: name}."""
    try:
        tree = ast.parse(py_source)
    except (SyntaxError, ValueError):
        return {}
    names = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        fn = node.func
        fname = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", None)
        if fname != "load_cuda" or not node.args or not isinstance(node.args[0], ast.Name):
            continue
        for kw in node.keywords:
            if kw.arg == "name" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                names[node.args[0].id] = kw.value.value
        if len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            names[node.args[0].id] = node.args[1].value
    return names


def format_exception(exc, limit=12):
    """Traceback text of `exc`, most recent frames, without the harness's own frames."""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    frames = [f for f in frames if "kp_torch.py" not in f.filename] or frames
    lines = traceback.format_list(frames[-limit:])
    tail = traceback.format_exception_only(type(exc), exc)
    return "Traceback (most recent call last):\n" + "".join(lines) + "".join(tail)

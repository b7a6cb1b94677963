"""Triton in the PyTorch adapter: the checks that read what Triton compiled (docs/triton.md).

kernelpro runs every evaluation with TRITON_F32_DEFAULT=ieee (a tl.dot on fp32 operands without an
input_precision is then full fp32, as the reference runs with TF32 off) and TRITON_CACHE_DIR set to a
directory of the candidate's own. After the candidate ran, the Triton IR in that directory says what
each dot really computed: a tf32/bf16x3 dot on fp32 data, or a dot on fp16/bf16/fp8 operands, in an
fp32 task is a lower precision whatever the source looked like. Pure Python: no torch, no triton.
"""

import os
import re

# tt.dot %a, %b, %c[, inputPrecision = tf32] : tensor<64x32xf32[, #enc]> * tensor<32x64xf32...> -> ...
_DOT = re.compile(r"\btt\.dot(?:_scaled)?\b")
_PRECISION = re.compile(r"inputPrecision\s*=\s*(\w+)")
_TYPES = re.compile(r":\s*tensor<(?:\d+x)+(\w+?)(?=[,>]).*?\*\s*tensor<(?:\d+x)+(\w+?)(?=[,>])")
_LOW_TYPES = ("f16", "bf16")
_LOW_PRECISIONS = ("tf32", "tf32x3", "bf16x3", "bf16x6", "bf16")
_MARKERS = ("tf32", "float16", "bfloat16", "float8", "fp8", "bf16x")
MAX_FILES = 2000
MAX_BYTES = 8 << 20


def _low_type(t):
    return t in _LOW_TYPES or t.startswith("f8") or t.startswith("f4") or t.startswith("i8")


def dot_problems(text):
    """The lower-precision dots in one TTIR text: [(line number, what)]."""
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        if not _DOT.search(line):
            continue
        if "tt.dot_scaled" in line:
            out.append((i, "a scaled (fp8/fp4) tl.dot_scaled"))
            continue
        types = _TYPES.search(line)
        prec = _PRECISION.search(line)
        a, b = (types.group(1), types.group(2)) if types else ("?", "?")
        if _low_type(a) or _low_type(b):
            out.append((i, "a tl.dot on %s x %s operands" % (a, b)))
        elif prec and prec.group(1) in _LOW_PRECISIONS and a in ("f32", "f64"):
            out.append((i, "a tl.dot on %s operands with input precision %s" % (a, prec.group(1))))
    return out


def ir_files(cache_dir):
    """The Triton IR files of a cache directory: one per compiled kernel (.ttir, else .ttgir)."""
    found = []
    if not cache_dir or not os.path.isdir(cache_dir):
        return found
    for entry in sorted(os.listdir(cache_dir))[:MAX_FILES]:
        d = os.path.join(cache_dir, entry)
        if not os.path.isdir(d):
            continue
        names = sorted(os.listdir(d))
        irs = [n for n in names if n.endswith(".ttir")] or [n for n in names if n.endswith(".ttgir")]
        found.extend(os.path.join(d, n) for n in irs)
    return found


_IMPORT = re.compile(r"^[ \t]*(?:import[ \t]+triton\b|from[ \t]+triton\b)", re.M)


def uses_triton(source):
    """A candidate that imports Triton: its kernels compile (and autotune) at their first call."""
    return bool(_IMPORT.search(source))


def reference_lowers_precision(task_source):
    """A Triton task whose reference itself names a lower precision: its dots are the task's own."""
    return any(m in task_source for m in _MARKERS)


def scan(cache_dir):
    """Every lower-precision dot under cache_dir: [(kernel file, line, what)]."""
    out = []
    for path in ir_files(cache_dir):
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read(MAX_BYTES)
        except OSError:
            continue
        for line, what in dot_problems(text):
            out.append((os.path.basename(path), line, what))
    return out


def settings_changed(environ, knob_value):
    """Why Triton's fp32 default is not kernelpro's any more (None when it is): the variable or the
    knob (triton.knobs.language.fp32_default; None when triton is not loaded)."""
    env = environ.get("TRITON_F32_DEFAULT")
    if env != "ieee":
        return "TRITON_F32_DEFAULT is %r, not 'ieee'" % env
    if knob_value not in (None, "ieee"):
        return "triton.knobs.language.fp32_default is %r, not 'ieee'" % knob_value
    return None


def check(adapter, sys_modules, fp32, task_source):
    """After the candidate ran: refuses (through adapter.flag) a Triton precision below the task's.
    fp32: the task runs in fp32/fp64."""
    if not fp32 or "triton" not in sys_modules:
        return
    knobs = getattr(sys_modules["triton"], "knobs", None)
    lang = getattr(knobs, "language", None)
    why = settings_changed(os.environ, getattr(lang, "fp32_default", None))
    if why:
        adapter.flag("precision", "refuse", "%s: Triton's fp32 tl.dot would use TF32" % why)
    if reference_lowers_precision(task_source):
        return
    found = scan(os.environ.get("TRITON_CACHE_DIR"))
    if found:
        ev = "; ".join("%s line %d: %s" % f for f in found[:3])
        adapter.flag("precision", "refuse", "the Triton IR compiled for the candidate lowers the precision of an "
                     "fp32 task: %s%s" % (ev, " (and more)" if len(found) > 3 else ""))

"""Faster load_inline builds: main.cpp against torch/extension.h precompiled once and shared by every
candidate, and cuda.cu with lighter headers where that builds: "min" (min_tier(): a header of ATen's
Tensor and the operators the source calls, in place of load_inline's torch/types.h), else "light"
(lighten(): the candidate's own include of torch's full headers made a comment of the same line);
any failure tries the next, and last builds it as written, whose outcome is the verdict's
(KERNELPRO_INLINE_MIN=0 turns the first off, KERNELPRO_INLINE_LIGHT=0 both).

torch.utils.cpp_extension.load_inline writes main.cpp as `#include <torch/extension.h>`, the
candidate's declarations and the pybind11 module, and g++ parses torch's headers again for every
candidate (most of that step's time). install() wraps load_inline so that main.cpp is compiled with
`-include <cache>/pch/<key>/kp_torch_extension.h`, whose precompiled form (.gch beside it) is built
once per key and then shared by every candidate and process:

  shared   the precompiled torch/extension.h and nothing else (no candidate's code is in it)
  keyed    by the compiler (its `-v` output), torch's version and include directories, the Python
           include directory and every flag g++ gets for main.cpp but the module's name
           (-DTORCH_EXTENSION_NAME, which torch's headers never read), the candidate's extra_cflags
           and extra_include_paths included: candidates with other flags get their own
  cleared  by deleting <cache>/pch (kernelpro's build cache: $KERNELPRO_CACHE/builds/pch)

The translation unit is unchanged: main.cpp includes torch/extension.h first anyway (the header has
`#pragma once`), so pre-including it compiles the same code; and g++ uses a .gch only when it was
made with compatible options, silently parsing the header otherwise. A header that cannot be
precompiled is noted (a .failed file with g++'s output) and candidates build as they would
without. Candidates that ask for torch's own use_pch, or no_implicit_headers, are left alone.
The nvcc step itself runs its host and device halves side by side (nvcc_halves(): torch's ninja file
runs harness/kp_nvcc.py as $PYTORCH_NVCC; nvcc_par.py has the rules; KERNELPRO_INLINE_NVCC=0 leaves
nvcc alone). KERNELPRO_INLINE_CACHE=0 switches all of it off (for side-by-side measurements);
describe() is the verdict's build_note. docs/rejudge.md has the rules and the measurements.

Pure Python; the torch module is passed in or imported by install(), never at import.
"""

import fcntl
import hashlib
import inspect
import json
import os
import re
import resource
import shlex
import subprocess
import sys
import sysconfig
import tempfile
import time

KEY_VERSION = "kernelpro-inline-pch-v1"
HEADER = "kp_torch_extension.h"
HEADER_TEXT = "#include <torch/extension.h>\n"
PCH_TIMEOUT_S = 600

# What install() did, for the verdict's timeline and the tests: one dict per load_inline call.
calls: list[dict] = []


def enabled():
    return os.environ.get("KERNELPRO_INLINE_CACHE", "1") != "0"


def _compiler(cpp_extension):
    cxx = cpp_extension.get_cxx_compiler() if hasattr(cpp_extension, "get_cxx_compiler") else "c++"
    return cxx


def _compiler_identity(cxx):
    try:
        r = subprocess.run([cxx, "-v"], capture_output=True, text=True, timeout=30, env=dict(os.environ, LC_ALL="C"))
    except (OSError, subprocess.SubprocessError):
        return None
    text = r.stdout + r.stderr
    return text if "gcc version" in text else None  # PCH as g++ makes it; clang's differ


def _system_includes(cpp_extension, with_cuda):
    try:
        inc = list(cpp_extension.include_paths("cuda" if with_cuda else "cpu"))
    except TypeError:  # torch < 2.6: include_paths(cuda=...)
        inc = list(cpp_extension.include_paths(cuda=with_cuda))
    py = sysconfig.get_path("include", scheme="posix_prefix")
    if py:
        inc.append(py)
    return inc


def main_cpp_flags(cpp_extension, extra_cflags, extra_include_paths, with_cuda):
    """The flags torch's ninja file gives g++ for main.cpp, without -DTORCH_EXTENSION_NAME."""
    flags = ["-DTORCH_API_INCLUDE_EXTENSION_H"]
    flags += ["-I" + os.path.abspath(p.strip()) for p in (extra_include_paths or [])]
    for p in _system_includes(cpp_extension, with_cuda):
        flags += ["-isystem", p]
    flags += ["-fPIC", "-std=c++20"]
    flags += [f.strip() for f in (extra_cflags or [])]
    return [f for f in flags if f]


def pch_key(compiler_id, torch_version, flags):
    h = hashlib.sha256()
    for part in [KEY_VERSION, "compiler=" + compiler_id, "torch=" + torch_version, "header=" + HEADER_TEXT]:
        h.update(part.encode() + b"\n")
    for f in flags:
        h.update(("flag=" + f + "\n").encode())
    return h.hexdigest()


class Pch:
    """One precompiled header in the cache: header (to -include), its .gch, the seconds its build took
    (0 when it was already there)."""

    def __init__(self, directory):
        self.dir = directory
        self.header = os.path.join(directory, HEADER)
        self.gch = self.header + ".gch"
        self.failed = os.path.join(directory, "failed.log")
        self.seconds = 0.0
        self.built = False


def ensure(cache_dir, cxx, compiler_id, torch_version, flags):
    """The shared precompiled header for these flags, built now when missing (one process builds it,
    the others wait on its lock), or None when it cannot be had (then candidates build without)."""
    key = pch_key(compiler_id, torch_version, flags)
    p = Pch(os.path.join(cache_dir, "pch", key[:32]))
    if os.path.exists(p.gch):
        return p
    if os.path.exists(p.failed):
        return None
    os.makedirs(p.dir, exist_ok=True)
    with open(os.path.join(p.dir, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or the process dies
        if os.path.exists(p.gch):
            return p
        if os.path.exists(p.failed):
            return None
        with open(p.header, "w") as f:
            f.write(HEADER_TEXT)
        fd, tmp = tempfile.mkstemp(prefix=".gch-", dir=p.dir)
        os.close(fd)
        cmd = [cxx, "-x", "c++-header"] + flags + [p.header, "-o", tmp]
        t0 = time.monotonic()
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=PCH_TIMEOUT_S)
            ok, log = r.returncode == 0, r.stdout + r.stderr
        except (OSError, subprocess.SubprocessError) as e:
            ok, log = False, "%s: %s" % (type(e).__name__, e)
        p.seconds = time.monotonic() - t0
        if not ok:
            if os.path.exists(tmp):  # g++ removes its output when it fails
                os.unlink(tmp)
            with open(p.failed, "w") as f:
                f.write(shlex.join(cmd) + "\n" + log)
            return None
        os.replace(tmp, p.gch)
        with open(os.path.join(p.dir, "command"), "w") as f:
            f.write(shlex.join(cmd) + "\n")
        p.built = True
    return p


def light_enabled():
    return os.environ.get("KERNELPRO_INLINE_LIGHT", "1") != "0"


def min_enabled():
    return os.environ.get("KERNELPRO_INLINE_MIN", "1") != "0"


def lighten(cuda_sources):
    """The candidate's cuda_sources without its own torch/extension.h and torch/torch.h includes, and
    what was done: (sources, "N include(s) ...") or (None, why not). load_inline writes cuda.cu as
    `#include <torch/types.h>`, cuda.h and cuda_runtime.h, then these sources; types.h declares
    torch::Tensor, every ATen operator, the factories and AT_DISPATCH, which is what a kernel's wrapper
    uses, while extension.h adds torch's C++ frontend (nn, optim, data, jit, serialize, ...) and the
    Python bindings, which nvcc then parses three times. Each include line becomes a comment of the
    same line, so the compiler's line numbers are unchanged. Sources that name what only the full
    headers declare are left as written; so are raw string literals, where a line that looks like an
    include is data."""
    if not cuda_sources:
        return None, "no cuda_sources"
    parts = [cuda_sources] if isinstance(cuda_sources, str) else list(cuda_sources)
    if not all(isinstance(x, str) for x in parts):
        return None, "cuda_sources are not strings"
    text = "\n".join(parts)
    m = NEEDS_FULL.search(text)
    if m:
        return None, "the source uses %s, which only torch/extension.h declares" % m.group(0)
    if RAW_STRING.search(text):
        return None, "the source has a raw string literal"
    n = 0
    out = []
    for part in parts:
        part, k = HEAVY_INCLUDE.subn(_as_comment, part)
        n += k
        out.append(part)
    if n == 0:
        return None, NEITHER
    what = "%d include(s) of torch's full headers left to torch/types.h" % n
    return (out[0] if isinstance(cuda_sources, str) else out), what


def _as_comment(m):
    return "// kernelpro: " + m.group(0).strip() + " (torch/types.h is included)"


# An include of torch's full headers, alone on its line (a trailing comment allowed).
HEAVY_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]torch/(?:extension|torch)\.h[>"][ \t]*(?://[^\n]*)?$', re.M)
# What torch/types.h does not declare: pybind11 and the C++ frontend's namespaces (torch/all.h).
NEEDS_FULL = re.compile(
    r"\bpy::|\bpybind11\b|\bPYBIND11_\w*|\btorch::(?:nn|optim|data|jit|serialize|autograd|fft|special|"
    r"linalg|nested|sparse|cuda|mps|xpu|python|utils|enumtype|stable)\b"
)
RAW_STRING = re.compile(r'\b(?:u8|u|U|L)?R"')
NEITHER = "the source includes neither torch/extension.h nor torch/torch.h"


# The min cuda.cu: in place of load_inline's torch/types.h (ATen.h, hence every operator of ATen's
# Functions.h, ~12 s of parsing for each of nvcc's three parsers), a header of kernelpro's own with
# ATen's Tensor class (every method), AT_DISPATCH, and the operator headers (ATen/ops/NAME.h, every
# overload of at::NAME) of each NAME the source calls or names as torch::NAME / at::NAME; torch:: is
# at:: plus the dtype names torch/types.h adds. What it leaves out: torch::'s own factories (the
# autograd wrappers of at::'s, which differ only in requires_grad: a source that says requires_grad
# is not built min), Tensor operators (a + b: TensorOperators.h includes Functions.h; a source that
# uses them fails to compile and is built light), torch::tensor (an initializer list), indexing,
# torch/library.h.
MIN_KEY_VERSION = "kernelpro-inline-min-v1"
MIN_SKIP = re.compile(r"\brequires_grad\b|\bTORCH_LIBRARY\w*|\b(?:torch|at)::(?:indexing|Library|tensor)\b")
MIN_CALLED = re.compile(r"\b([A-Za-z_]\w*)[ \t]*\(")
MIN_QUALIFIED = re.compile(r"\b(?:torch|at)[ \t]*::[ \t]*([A-Za-z_]\w*)")
MIN_HEAD = """// kernelpro's min prefix of a load_inline cuda.cu (harness/kernelpro/inline_cache.py), in place of
// torch/types.h: ATen's Tensor, AT_DISPATCH and the operators this source calls.
#pragma once
#include <ATen/core/Tensor.h>
#include <ATen/Dispatch.h>
#include <c10/util/Exception.h>
#include <optional>
"""
MIN_TAIL = """namespace torch {
using namespace at; // NOLINT
using std::nullopt; // NOLINT
using std::optional; // NOLINT
using Dtype = at::ScalarType;
constexpr auto kUInt8 = at::kByte;
constexpr auto kInt8 = at::kChar;
constexpr auto kInt16 = at::kShort;
constexpr auto kInt32 = at::kInt;
constexpr auto kInt64 = at::kLong;
constexpr auto kUInt16 = at::kUInt16;
constexpr auto kUInt32 = at::kUInt32;
constexpr auto kUInt64 = at::kUInt64;
constexpr auto kFloat16 = at::kHalf;
constexpr auto kFloat32 = at::kFloat;
constexpr auto kFloat64 = at::kDouble;
constexpr auto kU8 = kUInt8;
constexpr auto kU16 = kUInt16;
constexpr auto kU32 = kUInt32;
constexpr auto kU64 = kUInt64;
constexpr auto kI8 = kInt8;
constexpr auto kI16 = kInt16;
constexpr auto kI32 = kInt32;
constexpr auto kI64 = kInt64;
constexpr auto kF16 = kFloat16;
constexpr auto kF32 = kFloat32;
constexpr auto kF64 = kFloat64;
} // namespace torch
"""


def min_header_text(text, ops_dir):
    """The min header for a cuda.cu whose candidate text is `text`, and how many operator headers it has."""
    names = set(MIN_CALLED.findall(text)) | set(MIN_QUALIFIED.findall(text))
    ops = sorted(n for n in names if os.path.isfile(os.path.join(ops_dir, n + ".h")))
    return MIN_HEAD + "".join("#include <ATen/ops/%s.h>\n" % n for n in ops) + MIN_TAIL, len(ops)


def min_tier(cache_dir, cpp_extension, signature, cpp_sources, cuda_sources, note):
    """The min build's (what, argument changes), or None (note["min"] says why): load_inline's own
    main.cpp text (torch/extension.h first, as torch writes it) and cuda.cu with the min header in
    torch/types.h's place, cuda.h and cuda_runtime.h, then the sources, so every line keeps its number.
    Asked with no_implicit_headers, which torch then leaves to us."""
    if "no_implicit_headers" not in signature.parameters:
        note["min"] = "this torch's load_inline has no no_implicit_headers"
        return None
    parts = [cuda_sources] if isinstance(cuda_sources, str) else list(cuda_sources)
    cpp = [cpp_sources] if isinstance(cpp_sources, str) else list(cpp_sources or [])
    if not all(isinstance(x, str) for x in parts + cpp):
        note["min"] = "sources that are not strings"
        return None
    text = "\n".join(parts)
    m = MIN_SKIP.search(text)
    if m:
        note["min"] = "the source uses %s" % m.group(0)
        return None
    ops_dir = None
    try:
        for d in _system_includes(cpp_extension, True):
            aten = os.path.join(d, "ATen")
            if os.path.isfile(os.path.join(aten, "core", "Tensor.h")) and os.path.isdir(os.path.join(aten, "ops")):
                ops_dir = os.path.join(aten, "ops")
                break
    except Exception:  # noqa: BLE001 (torch's include paths unknown: no min build)
        ops_dir = None
    if ops_dir is None:
        note["min"] = "no ATen/ops headers among torch's include directories"
        return None
    header, nops = min_header_text(text, ops_dir)
    key = hashlib.sha256((MIN_KEY_VERSION + "\n" + ops_dir + "\n" + header).encode()).hexdigest()[:24]
    path = os.path.join(cache_dir, "min", key + ".h")
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".min-", dir=os.path.dirname(path))
        with os.fdopen(fd, "w") as f:
            f.write(header)
        os.replace(tmp, path)
    if not NVCC_SAFE.match(path):
        note["min"] = "a cache path that an include line would need quoted"
        return None
    cuda = ['#include "%s"' % path, "#include <cuda.h>", "#include <cuda_runtime.h>"] + parts
    what = "ATen's Tensor and %d operator header(s) in place of torch/types.h" % nops
    return what, {"no_implicit_headers": True, "cpp_sources": ["#include <torch/extension.h>"] + cpp,
                  "cuda_sources": cuda}


NVCC_SAFE = re.compile(r"^[A-Za-z0-9_./+,@%=-]+$")


def nvcc_halves(cpp_extension):
    """Points torch's ninja file at harness/kp_nvcc.py (nvcc with its host and device halves side by
    side: kernelpro/nvcc_par.py) through PYTORCH_NVCC. Returns None when done, else why not."""
    if os.environ.get("KERNELPRO_INLINE_NVCC", "1") == "0":
        return "KERNELPRO_INLINE_NVCC=0"
    script = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "kp_nvcc.py")
    ours = "%s -E -s -B %s" % (sys.executable, script)
    if os.environ.get("PYTORCH_NVCC") not in (None, ours):
        return "PYTORCH_NVCC is set to the user's own"
    join = getattr(cpp_extension, "_join_cuda_home", None)
    try:
        real = join("bin", "nvcc") if join else None
    except Exception:  # noqa: BLE001 (torch raises when it finds no CUDA: the build will say so)
        real = None
    if not real or not os.path.isfile(script):
        return "no nvcc or no kp_nvcc.py"
    if not (NVCC_SAFE.match(sys.executable) and NVCC_SAFE.match(script)):
        return "a path that ninja's command line would need quoted"
    os.environ["PYTORCH_NVCC"] = ours
    os.environ["KERNELPRO_REAL_NVCC"] = real
    return None


def _nvcc_notes(path):
    """What kp_nvcc.py wrote for one load_inline call: a line for the build_note, or None."""
    try:
        with open(path, encoding="utf-8") as f:
            records = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError):
        return None
    parts = []
    for r in records:
        if r.get("mode") == "halves":
            split = ""
            if all(isinstance(r.get(k), (int, float)) for k in ("host", "device", "final")):
                split = ": host half %.1f s beside the device half %.1f s, then the host compile %.1f s" % (
                    r["host"], r["device"], r["final"])
            parts.append("nvcc's host and device halves side by side (%.1f s%s)" % (float(r.get("s") or 0), split))
        else:
            parts.append("nvcc as is (%s)" % str(r.get("why"))[:160])
    return "; ".join(parts) or None


def install(cache_dir, cpp_extension=None, torch_version=None):
    """Wraps cpp_extension.load_inline (torch.utils.cpp_extension unless given): main.cpp with the
    shared precompiled header, cuda.cu with torch's light header when that builds (the sources as
    written otherwise). Idempotent; nothing happens when disabled or on another OS."""
    if not enabled() or not sys.platform.startswith("linux"):
        return False
    if cpp_extension is None:
        import torch.utils.cpp_extension as cpp_extension  # noqa: PLC0415 (only load_inline candidates)
    if getattr(cpp_extension.load_inline, "_kp_inline_cache", False):
        return True
    if torch_version is None:
        import torch  # noqa: PLC0415

        torch_version = "%s %s" % (torch.__version__, os.path.dirname(torch.__file__))
    original = cpp_extension.load_inline
    signature = inspect.signature(original)
    state = {"nvcc_why": nvcc_halves(cpp_extension)}

    def with_pch(a, note):
        """Adds the precompiled header to main.cpp's flags, or says in note["why"] why not."""
        cxx = _compiler(cpp_extension)
        if "id" not in state:
            state["id"] = _compiler_identity(cxx)
        if state["id"] is None:
            note["why"] = "the C++ compiler is not g++"
            return
        with_cuda = a.get("with_cuda")
        if with_cuda is None:
            with_cuda = bool(a.get("cuda_sources"))
        extra = a.get("extra_cflags")
        extra = [extra] if isinstance(extra, str) else list(extra or [])
        flags = main_cpp_flags(cpp_extension, extra, a.get("extra_include_paths"), with_cuda)
        try:
            p = ensure(cache_dir, cxx, state["id"], torch_version, flags)
        except OSError as e:  # the cache cannot be written: the candidate builds as it would without
            note["why"] = "the precompiled header's cache failed (%s: %s)" % (type(e).__name__, e)
            return
        if p is None:
            note["why"] = "the precompiled header could not be built (see %s/pch/*/failed.log)" % cache_dir
            return
        note["pch"] = p.gch
        note["pch_built_s"] = p.seconds
        a["extra_cflags"] = extra + ["-include", p.header]

    def load_inline(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        a = bound.arguments
        note = {"name": a.get("name"), "pch": None, "pch_built_s": 0.0, "why": None, "light": None, "light_s": None,
                "nvcc": None, "cpu_s": None}
        calls.append(note)
        cpu0 = _children_cpu()
        try:
            if not a.get("cuda_sources"):
                return build(a, bound, note)
            if state["nvcc_why"] is not None:
                note["nvcc"] = "nvcc as is (%s)" % state["nvcc_why"]
                return build(a, bound, note)
            fd, notes = tempfile.mkstemp(prefix="kp-nvcc-notes-")
            os.close(fd)
            os.environ["KERNELPRO_NVCC_NOTES"] = notes
            try:
                return build(a, bound, note)
            finally:
                os.environ.pop("KERNELPRO_NVCC_NOTES", None)
                note["nvcc"] = _nvcc_notes(notes)
                os.unlink(notes)
        finally:
            note["cpu_s"] = round(_children_cpu() - cpu0, 1)

    def build(a, bound, note):
        args, kwargs = bound.args, bound.kwargs
        if a.get("use_pch") or a.get("no_implicit_headers"):
            note["why"] = "the candidate asks for torch's own precompiled header or no implicit headers"
            return original(*args, **kwargs)  # its own arguments, untouched
        with_pch(a, note)
        light, what = lighten(a.get("cuda_sources")) if light_enabled() else (None, "KERNELPRO_INLINE_LIGHT=0")
        note["light"] = "as written: " + what
        written = {k: a[k] for k in ("cpp_sources", "cuda_sources", "no_implicit_headers") if k in a}
        tiers = []  # (label, what, changes to the arguments), lightest first; then the sources as written
        if light is not None:
            tiers.append(("light", what, {"cuda_sources": light}))
        base = light if light is not None else (a.get("cuda_sources") if what == NEITHER else None)
        if base is not None and light_enabled() and min_enabled():
            m = min_tier(cache_dir, cpp_extension, signature, a.get("cpp_sources"), base, note)
            if m is not None:
                tiers.insert(0, ("min", m[0], m[1]))
        fails = []  # (tier, exception type) of each lighter build that failed
        for label, what_tier, changes in tiers:
            a.update(changes)
            _fresh_lists(a, written)
            t0, wall0 = time.monotonic(), time.time()
            try:
                module = original(*bound.args, **bound.kwargs)
            except Exception as e:  # noqa: BLE001 (any failure of a lighter build: the next one, then as written)
                note["light_s"] = round((note.get("light_s") or 0.0) + time.monotonic() - t0, 3)
                for k in changes:
                    a.pop(k, None)
                a.update(written)
                if main_cpp_failed(cpp_extension, a, wall0):
                    note["light"] = ("%s: the build failed in main.cpp (%s), which is the same file and flags as "
                                     "written, so it was not built again" % (label, type(e).__name__))
                    raise
                fails.append((label, type(e).__name__))
                if isinstance(e, ImportError) or not may_be_headers(str(e)):
                    break  # built but not loadable, or the compiler's errors are the source's own: alike lighter
                continue
            note["light_s"] = round((note.get("light_s") or 0.0) + time.monotonic() - t0, 3)
            note["light"] = label + ": " + what_tier + ("" if not fails else " (after %s)" % _failed(fails))
            return module
        if fails:
            note["light"] = "as written: %s, so it was built again as written" % _failed(fails)
            if len(fails) < len(tiers):
                note["light"] += " (the failure is the source's own, which a lighter header cannot cause)"
            _fresh_lists(a, written)
        return original(*bound.args, **bound.kwargs)

    load_inline._kp_inline_cache = True
    load_inline.__wrapped__ = original
    cpp_extension.load_inline = load_inline
    return True


# What a compiler says when a declaration is missing, which a heavier header could supply (EDG's words
# for nvcc's front end, g++'s for the host compile after it); anything else is the source's own error.
HEADERISH = re.compile(
    r'is undefined|has no member|no instance of|no operator "|incomplete type|is not a template|'
    r'must be a class or namespace name|expected a type specifier|cannot open source file|'
    r"was not declared|is not a member of|no match(?:ing)? (?:for|function)|does not name a type|"
    r"has not been declared|No such file or directory|invalid use of incomplete")


def may_be_headers(message):
    """Whether a failed lighter build's error text (torch puts ninja's output in the exception) could come
    from what the lighter header leaves out. False only when compiler errors are there and none is of
    that kind; then the build as written follows at once, since the next lighter one would fail the
    same way (a genuine compile error costs two builds, not three). Either answer keeps the verdict."""
    if "error" not in message:
        return True  # no compiler output to judge by (a killed build, another failure): try the next
    return bool(HEADERISH.search(message))


def _children_cpu():
    """CPU seconds (user + system) of this process's waited-for children and theirs: the compilers
    ninja ran for a build (what many builds side by side on one host are bound by)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _fresh_lists(a, written):
    """A copy of each source list the candidate passed: load_inline inserts its includes into the list
    it is given, so an attempt that failed must not leave them in the candidate's for the next one."""
    for k in ("cpp_sources", "cuda_sources"):
        if isinstance(a.get(k), list) and a.get(k) is written.get(k):
            a[k] = list(a[k])


def _failed(fails):
    """'the light build failed (RuntimeError)', 'the min and light builds failed (RuntimeError, ...)'."""
    labels = " and ".join(label for label, _ in fails)
    return "the %s build%s failed (%s)" % (labels, "s" if len(fails) > 1 else "", ", ".join(e for _, e in fails))


def main_cpp_failed(cpp_extension, a, since):
    """Whether a failed load_inline build failed in main.cpp alone: this build made cuda.cuda.o (nvcc
    succeeded) and no main.o. main.cpp and its flags are the same whether cuda.cu is light or as
    written, so building again as written would fail the same way. False when unsure (no build
    directory to look in, an object older than the build), which builds again."""
    try:
        d = a.get("build_directory") or cpp_extension._get_build_directory(a.get("name"), False)
        cuda_o, main_o = os.path.join(d, "cuda.cuda.o"), os.path.join(d, "main.o")
        fresh = os.path.getmtime(cuda_o) >= since - 1.0
        main_made = os.path.exists(main_o) and os.path.getmtime(main_o) >= since - 1.0
    except Exception:  # noqa: BLE001 (torch's private helper moved, a file vanished: build again)
        return False
    return fresh and not main_made


def describe(notes=None, cap=1000):
    """One line per load_inline call of this process, for the verdict's build_note; None when none."""
    lines = []
    for n in calls if notes is None else notes:
        if n.get("pch"):
            built = " (built now, %.1f s)" % n["pch_built_s"] if n.get("pch_built_s") else ""
            pch = "main.cpp with the shared precompiled header" + built
        else:
            pch = "main.cpp plain (%s)" % (n.get("why") or "no precompiled header")
        light = n.get("light") or "as written"
        if n.get("light_s") is not None:
            light += " (%.1f s)" % n["light_s"]
        nvcc = "; " + n["nvcc"] if n.get("nvcc") else ""
        cpu = "; %.1f CPU-s in the build's processes" % n["cpu_s"] if n.get("cpu_s") else ""
        lines.append("load_inline %s: %s; cuda.cu %s%s%s" % (n.get("name"), pch, light, nvcc, cpu))
    if not lines:
        return None
    text = "\n".join(lines)
    return text if len(text) <= cap else text[: cap - 3] + "..."


def install_for(candidate_path, build_cache):
    """The adapter's hook before it imports a candidate: install() when the candidate's source calls
    load_inline (no other candidate imports torch.utils.cpp_extension). Never raises: a cache that
    cannot be had leaves the candidate to build as it would without. Returns what was done, or None."""
    try:
        with open(candidate_path, encoding="utf-8", errors="replace") as f:
            if "load_inline" not in f.read():
                return None
        return {"installed": install(os.path.join(build_cache, "inline")), "calls": calls}
    except Exception as e:  # noqa: BLE001 (the candidate's import says what is wrong, if anything is)
        return {"installed": False, "error": "%s: %s" % (type(e).__name__, e)}

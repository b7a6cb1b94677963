"""What a compile_error's log may say (issue 30): the compiler's words about the candidate's own files
and the toolchain's headers, and for any other file its location with the text withheld. nvcc and g++
quote the offending line under each diagnostic, and a Python traceback quotes each frame's source
line, so a candidate that includes or compiles a file outside its own (a key file, another user's
source) would otherwise get that file's lines back in the repair prompt. The native path does the
same in C (lib/eval/preproc.c, kp_preproc_own_log); this one serves the PyTorch adapter, which knows
where torch, Python and the extension's build directory are.

Pure Python; no torch."""

import os
import re
import sysconfig

SYSTEM_DIRS = ("/usr/include", "/usr/local/include", "/usr/lib/gcc", "/usr/lib64/gcc", "/usr/lib/llvm",
               "/usr/lib/clang")
WITHHELD = "[what the compiler said about this file is withheld: it is not the candidate's and not a toolchain header]"
CAP = 1 << 20

# "FILE(12): error", "FILE:12:3: error", "In file included from FILE:3:", "                 from FILE:3,"
_INCLUDED = re.compile(r"^(?:In file included from |                 from )(.+?):\d+[:,]")
_NVCC = re.compile(r"^(\S[^()\n]*?)\(\d+\): ")
_GCC = re.compile(r"^(\S[^:\n]*?):\d+:(?:\d+:)? ")
_FRAME = re.compile(r'^\s*File "([^"\n]+)", line \d+')


def roots_from_env(candidate=None, torch_dir=None):
    """The places whose text a log may quote: kernelpro's harness (its own frames in a traceback), the
    candidate's file, the extension's build directory
    (TORCH_EXTENSIONS_DIR), torch's package, Python's own libraries and headers, the CUDA toolkit
    (KP_NVCC's parent), the fast path's build cache (KP_BUILD_CACHE), CUTLASS (KP_CUTLASS_INCLUDES)
    and the system's headers."""
    roots = list(SYSTEM_DIRS)
    roots.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # kernelpro's harness
    if candidate:
        roots.append(os.path.abspath(candidate))
    if os.environ.get("TORCH_EXTENSIONS_DIR"):
        roots.append(os.environ["TORCH_EXTENSIONS_DIR"])
    if torch_dir:
        roots.append(torch_dir)
    for key in ("stdlib", "platstdlib", "purelib", "platlib", "include", "platinclude"):
        p = sysconfig.get_path(key)
        if p:
            roots.append(p)
    if os.environ.get("KP_BUILD_CACHE"):  # the fast path's builds: the candidate's sources alone
        roots.append(os.environ["KP_BUILD_CACHE"])
    nvcc = os.environ.get("KP_NVCC")
    if nvcc:
        roots.append(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
        roots.append(os.path.dirname(os.path.dirname(nvcc)))
    for inc in (os.environ.get("KP_CUTLASS_INCLUDES") or "").split("\x1f"):
        if inc:
            roots.append(inc)
    # Never "/" (an nvcc at /bin/nvcc would make it the toolkit's root): under it is every file.
    return [r for r in (os.path.normpath(r) for r in roots if r) if r != "/"]


def _under(path, roots):
    p = os.path.normpath(path)
    return any(p == r or p.startswith(r.rstrip("/") + "/") for r in roots)


def _named_file(line):
    for pat in (_INCLUDED, _FRAME, _NVCC, _GCC):
        m = pat.match(line)
        if m:
            return m.group(1)
    return None


def confine(log, roots):
    """The log with what it quotes of files outside `roots` withheld: each diagnostic or traceback
    frame about such a file keeps its location, and the lines that quote it (indented, or empty,
    after it) are left out. A file named without a '/' is in the build directory, the candidate's."""
    if not log:
        return log
    log = log[:CAP]
    out = []
    withheld = False
    for line in log.split("\n"):
        f = _named_file(line)
        if f is not None:
            withheld = "/" in f and not _under(f, roots)
            if withheld:
                out.append("%s: %s" % (f, WITHHELD))
                continue
        elif withheld and (line == "" or line[0] in " \t"):
            continue
        else:
            withheld = False
        out.append(line)
    return "\n".join(out)

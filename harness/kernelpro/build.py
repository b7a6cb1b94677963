"""Build cache for fast-path CUDA sources: nvcc -shared into <cache>/<key>/lib.so.

The key is the same SHA-256 that kernelpro's C side computes (lib/eval/build.c,
kp_build_key): source, nvcc flags, nvcc version and target architecture, framed
so that no two different inputs share a key. Every build runs in its own fresh
directory and is renamed into place, so parallel builds never collide; a build
another process finished first simply wins.

Pure Python (no torch): unit-tested on machines without a GPU.
"""

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import time

KEY_VERSION = "kernelpro-build-v2"  # v2: -gencode for sm_X, no embedded PTX
LIB_NAME = "lib.so"
LOG_NAME = "build.log"


class BuildError(Exception):
    """nvcc failed; .log holds its output."""

    def __init__(self, message, log=""):
        super().__init__(message)
        self.log = log


def cache_key(source, flags, nvcc_version, arch, extras=()):
    """The cache key: hex SHA-256 over a line-framed description of the build."""
    h = hashlib.sha256()
    src = source.encode("utf-8") if isinstance(source, str) else bytes(source)
    h.update((KEY_VERSION + "\n").encode())
    h.update(("arch=" + arch + "\n").encode())
    h.update(("nvcc=" + nvcc_version + "\n").encode())
    for f in flags:
        if "\n" in f:
            raise ValueError("nvcc flag with a newline: %r" % f)
        h.update(("flag=" + f + "\n").encode())
    for e in extras:
        eb = e.encode("utf-8") if isinstance(e, str) else bytes(e)
        h.update(("extra=" + hashlib.sha256(eb).hexdigest() + "\n").encode())
    h.update(("source-bytes=%d\n" % len(src)).encode())
    h.update(src)
    return h.hexdigest()


def nvcc_target(arch):
    """nvcc's target option for `arch` (lib/eval/build.c kp_nvcc_target): SASS for that GPU only for
    "sm_90a" (-arch=sm_90a would also compile and embed compute_90 PTX, which nothing reads: a second
    cicc and ptxas pass), PTX only for "compute_90", as asked."""
    if arch.startswith("sm_"):
        return "-gencode=arch=compute_%s,code=%s" % (arch[3:], arch)
    return "-arch=" + arch


def nvcc_argv(nvcc, arch, flags, src_name, out_name, includes=()):
    """The nvcc command line for a shared library (the same as lib/eval/build.c)."""
    argv = [nvcc, "-shared", "-Xcompiler", "-fPIC", nvcc_target(arch)]
    argv += list(flags)
    for inc in includes:
        argv.append("-I" + inc)
    argv += ["-o", out_name, src_name]
    return argv


# CUTLASS/CuTe sources: the same rules as lib/codesearch/cutlass.c (kp_cutlass_build_flags).
_CUTLASS_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"](cute|cutlass)/', re.M)
_ARCH_A_WORDS = ("wgmma", "GMMA", "SM90_TMA", "make_tma_", "cp.async.bulk.tensor", "setmaxnreg", "warpgroup_reg_",
                 "KernelTmaWarpSpecialized", "SM90_64x")


def source_build(tc, source, flags):
    """(flags, arch, extras) for `source`: CUTLASS users get -std=c++17, --expt-relaxed-constexpr and
    its include directories (and the version in the key); WGMMA/TMA users get sm_90a for sm_90."""
    arch = tc.arch
    if arch == "sm_90" and any(w in source for w in _ARCH_A_WORDS):
        arch = "sm_90a"
    if not _CUTLASS_INCLUDE.search(source):
        return list(flags), arch, ()
    if not tc.cutlass or not tc.cutlass.get("include"):
        raise BuildError("the source includes cute/ or cutlass/ headers, but no CUTLASS was found: run "
                         "tools/install-cutlass.sh (or 'make deps'), 'pip install nvidia-cutlass', or set "
                         "CUTLASS_PATH to a CUTLASS checkout")
    extra = ["-std=c++17", "--expt-relaxed-constexpr"] + ["-I" + d for d in tc.cutlass["include"]]
    return list(flags) + extra, arch, ("cutlass %s\n" % tc.cutlass.get("version", "?"),)


class Toolchain:
    """Where nvcc is and what it is; from the adapter's config or the environment."""

    def __init__(self, nvcc=None, nvcc_version=None, arch=None, cache=None, flags=None, cutlass=None):
        self.nvcc = nvcc or os.environ.get("KP_NVCC") or _default_nvcc()
        self.arch = arch or os.environ.get("KP_ARCH") or "sm_90"
        self.cache = cache or os.environ.get("KP_BUILD_CACHE") or _default_cache()
        env_flags = os.environ.get("KP_NVCC_FLAGS")
        if flags is not None:
            self.flags = list(flags)
        elif env_flags:
            self.flags = env_flags.split("\x1f")
        else:
            self.flags = ["-O3", "-lineinfo"]
        self._version = nvcc_version or os.environ.get("KP_NVCC_VERSION")
        # {"include": [dirs], "version": "4.2.0"} from kernelpro (lib/codesearch), or None
        if cutlass is None and os.environ.get("KP_CUTLASS_INCLUDES"):
            cutlass = {"include": os.environ["KP_CUTLASS_INCLUDES"].split("\x1f"),
                       "version": os.environ.get("KP_CUTLASS_VERSION", "?")}
        self.cutlass = cutlass

    @property
    def version(self):
        if not self._version:
            self._version = nvcc_version_of(self.nvcc)
        return self._version

    def to_env(self):
        env = {
            "KP_NVCC": self.nvcc,
            "KP_NVCC_VERSION": self.version,
            "KP_ARCH": self.arch,
            "KP_BUILD_CACHE": self.cache,
            "KP_NVCC_FLAGS": "\x1f".join(self.flags),
        }
        if self.cutlass and self.cutlass.get("include"):
            env["KP_CUTLASS_INCLUDES"] = "\x1f".join(self.cutlass["include"])
            env["KP_CUTLASS_VERSION"] = self.cutlass.get("version", "?")
        return env


def _default_nvcc():
    home = os.environ.get("CUDA_HOME")
    for cand in ([os.path.join(home, "bin", "nvcc")] if home else []) + ["/usr/local/cuda/bin/nvcc"]:
        if os.access(cand, os.X_OK):
            return cand
    return shutil.which("nvcc") or "nvcc"


def _default_cache():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "kernelpro", "builds")


def nvcc_version_of(nvcc):
    """The last line of `nvcc --version` ("Build cuda_13.0.r13.0/compiler.36424714_0")."""
    out = subprocess.run([nvcc, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         timeout=60, check=False).stdout.decode("utf-8", "replace")
    lines = [l.strip() for l in out.splitlines() if l.strip()]
    return lines[-1] if lines else "unknown"


class Build:
    """One build, possibly still running (started early so it overlaps `import torch`)."""

    def __init__(self, tc, source, name, flags, timeout):
        self.tc = tc
        self.source = source
        self.name = _safe_name(name)
        self.flags, self.arch, extras = source_build(tc, source, flags)
        self.key = cache_key(source, self.flags, tc.version, self.arch, extras)
        self.final = os.path.join(tc.cache, self.key)
        self.lib = os.path.join(self.final, LIB_NAME)
        self.cached = False
        self.seconds = 0.0
        self._proc = None
        self._tmp = None
        self._t0 = time.monotonic()
        self._timeout = timeout
        self._done = False
        self._error = None
        if os.path.exists(self.lib):
            self.cached = True
            self._done = True
            return
        os.makedirs(tc.cache, exist_ok=True)
        self._tmp = tempfile.mkdtemp(prefix="tmp-%s-" % self.key[:16], dir=tc.cache)
        src_name = self.name + ".cu"
        with open(os.path.join(self._tmp, src_name), "w", encoding="utf-8") as f:
            f.write(source)
        argv = nvcc_argv(tc.nvcc, self.arch, self.flags, src_name, LIB_NAME)
        self._log = open(os.path.join(self._tmp, LOG_NAME), "w+b")
        try:
            self._proc = subprocess.Popen(argv, cwd=self._tmp, stdout=self._log, stderr=subprocess.STDOUT,
                                          stdin=subprocess.DEVNULL)
        except OSError as e:
            self._fail("cannot run nvcc '%s': %s" % (tc.nvcc, e), "")

    def _fail(self, msg, log):
        self._error = BuildError(msg, log)
        self._done = True
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)

    def wait(self):
        """Returns the library path, or raises BuildError with nvcc's output."""
        if not self._done:
            remaining = max(1.0, self._timeout - (time.monotonic() - self._t0)) if self._timeout else None
            try:
                rc = self._proc.wait(timeout=remaining)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
                self._log.close()
                self._fail("nvcc timed out after %.0f s" % self._timeout, "")
                raise self._error
            self._log.seek(0)
            log = self._log.read().decode("utf-8", "replace")
            self._log.close()
            self.seconds = time.monotonic() - self._t0
            if rc != 0 or not os.path.exists(os.path.join(self._tmp, LIB_NAME)):
                self._fail("nvcc failed (exit status %d) building '%s.cu'" % (rc, self.name), log)
            else:
                self._publish()
                self._done = True
        if self._error:
            raise self._error
        return self.lib

    def _publish(self):
        try:
            os.rename(self._tmp, self.final)
        except OSError:
            # Another build of the same key finished first: theirs is identical; use it.
            shutil.rmtree(self._tmp, ignore_errors=True)
        self._tmp = None


def _safe_name(name):
    keep = "".join(c if (c.isalnum() or c == "_") else "_" for c in (name or "kernel"))
    return keep[:64] or "kernel"


# Builds started (or finished) in this process, by key: the prebuilds the adapter starts before
# importing torch are picked up here by kernelpro.fast.load_cuda.
_registry: dict = {}


def start(tc, source, name="kernel", flags=None, timeout=300):
    flags = tc.flags if flags is None else list(flags)
    all_flags, arch, extras = source_build(tc, source, flags)
    key = cache_key(source, all_flags, tc.version, arch, extras)
    b = _registry.get(key)
    if b is None:
        b = Build(tc, source, name, flags, timeout)
        _registry[key] = b
    return b


def registry():
    return dict(_registry)

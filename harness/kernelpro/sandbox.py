"""The sandbox prelude of one PyTorch-adapter evaluation child (docs/eval.md, "The sandbox").

kp_torch.py calls apply(adapter) once, before it reads anything of the candidate; a fork-server worker
calls it in each child it forks. The limits, the network namespace and the seccomp filter are the C
module the native harness uses (lib/eval/sandbox.c, loaded here as libkp_sandbox.so); Python adds
what only it can do:

1. at once, while the process has a single thread: the limits and the network namespace (C);
2. an audit hook (sys.addaudithook) that refuses, and records with the file and line, every way Python
   starts a process (os.system, subprocess, os.exec*, os.posix_spawn, os.spawn*, os.fork, os.forkpty,
   pty.spawn), signals to other processes, and ctypes look-ups of libc's process functions;
3. the seccomp filter on the main thread and every thread it starts, so that native code run while
   the candidate is imported (an extension's constructor, a CUDA host callback) cannot start a process
   either. Builds still must (nvcc, ninja, the host compiler): a spawner thread started before the
   filter runs Popen for callers inside PyTorch, Triton, setuptools or kernelpro's own build module;
4. when the first phase that calls the candidate starts ("correctness", "run"): the filter on every
   thread, and the spawner stopped. From then on nothing in the process can start a process.

At the end the result's "sandbox" object says what was in force; calls refused on behalf of the
candidate become the refusing check process_spawn, and calls refused before the candidate was loaded
(the task's reference, the environment) a harness_error.

apply() wraps three methods of the adapter it is given: phase(name, limit_key) (to lock),
finish(status, message, log) (to report) and, when present, time_compiled(inputs) (refusals while the
reference's torch.compile runs are not the candidate's). It reads adapter.cfg ("mode", "candidate",
"limits", "loop_s", "checks_off") and writes adapter.result["sandbox"] and adapter.flags.
"""

import ctypes
import importlib.machinery
import importlib.util
import json
import os
import queue
import subprocess
import sys
import sysconfig
import threading

LIB_NAME = "libkp_sandbox.so"
LOCK_PHASES = ("correctness", "run")
SPAWN_EVENTS = frozenset(("os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
                          "pty.spawn", "subprocess.Popen"))
# libc functions that start a process (or reach any system call) when called through ctypes.
CTYPES_NAMES = frozenset(("system", "popen", "fork", "vfork", "_Fork", "clone", "clone3", "syscall", "execv",
                          "execve", "execvp", "execvpe", "execl", "execle", "execlp", "fexecve", "posix_spawn",
                          "posix_spawnp", "ptrace", "kill"))
TRUSTED_PACKAGES = ("torch", "triton", "setuptools", "distutils", "ninja")
MAX_RECORDS = 8
SPAWN_PART = 4  # KP_SANDBOX_SPAWN in lib/eval/sandbox.h

_state = None  # one sandbox per process


def find_lib():
    """libkp_sandbox.so: $KERNELPRO_SANDBOX_LIB (kernelpro sets it), $KERNELPRO_LIBEXEC, then the build
    and install trees around this file. None when there is none."""
    here = os.path.dirname(os.path.abspath(__file__))
    cands = [os.environ.get("KERNELPRO_SANDBOX_LIB")]
    if os.environ.get("KERNELPRO_LIBEXEC"):
        cands.append(os.path.join(os.environ["KERNELPRO_LIBEXEC"], LIB_NAME))
    root = os.path.dirname(os.path.dirname(here))  # <root>/harness/kernelpro
    cands.append(os.path.join(root, "build", "libexec", "kernelpro", LIB_NAME))
    cands.append(os.path.join(os.path.dirname(os.path.dirname(root)), "libexec", "kernelpro", LIB_NAME))
    for c in cands:
        if c and os.path.isfile(c):
            return c
    return None


def _package_dir(name):
    try:
        if name == "distutils":
            # Only sys.path: setuptools' _distutils_hack answers find_spec("distutils") by importing
            # setuptools._distutils (0.15-0.2 s at every evaluation's start), and the spec it returns has
            # no directory (it lies inside setuptools', trusted already).
            spec = importlib.machinery.PathFinder.find_spec(name)
        else:
            spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.realpath(list(spec.submodule_search_locations)[0]) + os.sep


class _Spawner:
    """A thread started before the main thread's filter: until the lock, the one place left in the
    process that can start a process. It runs what Sandbox hands it: Popen's own functions, for callers
    already vetted."""

    def __init__(self):
        self._q = queue.Queue()
        self._t = threading.Thread(target=self._loop, name="kernelpro-sandbox-spawner", daemon=True)
        self._t.start()
        self.ident = self._t.ident

    def _loop(self):
        while True:
            item = self._q.get()
            if item is None:
                return
            fn, popen, args, kwargs, box, done = item
            try:
                box.append((True, fn(popen, *args, **kwargs)))
            except BaseException as e:  # handed to the caller's thread
                box.append((False, e))
            done.set()

    def call(self, fn, popen, args, kwargs):
        box, done = [], threading.Event()
        self._q.put((fn, popen, args, kwargs, box, done))
        done.wait()
        ok, value = box[0]
        if ok:
            return value
        raise value

    def stop(self):
        self._q.put(None)
        self._t.join()


class Sandbox:
    def __init__(self, adapter):
        cfg = adapter.cfg
        self.adapter = adapter
        self.mode = cfg.get("mode", "eval")
        cand = cfg.get("candidate")
        self.candidate_names = {cand, os.path.realpath(cand)} if cand else set()
        self.off = set(w for w in os.environ.get("KERNELPRO_SANDBOX", "").replace(",", " ").split())
        self.hook_why = None
        self.filter = False     # the C filter is on the main thread (or every thread)
        self.children = set()   # build tools the spawner started
        self.lib = None
        self.lib_why = None
        self.locked = False
        self.spawner = None
        self.hooked = False
        self.cand_started = False
        self.in_reference = 0
        self.c_before = 0      # refused by the filter before the candidate's code started
        self.c_reference = 0   # refused while the reference's torch.compile ran
        self.records = []      # refused by the audit hook: dicts with "by"
        self.refused_py = {"before": 0, "candidate": 0, "reference": 0}
        self.build_spawns = []
        self.here = os.path.dirname(os.path.abspath(__file__)) + os.sep
        self.me = os.path.abspath(__file__)
        paths = sysconfig.get_paths()
        self.stdlib = tuple(sorted({os.path.realpath(paths[k]) + os.sep for k in ("stdlib", "platstdlib")}))
        self.trusted = tuple(d for d in (_package_dir(n) for n in TRUSTED_PACKAGES) if d) + (self.here,)
        self._orig_execute_child = subprocess.Popen._execute_child
        self._orig_send_signal = subprocess.Popen.send_signal

    # --- the C module ---------------------------------------------------------------------------
    def load(self):
        path = find_lib()
        if not path:
            self.lib_why = ("%s not found (kernelpro sets KERNELPRO_SANDBOX_LIB; else set KERNELPRO_LIBEXEC to "
                            "the directory holding it)" % LIB_NAME)
            return
        try:
            lib = ctypes.CDLL(path)
            lib.kp_sandbox_begin.argtypes = [ctypes.c_char_p, ctypes.c_double]
            lib.kp_sandbox_lock.argtypes = [ctypes.c_int, ctypes.c_char_p]
            lib.kp_sandbox_refused.restype = ctypes.c_ulong
            lib.kp_sandbox_report.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
        except (OSError, AttributeError) as e:
            self.lib_why = "cannot load %s: %s" % (path, e)
            return
        self.lib = lib

    def c_refused(self):
        return int(self.lib.kp_sandbox_refused()) if self.lib else 0

    def budget(self):
        lim = self.adapter.cfg.get("limits", {}) or {}
        total = sum(float(lim.get(k, 0) or 0) for k in ("build", "check", "timing"))
        return total + 4 * float(self.adapter.cfg.get("loop_s", 0) or 0) + 60

    # --- who is calling -------------------------------------------------------------------------
    def _plumbing(self, fn):
        """This module and the standard library (site-packages, often inside it, is not)."""
        if fn == self.me or fn.startswith("<frozen "):
            return True
        real = os.path.realpath(fn)
        return real.startswith(self.stdlib) and not any(d in real for d in ("/site-packages/", "/dist-packages/"))

    def _outer_frame(self):
        """The innermost frame outside the standard library and this module: who asked."""
        f = sys._getframe(1)
        while f is not None and self._plumbing(f.f_code.co_filename):
            f = f.f_back
        return f

    def _trusted_caller(self):
        f = self._outer_frame()
        return f is not None and os.path.realpath(f.f_code.co_filename).startswith(self.trusted)

    def _where(self):
        f = self._outer_frame()
        return "%s:%d" % (f.f_code.co_filename, f.f_lineno) if f is not None else "?"

    def _in_triton(self, where):
        """Whether a refusal's "where" (FILE:LINE) lies inside the triton package."""
        d = _package_dir("triton")
        return bool(d) and os.path.realpath(where.rsplit(":", 1)[0]).startswith(d)

    def _on_spawner(self):
        return self.spawner is not None and threading.get_ident() == self.spawner.ident

    # --- Popen, routed ----------------------------------------------------------------------------
    def _execute_child(self, popen, *args, **kwargs):
        """subprocess.Popen._execute_child: a build tool started by a trusted caller goes to the spawner
        thread; anything else runs here, where the audit hook and the filter refuse it."""
        if self.spawner is not None and not self.locked and not self._on_spawner() and self._trusted_caller():
            child = self.spawner.call(self._orig_execute_child, popen, args, kwargs)
            self.children.add(popen.pid)
            return child
        return self._orig_execute_child(popen, *args, **kwargs)

    def _send_signal(self, popen, sig):
        """subprocess.Popen.send_signal: a build tool's timeout kill goes through the spawner too (the
        filter lets a filtered thread signal only this process)."""
        if self.spawner is not None and popen.pid in self.children and not self._on_spawner():
            return self.spawner.call(self._orig_send_signal, popen, (sig,), {})
        return self._orig_send_signal(popen, sig)

    # --- the audit hook -------------------------------------------------------------------------
    def _refuse(self, event, what):
        by = "reference" if self.in_reference else "candidate" if self.cand_started else "before"
        self.refused_py[by] += 1
        if len(self.records) < MAX_RECORDS:
            self.records.append({"event": event, "what": what[:200], "where": self._where(), "by": by})
        raise PermissionError("kernelpro sandbox: %s refused (%s): an evaluated candidate may not start "
                              "processes (docs/eval.md, \"The sandbox\")" % (event, what[:200]))

    def _allowed_spawn(self):
        """A build spawn before the lock: on the spawner thread, or (when no filter could be installed)
        straight from a trusted caller."""
        if self.locked:
            return False
        if self._on_spawner():
            return True
        return not self.filter and self._trusted_caller()

    def hook(self, event, args):
        if event == "exec":
            if not self.cand_started and args:
                fn = getattr(args[0], "co_filename", None)
                if fn in self.candidate_names:
                    self.cand_started = True
                    self.c_before = self.c_refused()
            return
        if event in SPAWN_EVENTS:
            what = _describe(event, args)
            if self._allowed_spawn():
                if len(self.build_spawns) < 64:
                    self.build_spawns.append(what.split(" ")[0][:80])
                return
            self._refuse(event, what)
        elif event == "os.kill":
            if args and args[0] != os.getpid() and not (args[0] in self.children and self._allowed_spawn()):
                self._refuse(event, "signal %s to process %s" % (args[1] if len(args) > 1 else "?", args[0]))
        elif event == "os.killpg":
            self._refuse(event, "signal to process group %s" % (args[0] if args else "?"))
        elif event == "ctypes.dlsym":
            name = args[1] if len(args) > 1 else None
            if isinstance(name, bytes):
                name = name.decode("latin-1")
            if isinstance(name, str) and name in CTYPES_NAMES:
                self._refuse(event, "ctypes look-up of %s()" % name)

    # --- the steps ------------------------------------------------------------------------------
    def begin(self):
        if self.off & {"off", "nospawn"}:
            self.hook_why = "switched off by KERNELPRO_SANDBOX"
        self.load()
        if self.lib:
            parts = self.lib.kp_sandbox_begin(self.mode.encode(), self.budget())
            self.filter = bool(parts & SPAWN_PART)
        if not self.hook_why:
            sys.addaudithook(self.hook)
            self.hooked = True
            subprocess.Popen._execute_child = lambda popen, *a, **k: self._execute_child(popen, *a, **k)
            subprocess.Popen.send_signal = lambda popen, sig: self._send_signal(popen, sig)
        if self.filter:
            self.spawner = _Spawner()
            if self.lib.kp_sandbox_lock(0, b"before the candidate is imported (its import and ModelNew's "
                                           b"constructor may build with nvcc through a spawner thread)"):
                self.filter = False
                self.spawner.stop()
                self.spawner = None

    def lock(self):
        if self.locked:
            return
        self.locked = True
        if self.spawner is not None:
            self.spawner.stop()
            self.spawner = None
        if self.lib:
            self.lib.kp_sandbox_lock(1, b"before the first call of ModelNew")

    def report(self):
        if self.lib:
            buf = ctypes.create_string_buffer(16384)
            n = self.lib.kp_sandbox_report(buf, len(buf))
            rep = json.loads(buf.value.decode()) if n > 0 else {"applied": False}
        else:
            rep = {"applied": False, "switched_off": None,
                   "network": {"isolated": False, "why": self.lib_why},
                   "processes": {"blocked": False, "why": self.lib_why},
                   "limits": None, "limits_why": self.lib_why, "refused": {}, "ignored": {}}
        c_total = self.c_refused()
        c_before = self.c_before if self.cand_started else c_total
        rep["python"] = {
            "audit_hook": self.hooked,
            "audit_hook_why": self.hook_why,
            "refused": self.records,
            "build_spawns": self.build_spawns,
        }
        rep["attempts"] = {
            "before_candidate": c_before + self.refused_py["before"],
            "candidate": max(0, c_total - c_before - self.c_reference) + self.refused_py["candidate"],
            "reference_compile": self.c_reference + self.refused_py["reference"],
        }
        return rep

    # --- wrapped adapter methods ----------------------------------------------------------------
    def wrap(self):
        ad = self.adapter
        phase, finish = ad.phase, ad.finish

        def locked_phase(name, limit_key):
            if name in LOCK_PHASES:
                self.lock()
            return phase(name, limit_key)

        def reported_finish(status, message, log=""):
            rep = self.report()
            ad.result["sandbox"] = rep
            att = rep["attempts"]
            calls = _calls(rep, self.records)
            if status != "harness_error" and att["before_candidate"]:
                message = ("before the candidate was loaded, the sandbox refused %d call(s) that start or reach "
                           "processes (%s; the task's reference or the environment makes them): set "
                           "KERNELPRO_SANDBOX=nospawn to evaluate this task without the process filter"
                           % (att["before_candidate"], calls))
                status, log = "harness_error", ""
            elif att["candidate"] and "process_spawn" not in ad.checks_off:
                mine = [r for r in self.records if r["by"] == "candidate"]
                what = "; ".join("%s (%s) at %s" % (r["event"], r["what"], r["where"]) for r in mine)
                text = "the candidate tried to start a process or reach another one %d time(s)%s; the sandbox " \
                       "refused it" % (att["candidate"], ": " + what if what else " from native code (%s)" % calls)
                if any(self._in_triton(r["where"]) for r in mine):
                    text += (" (Triton compiled a kernel after the warm-up call: a specialization the first call "
                             "did not make, such as another constexpr, dtype or argument alignment; its compiler "
                             "may not start processes once the correctness phase begins)")
                ad.flags.append({"check": "process_spawn", "severity": "refuse", "message": text})
                if status != "cheat_suspected":
                    log = "refused by dynamic check 'process_spawn': %s\n%s" % (text, log or "")
                    status, message = "cheat_suspected", "refused by check 'process_spawn': " + text
            return finish(status, message, log)

        ad.phase = locked_phase
        ad.finish = reported_finish
        compiled = getattr(ad, "time_compiled", None)
        if compiled is not None:
            def as_reference(*a, **k):
                before = self.c_refused()
                self.in_reference += 1
                try:
                    return compiled(*a, **k)
                finally:
                    self.in_reference -= 1
                    self.c_reference += self.c_refused() - before
            ad.time_compiled = as_reference


def _calls(rep, records):
    """The refused calls by name, for a message: "sandbox.refused: clone 2, execve 1" and the audit hook's
    events."""
    parts = ["%s %d" % kv for kv in sorted((rep.get("refused") or {}).items())]
    text = "sandbox.refused: " + ", ".join(parts) if parts else "sandbox.refused names none"
    if records:
        text += "; sandbox.python.refused: " + ", ".join(sorted(set(r["event"] for r in records)))
    return text


def _describe(event, args):
    try:
        if event == "os.system":
            return str(args[0])
        if event == "subprocess.Popen":
            cmd = args[1] if len(args) > 1 else args[0]
            return " ".join(map(str, cmd)) if isinstance(cmd, (list, tuple)) else str(cmd)
        if event in ("os.exec", "os.posix_spawn", "pty.spawn"):
            return " ".join(map(str, args[1])) if len(args) > 1 and isinstance(args[1], (list, tuple)) \
                else str(args[0])
        if event == "os.spawn":
            return str(args[1]) if len(args) > 1 else ""
    except Exception:
        pass
    return event


def apply(adapter):
    """The prelude: call once, first thing in the evaluation child, before anything of the candidate is
    read. No-op in baseline mode (the task's own reference, no candidate). Returns the Sandbox."""
    global _state
    if _state is not None:
        raise RuntimeError("kernelpro sandbox: apply() called twice in one process")
    sb = Sandbox(adapter)
    _state = sb
    if sb.mode == "baseline":
        return sb
    sb.begin()
    sb.wrap()
    return sb

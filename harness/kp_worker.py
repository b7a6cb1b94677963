#!/usr/bin/env python3
"""kernelpro's warm worker: one process per GPU that has imported PyTorch once (and initialised nothing
on CUDA) and forks a fresh child for every evaluation, so an evaluation skips Python's and PyTorch's
start-up while keeping the isolation of a fresh process: each child has its own process group, time
limit and CUDA context, and a crash, hang or out-of-memory ends only that child.

    kp_worker.py --socket PATH [--idle SECONDS] [--ready-fd FD] [--adapter FILE]

kernelpro (lib/eval/worker.c) starts it detached and talks to it over the Unix socket PATH, one JSON
object per line (docs/internals/eval.md, "The warm worker"):

    -> {"op": "run", "id": 7, "argv": [...], "env": ["K=V", ...], "cwd": DIR, "stdin": FILE,
        "out": FILE, "err": FILE, "out_cap": N, "err_cap": N, "timeout_s": S, "in_process": true}
    <- {"id": 7, "queued": 0}    {"id": 7, "started": PID}    {"id": 7, "done": {...how it ended}}
    -> {"op": "shutdown"}        {"op": "ping"} <- {"pong": {...}}

A job with "in_process" runs the adapter's main() in the forked child, exactly as `python3 ADAPTER`
would with the same stdin, environment and directory; any other job execs argv in the child. Jobs run
one at a time, first come first served. The worker exits after SECONDS without clients or jobs.

Why fork is safe here: the CUDA driver cannot be used in a child forked after it was initialised in
the parent, and torch refuses CUDA in a child ("Cannot re-initialize CUDA in forked subprocess") as
soon as the parent has merely called into CUDA through torch's C++ side: the first such call
(torch._C._cuda_getDeviceCount, which torch.cuda.is_available() makes, _cuda_init, a CUDA tensor or
generator ...) registers a pthread_atfork handler that marks every later child a "bad fork". So the
worker only imports (the adapter's PRELOAD list) with PYTORCH_NVML_BASED_CUDA_CHECK=1, records the
Python stack of every such call made while preloading (CudaCallWatch), refuses to serve when
torch.cuda.is_initialized(), and forks once before serving (probe_fork) to ask torch in the child
whether it is in a bad fork: if it is, the worker refuses to serve, naming the call, and kernelpro
evaluates cold.
"""

import argparse
import ctypes
import errno
import fcntl
import importlib.util
import json
import os
import selectors
import signal
import socket
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
VERSION = 1
MAX_LINE = 16 << 20
GRACE_S = 2.0
DRAIN_S = 2.0  # after the child exits, how long its escaped descendants may keep the pipes open
PR_SET_PDEATHSIG = 1
FORK_ERROR = "Cannot re-initialize CUDA in forked subprocess"  # torch's words in a bad fork (lib/eval/worker_job.c)
MAX_CUDA_CALLS = 8
NO_WARM_ENV = "KP_WORKER_NO_WARM"  # set when the worker started over without the adapter's warm()


def log(msg):
    sys.stderr.write("kp-worker %d: %s\n" % (os.getpid(), msg))
    sys.stderr.flush()


def load_adapter(path):
    spec = importlib.util.spec_from_file_location("kp_adapter", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["kp_adapter"] = mod
    spec.loader.exec_module(mod)
    return mod


def thread_count():
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Threads:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _short_path(path):
    for mark in ("site-packages/", "dist-packages/"):
        if mark in path:
            return path.rsplit(mark, 1)[1]
    return path


def _culprit(stack):
    """The innermost frame outside torch.cuda, torch.accelerator and the import machinery: who asked."""
    for fr in reversed(stack):
        f = fr.filename.replace(os.sep, "/")
        if "/torch/cuda/" in f or "/torch/accelerator/" in f or f.startswith("<frozen"):
            continue
        return "%s:%d (%s)" % (_short_path(f), fr.lineno, fr.name)
    return "?"


class CudaCallWatch:
    """While active: the Python stack of the first call of each torch._C function whose name says CUDA
    or accelerator (those are what register torch's fork handler: _cuda_getDeviceCount, _cuda_init,
    _cuda_getArchFlags, the accelerator hooks ...). A profile hook (sys.setprofile) rather than wrappers
    around torch._C's attributes, so that calls made while `import torch` itself runs, and calls through
    references taken before any wrapper could exist, are seen too; it costs the preload ~0.6 s once.
    Calls that C++ makes without Python in between are not seen: probe_fork catches those."""

    IGNORED = frozenset(("_cuda_isInBadFork",))

    def __init__(self):
        self.calls = []
        self._seen = set()

    def _hook(self, frame, event, arg):
        if event == "c_call":  # a builtin: torch._C's real functions
            if getattr(arg, "__module__", None) != "torch._C":
                return
            name, caller = getattr(arg, "__name__", "?"), frame
        elif event == "call":  # a Python function in a module named torch._C (a stand-in)
            if frame.f_globals.get("__name__") != "torch._C":
                return
            name, caller = frame.f_code.co_name, frame.f_back
        else:
            return
        low = name.lower()
        if name in self._seen or name in self.IGNORED or ("cuda" not in low and "accelerator" not in low):
            return
        self._seen.add(name)
        if len(self.calls) < MAX_CUDA_CALLS and caller is not None:
            stack = traceback.extract_stack(caller)
            self.calls.append({"function": name, "caller": _culprit(stack),
                               "stack": "".join(traceback.format_list(stack[-12:]))})

    def __enter__(self):
        sys.setprofile(self._hook)
        return self

    def __exit__(self, *exc):
        sys.setprofile(None)
        return False


def probe_fork():
    """Forks once, as for a job, and asks torch in the child whether it is in a bad fork (its C flag,
    torch._C._cuda_isInBadFork, and torch.cuda._is_in_bad_fork). {"bad_fork": bool, "c": .., "python": ..}"""
    t = sys.modules.get("torch")
    if t is None:
        return {"bad_fork": False, "c": None, "python": None}
    sys.stdout.flush()
    sys.stderr.flush()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(r)
            c = getattr(getattr(t, "_C", None), "_cuda_isInBadFork", None)
            p = getattr(getattr(t, "cuda", None), "_is_in_bad_fork", None)
            os.write(w, json.dumps({"c": bool(c()) if c else None, "python": bool(p()) if p else None}).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read(4096)
    _, status = os.waitpid(pid, 0)
    try:
        res = json.loads(data)
    except ValueError:
        raise RuntimeError("the probe child said nothing (wait status %d)" % status) from None
    return {"bad_fork": bool(res.get("c") or res.get("python")), "c": res.get("c"), "python": res.get("python")}


def bad_fork_message(calls):
    what = "; ".join("%s from %s" % (c["function"], c["caller"]) for c in calls[:2])
    return ("forked children would be in a bad fork: preloading called %s, which registers torch's fork handler "
            "('%s' in every child)" % (what or "into CUDA from C++ (no Python caller seen)", FORK_ERROR))


def warm_up(adapter, watch):
    """The adapter's warm() (work every evaluation would otherwise repeat: the FLOP counter's first use),
    after the preload passed its checks, under the same CUDA-call watch and followed by a second fork
    probe. {"warm": what warm() said, or {"skipped": why}}; with "restart": why the process can no
    longer fork usable children (warm() touched CUDA), so the worker must start over without it."""
    if not hasattr(adapter, "warm"):
        return {"warm": {"skipped": "the adapter has no warm()"}}
    if os.environ.get(NO_WARM_ENV):
        return {"warm": {"skipped": os.environ[NO_WARM_ENV]}}
    before = len(watch.calls)
    try:
        with watch:
            res = adapter.warm()
    except BaseException as e:  # warm() records its own failures; this is a bug in it
        res = {"error": "%s: %s" % (type(e).__name__, e)}
    calls = watch.calls[before:]
    for c in calls:
        log("the warm-up called torch._C.%s from %s:\n%s" % (c["function"], c["caller"], c["stack"]))
    if res.get("cuda_initialized"):
        return {"warm": res, "restart": "initialised CUDA"}
    try:
        probe = probe_fork()
    except (OSError, RuntimeError) as e:
        return {"warm": res, "restart": "left the fork probe failing (%s)" % e}
    if probe["bad_fork"]:
        return {"warm": res, "restart": "called %s" % "; ".join(
            "torch._C.%s from %s" % (c["function"], c["caller"]) for c in calls[:2]) if calls else
            "made forked children a bad fork (a call into CUDA from C++)"}
    return {"warm": res}


def warm_summary(warm):
    parts = []
    for name, r in sorted((warm or {}).items()):
        if isinstance(r, dict) and "s" in r:
            parts.append("%s %.2f s%s" % (name, r["s"], "" if r.get("ok") else " (failed: %s)" % r.get("error")))
    if isinstance(warm, dict) and warm.get("skipped"):
        parts.append("skipped: %s" % warm["skipped"])
    return ", ".join(parts) or "none"


def restart_without_warm_up(args, why):
    """Execs this worker again with the warm-up off ($KP_WORKER_NO_WARM says why, the new hello's
    "warm": {"skipped": ...}): the only way back to a process whose children can use CUDA. The lock
    file is close-on-exec (the new process takes it again); the ready descriptor is passed on."""
    if args.ready_fd >= 0:
        os.set_inheritable(args.ready_fd, True)
    sys.stdout.flush()
    sys.stderr.flush()
    env = dict(os.environ, **{NO_WARM_ENV: ("the first start's warm-up %s" % why)[:400]})
    os.execve(sys.executable, [sys.executable, "-B", os.path.abspath(__file__)] + sys.argv[1:], env)


class Job:
    def __init__(self, client, req):
        self.client = client
        self.id = req.get("id")
        self.req = req
        self.pid = None
        self.pidfd = None
        self.pipes = {}      # read fd -> stream name
        self.streams = {}    # "out", "err" -> [file, cap, bytes kept, bytes produced]
        self.start = None
        self.exited_at = None
        self.status = None
        self.timed_out = False
        self.term_at = None
        self.killed = False


class Worker:
    def __init__(self, args, adapter):
        self.args = args
        self.adapter = adapter
        self.sel = selectors.DefaultSelector()
        self.clients = {}    # socket -> bytearray of unread input
        self.queue = []
        self.job = None
        self.idle_since = time.monotonic()
        self.stopping = False
        self.owned = []      # objects with close() a forked child must not keep
        self.libc = ctypes.CDLL(None, use_errno=True)

    # --- sockets ----------------------------------------------------------------------------------
    def listen(self, path):
        if os.path.lexists(path):
            os.unlink(path)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o077)
        try:
            s.bind(path)
        finally:
            os.umask(old)
        s.listen(16)
        s.setblocking(False)
        self.listener = s
        self.sock_ino = os.stat(path).st_ino
        self.sel.register(s, selectors.EVENT_READ, ("listen", None))
        self.owned.append(s)

    def send(self, client, obj):
        if client not in self.clients:
            return
        data = (json.dumps(obj) + "\n").encode()
        try:
            client.setblocking(True)
            client.settimeout(5.0)
            client.sendall(data)
            client.setblocking(False)
        except OSError:
            self.drop(client)

    def accept(self):
        try:
            c, _ = self.listener.accept()
        except OSError:
            return
        c.setblocking(False)
        self.clients[c] = bytearray()
        self.sel.register(c, selectors.EVENT_READ, ("client", c))
        self.send(c, {"hello": self.hello})

    def drop(self, client):
        """A client went away: its queued jobs are dropped and its running job is killed."""
        if client not in self.clients:
            return
        del self.clients[client]
        try:
            self.sel.unregister(client)
        except (KeyError, ValueError):
            pass
        client.close()
        self.queue = [j for j in self.queue if j.client is not client]
        if self.job and self.job.client is client:
            self.kill(self.job, signal.SIGKILL)
            self.job.client = None
        if not self.clients:
            self.idle_since = time.monotonic()

    def read_client(self, client):
        try:
            data = client.recv(1 << 16)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.drop(client)
            return
        buf = self.clients[client]
        buf += data
        while b"\n" in buf:
            line, _, rest = bytes(buf).partition(b"\n")
            buf[:] = rest
            self.request(client, line)
            if client not in self.clients:
                return
        if len(buf) > MAX_LINE:
            self.send(client, {"error": "request longer than %d bytes" % MAX_LINE})
            self.drop(client)

    def request(self, client, line):
        try:
            req = json.loads(line)
            op = req["op"]
        except (ValueError, KeyError, TypeError) as e:
            self.send(client, {"error": "bad request: %s" % e})
            return
        if op == "ping":
            self.send(client, {"pong": {"queued": len(self.queue), "running": self.job is not None}})
        elif op == "shutdown":
            self.stopping = True
        elif op == "run":
            bad = [k for k in ("id", "argv", "env", "cwd", "out", "err", "timeout_s") if k not in req]
            if bad or not req["argv"]:
                self.send(client, {"id": req.get("id"), "error": "run request without %s" % ", ".join(bad or ["argv"])})
                return
            job = Job(client, req)
            self.queue.append(job)
            self.send(client, {"id": job.id, "queued": len(self.queue) - 1 + (1 if self.job else 0)})
        else:
            self.send(client, {"error": "unknown op '%s'" % op})

    # --- jobs ---------------------------------------------------------------------------------------
    def start_next(self):
        while self.job is None and self.queue:
            job = self.queue.pop(0)
            try:
                self.spawn(job)
            except OSError as e:
                self.send(job.client, {"id": job.id, "error": "cannot start the job: %s" % e})
                continue
            self.job = job
            self.send(job.client, {"id": job.id, "started": job.pid})

    def spawn(self, job):
        req = job.req
        files, ends = [], []
        try:
            for key, cap in (("out", "out_cap"), ("err", "err_cap")):
                r, w = os.pipe()
                ends.append((r, w))
                files.append((open(req[key], "wb"), int(req.get(cap) or (16 << 20))))
            stdin = os.open(req.get("stdin") or os.devnull, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            for r, w in ends:
                os.close(r)
                os.close(w)
            for f, _ in files:
                f.close()
            raise
        sys.stdout.flush()
        sys.stderr.flush()
        parent = os.getpid()
        t_fork = time.monotonic()
        pid = os.fork()
        if pid == 0:
            self.child(job, parent, t_fork, stdin, ends[0][1], ends[1][1])  # never returns
        os.close(stdin)
        job.pid = pid
        job.start = t_fork
        try:
            os.setpgid(pid, pid)  # also done in the child; whichever runs first wins the race
        except OSError:
            pass
        for name, (r, w), (f, cap) in zip(("out", "err"), ends, files):
            os.close(w)
            os.set_blocking(r, False)
            job.pipes[r] = name
            job.streams[name] = [f, cap, 0, 0]
            self.sel.register(r, selectors.EVENT_READ, ("pipe", job))
        if hasattr(os, "pidfd_open"):
            try:
                job.pidfd = os.pidfd_open(pid)
                self.sel.register(job.pidfd, selectors.EVENT_READ, ("exit", job))
            except OSError:
                job.pidfd = None

    def child(self, job, parent, t_fork, stdin, out_w, err_w):
        """In the forked child: a process as a fresh `python3 ADAPTER` (or the exec'd program) would be."""
        try:
            os.setpgid(0, 0)
            # Die with the worker: an evaluation nobody waits for must not hold the GPU.
            self.libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if os.getppid() != parent:
                os._exit(125)
            for obj in self.owned + list(self.clients):
                obj.close()
            self.sel.close()
            for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD, signal.SIGUSR1, signal.SIGUSR2):
                signal.signal(sig, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            os.dup2(stdin, 0)
            os.dup2(out_w, 1)
            os.dup2(err_w, 2)
            for fd in (stdin, out_w, err_w):
                if fd > 2:
                    os.close(fd)
            req = job.req
            os.chdir(req["cwd"])
            env = dict(e.split("=", 1) for e in req["env"] if "=" in e)
            os.environ.clear()
            os.environ.update(env)
            argv = [str(a) for a in req["argv"]]
            if req.get("in_process"):
                rest = argv[1:]
                while rest and rest[0].startswith("-"):  # the interpreter's options ("-B")
                    rest.pop(0)
                sys.argv = rest
                self.adapter.main(t_start=t_fork)
                os._exit(0)
            prog = argv[0]
            if "/" not in prog:
                import shutil
                prog = shutil.which(prog, path=env.get("PATH")) or prog
            os.execve(prog, argv, env)
        except SystemExit as e:
            os._exit(e.code if isinstance(e.code, int) else 1)
        except BaseException:
            try:
                os.write(2, ("kp-worker: the job could not start:\n" + traceback.format_exc()).encode())
            finally:
                os._exit(127)

    def pump(self, fd, job):
        if fd not in job.pipes:
            return
        ent = job.streams[job.pipes[fd]]
        f, cap, kept, total = ent
        while True:
            try:
                data = os.read(fd, 1 << 16)
            except BlockingIOError:
                break
            except OSError:
                data = b""
            if not data:
                self.close_pipe(job, fd)
                return
            total += len(data)
            if kept < cap:
                part = data[:cap - kept]
                f.write(part)
                kept += len(part)
            ent[2], ent[3] = kept, total

    def close_pipe(self, job, fd):
        name = job.pipes.pop(fd, None)
        if name is None:
            return
        try:
            self.sel.unregister(fd)
        except (KeyError, ValueError):
            pass
        os.close(fd)
        job.streams[name][0].close()

    def kill(self, job, sig):
        for target in (-job.pid, job.pid):
            try:
                os.kill(target, sig)
            except OSError:
                pass
        if sig == signal.SIGKILL:
            job.killed = True

    def reap(self, job):
        if job.status is not None:
            return
        try:
            pid, status = os.waitpid(job.pid, os.WNOHANG)
        except ChildProcessError:
            pid, status = job.pid, 0
        if pid != job.pid:
            return
        job.status = status
        job.exited_at = time.monotonic()
        self.kill(job, signal.SIGKILL)  # nothing the child started outlives it
        if job.pidfd is not None:
            try:
                self.sel.unregister(job.pidfd)
            except (KeyError, ValueError):
                pass
            os.close(job.pidfd)
            job.pidfd = None

    def tick(self, now):
        job = self.job
        if job is None:
            return
        limit = float(job.req["timeout_s"] or 0)
        if job.status is None and limit > 0 and not job.timed_out and now - job.start >= limit:
            job.timed_out = True
            job.term_at = now
            self.kill(job, signal.SIGTERM)
        if job.timed_out and not job.killed and job.status is None and now - job.term_at >= GRACE_S:
            self.kill(job, signal.SIGKILL)
        self.reap(job)
        if job.status is not None and job.pipes and now - job.exited_at >= DRAIN_S:
            for fd in list(job.pipes):
                self.pump(fd, job)
                self.close_pipe(job, fd)
        if job.status is not None and not job.pipes:
            self.finish(job)

    def finish(self, job):
        st = job.status
        o, e = job.streams["out"], job.streams["err"]
        done = {"exit_code": os.WEXITSTATUS(st) if os.WIFEXITED(st) else None,
                "signal": os.WTERMSIG(st) if os.WIFSIGNALED(st) else 0,
                "timed_out": job.timed_out, "elapsed_s": job.exited_at - job.start,
                "out_total": o[3], "err_total": e[3], "out_truncated": o[3] > o[2], "err_truncated": e[3] > e[2]}
        if job.client is not None:
            self.send(job.client, {"id": job.id, "done": done})
        self.job = None
        self.idle_since = time.monotonic()

    # --- the loop -------------------------------------------------------------------------------------
    def serve(self):
        idle = float(self.args.idle)
        while True:
            self.start_next()
            now = time.monotonic()
            if self.stopping and self.job is None:
                return
            if idle > 0 and not self.clients and self.job is None and not self.queue and now - self.idle_since >= idle:
                return
            timeout = 0.05 if self.job is not None and (self.job.pidfd is None or self.job.timed_out
                                                        or self.job.status is not None) else 1.0
            if self.job is not None and self.job.status is None:
                left = float(self.job.req["timeout_s"] or 0) - (now - self.job.start)
                if left > 0:
                    timeout = min(timeout, left + 0.001)
            for key, _ in self.sel.select(timeout):
                kind, obj = key.data
                if kind == "listen":
                    self.accept()
                elif kind == "client":
                    self.read_client(obj)
                elif kind == "pipe":
                    self.pump(key.fd, obj)
                elif kind == "exit":
                    self.reap(obj)
            self.tick(time.monotonic())

    def close(self, path):
        if self.job is not None:
            self.kill(self.job, signal.SIGKILL)
        try:
            if os.stat(path).st_ino == self.sock_ino:
                os.unlink(path)
        except OSError:
            pass
        self.listener.close()
        # A client that connected in the meantime sees the socket close and starts anew or runs cold.
        for c in list(self.clients):
            c.close()


def main():
    ap = argparse.ArgumentParser(description="kernelpro's warm evaluation worker")
    ap.add_argument("--socket", required=True)
    ap.add_argument("--idle", type=float, default=600.0, help="exit after this many seconds without work (0: never)")
    ap.add_argument("--ready-fd", type=int, default=-1, help="write the hello line here once serving, then close it")
    ap.add_argument("--adapter", default=os.path.join(HERE, "kp_torch.py"))
    args = ap.parse_args()
    sys.dont_write_bytecode = True
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    ready = os.fdopen(args.ready_fd, "w") if args.ready_fd >= 0 else None

    def announce(obj):
        if ready is not None:
            try:
                ready.write(json.dumps(obj) + "\n")
                ready.flush()
                ready.close()
            except OSError:
                pass

    lock = open(args.socket + ".lock", "a")
    try:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        if e.errno in (errno.EWOULDBLOCK, errno.EACCES):
            announce({"other": True})  # another worker serves this socket
            return 0
        raise
    t0 = time.monotonic()
    # torch.cuda.is_available() and device_count() through NVML, which registers no fork handler (the
    # children get the job's own environment back).
    os.environ["PYTORCH_NVML_BASED_CUDA_CHECK"] = "1"
    watch = CudaCallWatch()
    try:
        with watch:
            adapter = load_adapter(args.adapter)
            pre = adapter.preload() if hasattr(adapter, "preload") else {}
    except BaseException as e:
        announce({"error": "loading the adapter '%s' failed: %s: %s" % (args.adapter, type(e).__name__, e)})
        return 1
    try:
        probe = probe_fork()
    except (OSError, RuntimeError) as e:
        announce({"error": "the fork probe failed: %s" % e})
        return 1
    for c in watch.calls:
        log("preload called torch._C.%s from %s:\n%s" % (c["function"], c["caller"], c["stack"]))
    if pre.get("cuda_initialized"):
        announce({"error": "CUDA was initialised while preloading; forked children could not use the GPU",
                  "cuda_calls": watch.calls})
        return 1
    if probe["bad_fork"]:
        msg = bad_fork_message(watch.calls)
        log(msg)
        announce({"error": msg, "cuda_calls": watch.calls, "fork_probe": probe})
        return 1
    warmed = warm_up(adapter, watch)
    if warmed.get("restart"):
        log("the warm-up %s; starting over without it (the children do that work themselves)" % warmed["restart"])
        restart_without_warm_up(args, warmed["restart"])  # never returns
    pre.update(warmed)
    w = Worker(args, adapter)
    w.owned.append(lock)
    w.hello = {"version": VERSION, "pid": os.getpid(), "python": sys.executable, "adapter": args.adapter,
               "preload_s": round(time.monotonic() - t0, 3), "threads": thread_count(), **pre,
               "cuda_calls": watch.calls, "fork_probe": probe}
    w.listen(args.socket)
    signal.signal(signal.SIGTERM, lambda *a: setattr(w, "stopping", True))
    signal.signal(signal.SIGINT, lambda *a: setattr(w, "stopping", True))
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    announce({"hello": w.hello})
    log("serving %s (preload %.2f s, of which warm-up %s; torch %s)" % (
        args.socket, w.hello["preload_s"], warm_summary(pre.get("warm")), pre.get("torch")))
    try:
        w.serve()
    finally:
        w.close(args.socket)
        log("exiting")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""kernelpro's PyTorch adapter: evaluates one KernelBench candidate (a Python source defining
ModelNew) against its task, in a fresh process: one that kernelpro starts for this one evaluation, or
one that the warm worker (harness/kp_worker.py) forks for it and that calls main() exactly as this
file's __main__ does.

Input: a JSON config on stdin (docs/internals/eval.md lists every key).
Output: JSON lines on the original stdout: {"phase": ...} as each phase starts, then one
{"result": {...}}. Everything else the process prints goes to stderr.

The protocol follows KernelBench's eval_kernel_against_ref (HEAD): seed 42 before building each
model, correctness trials with seeds drawn from it, reference first, shape check, allclose with
atol = rtol = the precision's tolerance; CUDA-event timing with 3 warm-ups, trials plus one
discarded, a 256 MB L2 flush before each trial. On top of it: inputs made on the GPU
(kernelpro/inputs.py), NaN never passes, dtype must match, TF32 off, and the dynamic anti-cheat
checks (lib/eval/checks.c). The phases live in kernelpro/correctness.py and kernelpro/timing.py.
"""

import time

T_START = time.monotonic()  # before any import that takes time: the timeline starts here

import faulthandler  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402

# The kernelpro package is harness/kernelpro, beside this script: Python puts the script's own folder
# first on sys.path, so it is found with nothing added (the warm worker, in this folder too, as well).

from kernelpro import build as kbuild  # noqa: E402
from kernelpro import buildlog, gpulock, inline_cache  # noqa: E402
from kernelpro import inputs as kin  # noqa: E402
from kernelpro import pystatic  # noqa: E402
from kernelpro import sandbox  # noqa: E402
from kernelpro import triton_check  # noqa: E402
from kernelpro import util  # noqa: E402
from kernelpro.correctness import Correctness  # noqa: E402
from kernelpro.timing import Timing  # noqa: E402
from kernelpro.util import FAIL, REFUSE, Stop, dtype_name  # noqa: E402

_first_line = util.first_line
_unravel = util.unravel

# What a warm worker imports once, before it forks a child per evaluation (kp_worker.py). Nothing
# here may call into CUDA, not even to count devices: torch then marks every forked child a bad fork
# and refuses CUDA there. Not torch.utils.cpp_extension: its import calls torch.cuda.is_available()
# (_find_cuda_home, torch 2.11), which does exactly that (tests/python/test_worker.py
# test_real_preload_leaves_forks_usable); only load_inline candidates import it, in their own child.
PRELOAD = ("torch", "torch.nn", "torch.nn.functional", "torch.utils.flop_counter",
           "importlib.util", "ctypes", "kernelpro.fast")
WARM_SEED = 0x7A1A  # xor'ed into the seed for warm_triton's inputs: no trial's or timing's
LAZY_SEED = 0x1A2B  # the same for warm_lazy_build's
LAZY_MIN_S = 30.0  # the lazy build's limit when the import used (nearly) all of the build limit
# The warm worker's FLOP-counter warm-up (warm()): an N x N matmul on the CPU, 2 N^3 FLOPs counted.
FLOP_WARM_N = 8


def is_build_failure(e):
    """Whether an exception is a failed extension build: kernelpro.fast's BuildError, or one raised
    inside torch.utils.cpp_extension ("Error building extension 'x'", "Ninja is required ...", the
    compiler's CalledProcessError), not the candidate's own code failing after a build."""
    if isinstance(e, kbuild.BuildError):
        return True
    tb = e.__traceback__
    while tb is not None:
        if os.path.basename(tb.tb_frame.f_code.co_filename) == "cpp_extension.py":
            return True
        tb = tb.tb_next
    return "Error building extension" in str(e)


class Adapter(Correctness, Timing):
    def __init__(self, cfg, chan, t_start=None):
        self.cfg = cfg
        self.chan = chan
        self.limits = cfg.get("limits", {})
        self.checks_off = set(cfg.get("checks_off", []))
        self.flags = []
        self.result = {"flags": self.flags}
        self.cur_phase = "start"
        self.torch = None
        self.timeline = [("start", T_START if t_start is None else t_start)]
        self.corr_parts = None  # util.Parts of the correctness phase, once it started
        self.gpu = gpulock.GpuLock(cfg.get("gpu_lock"))  # bench --per-gpu: GPU phases one at a time

    # --- protocol ---------------------------------------------------------------------------
    def phase(self, name, limit_key):
        self.cur_phase = name
        self.timeline.append((name, time.monotonic()))
        self.parts = util.Parts() if name == "correctness" else None  # Correctness.part() clocks into it
        if self.parts is not None:
            self.corr_parts = self.parts
        limit = float(self.limits.get(limit_key, 0) or 0)
        self.chan.send({"phase": name, "limit_s": limit, "t": time.monotonic()})
        faulthandler.cancel_dump_traceback_later()
        if limit > 0:
            # A C thread: fires even while the main thread waits inside a CUDA call.
            faulthandler.dump_traceback_later(limit, exit=True)

    def gpu_acquire(self, resume):
        """Waits for the GPU's lock (bench --per-gpu) in a phase of its own, "gpu_wait", with no limit of
        its own (another evaluation's phases bound it), then goes back to `resume` (name, limit key): its
        limit starts again, so waiting costs the build nothing. Nothing happens without a lock."""
        if self.gpu.fd is None:
            return
        self.phase("gpu_wait", "none")
        self.gpu.acquire()
        if resume:
            self.phase(*resume)

    def gpu_release(self):
        """Gives the GPU's lock back (bench --per-gpu), first returning to the driver what torch's caching
        allocator keeps of the memory the reference's probe used and freed: evaluations that build while
        another holds the GPU must not hold its memory, or the one running runs out of it (14 slots of a
        6 GiB task's 12.6 GiB each did on a 141 GB H200). How much was returned: "gpu_released_mib"."""
        if self.gpu.fd is None or not self.gpu.held:
            return
        cuda = getattr(self.torch, "cuda", None)
        try:
            reserved = cuda.memory_reserved()
            cuda.empty_cache()
            self.result["gpu_released_mib"] = round((reserved - cuda.memory_reserved()) / 2**20, 1)
        except Exception as e:  # noqa: BLE001 (the lock still goes back; the next phase reports a broken GPU)
            self.result["gpu_released_mib"] = None
            sys.stderr.write("kernelpro: could not empty the CUDA cache before the build: %s\n" % e)
        self.gpu.release()

    def flag(self, check, severity, message):
        if check in self.checks_off:
            return
        self.flags.append({"check": check, "severity": severity, "message": message})
        if severity == REFUSE:
            raise Stop("cheat_suspected", "refused by check '%s': %s" % (check, message),
                       "refused by dynamic check '%s': %s" % (check, message))
        if severity == FAIL:
            raise Stop("wrong_output", "check '%s': %s" % (check, message.split("; first at")[0]),
                       "failed dynamic check '%s': %s" % (check, message))

    def finish(self, status, message, log=""):
        faulthandler.cancel_dump_traceback_later()
        r = self.result
        ev = dict(r.get("runtime_evidence") or {})  # what the candidate ran: one object in the verdict
        for key in ("timing_inputs", "lazy_build_s", "gpu_released_mib"):
            if key in r:
                ev[key] = r[key]
        if ev:
            ev.setdefault("recorded", False)
            r["runtime_evidence"] = ev
        r["status"] = status
        r["message"] = message
        if status == "compile_error" and log:  # no file outside the candidate's is quoted back
            torch_dir = os.path.dirname(self.torch.__file__) if getattr(self.torch, "__file__", None) else None
            log = buildlog.confine(log, buildlog.roots_from_env(self.cfg.get("candidate"), torch_dir))
        r["log"] = util.excerpt(log, 8000) if log else None
        r["phase"] = self.cur_phase if status != "correct" else "done"
        end = time.monotonic()
        marks = self.timeline + [("end", end)]
        r["build_note"] = inline_cache.describe()
        if self.gpu.fd is not None:
            r["gpu_wait_s"] = round(self.gpu.waited_s, 3)
        r["timeline"] = ", ".join("%s %.2f" % (marks[i][0], marks[i + 1][1] - marks[i][1])
                                  for i in range(len(marks) - 1))
        self.parts = None
        if self.corr_parts is not None:  # where the correctness phase's seconds went (docs/eval.md)
            i = [m[0] for m in marks].index("correctness")
            r["correctness_parts"] = self.corr_parts.report(marks[i + 1][1] - marks[i][1])
        self.chan.send({"result": util.clean_json(r)})

    # --- setup ------------------------------------------------------------------------------
    def setup_build(self):
        b = self.cfg.get("build", {})
        self.tc = kbuild.Toolchain(nvcc=b.get("nvcc"), nvcc_version=b.get("nvcc_version"), arch=b.get("arch"),
                                   cache=b.get("cache"), flags=b.get("flags"), cutlass=b.get("cutlass"))
        os.environ.update(self.tc.to_env())
        if b.get("torch_ext_dir"):
            os.environ["TORCH_EXTENSIONS_DIR"] = b["torch_ext_dir"]
        if b.get("triton_cache"):  # the candidate's own: it compiles once, its cubins can be read back
            os.environ["TRITON_CACHE_DIR"] = b["triton_cache"]
        os.environ.setdefault("TORCH_USE_CUDA_DSA", "1")

    def prebuild(self, src):
        """Starts nvcc for the candidate's fast-path sources now, so it overlaps `import torch`."""
        names = util.fast_load_names(src)
        limit = float(self.limits.get("build", 300) or 300)
        for var, cuda in util.fast_sources(src):
            try:
                kbuild.start(self.tc, cuda, name=names.get(var, var.lower()), timeout=limit)
            except Exception:
                pass  # load_cuda reports build problems where the candidate calls it

    def import_torch(self):
        try:
            import torch
        except ImportError as e:
            raise Stop("harness_error", "%s cannot import torch (%s): give kernelpro a python3 with PyTorch "
                       "(--python or KERNELPRO_PYTHON)" % (sys.executable, e))

        self.torch = torch
        if not torch.cuda.is_available():
            raise Stop("harness_error", "torch sees no CUDA device (CUDA_VISIBLE_DEVICES=%s)"
                       % os.environ.get("CUDA_VISIBLE_DEVICES", ""))
        torch.cuda.set_device(0)
        self.dev = torch.device("cuda:0")
        # TF32 off for both models: an fp32 task is timed in fp32 (CUDA-Agent issue #16). One API only:
        # torch >= 2.9 raises when the legacy and the new TF32 settings are mixed.
        try:
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False
        except Exception:
            torch.backends.cuda.matmul.fp32_precision = "ieee"
            torch.backends.cudnn.conv.fp32_precision = "ieee"
            torch.backends.cudnn.rnn.fp32_precision = "ieee"
        self.result["tf32"] = {"reference": self.tf32_on(), "candidate": None}
        self.result["reference"] = "eager PyTorch"
        torch.zeros(1, device=self.dev)  # create the context now, not inside a timed region
        self.result["gpu_name"] = torch.cuda.get_device_name(self.dev)
        prec = self.cfg.get("precision", "f32")
        self.dtype = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
                      "f64": torch.float64}[prec]
        # The functions timing relies on, saved before the candidate can touch them.
        ev = torch.cuda.Event
        self.saved = {
            "torch.cuda.Event": ev,
            "Event.record": ev.record,
            "Event.elapsed_time": ev.elapsed_time,
            "torch.cuda.synchronize": torch.cuda.synchronize,
            "time.perf_counter": time.perf_counter,
        }
        self._record = ev.record
        self._elapsed = ev.elapsed_time
        self._sync = torch.cuda.synchronize
        self._perf = time.perf_counter
        self.stream0 = torch.cuda.current_stream().cuda_stream
        self.threads0 = threading.active_count()

    def tf32_switched(self):
        """PyTorch's TF32 switches (one API only: torch >= 2.9 raises when the two are mixed); None when
        neither can be read."""
        b = self.torch.backends
        try:
            return bool(b.cuda.matmul.allow_tf32 or b.cudnn.allow_tf32)
        except Exception:
            try:
                return "tf32" in (b.cuda.matmul.fp32_precision, b.cudnn.conv.fp32_precision)
            except Exception:
                return None

    def tf32_on(self):
        """Whether matmuls and convolutions may use TF32 now."""
        if os.environ.get("NVIDIA_TF32_OVERRIDE") == "0":
            return False  # kernelpro sets it: cuBLAS and cuDNN use no TF32, whatever the switches say
        return self.tf32_switched()

    def set_seed(self, seed):
        self.torch.manual_seed(seed)
        self.torch.cuda.manual_seed(seed)

    def load_task(self):
        path = self.cfg["task"]
        with open(path, encoding="utf-8") as f:
            src = f.read()
        ns = {"__name__": "kp_task", "__file__": path}
        exec(compile(src, path, "exec"), ns)
        for name in ("Model", "get_inputs", "get_init_inputs"):
            if name not in ns:
                raise Stop("harness_error", "task '%s' defines no %s" % (path, name))
        self.Model, self.get_inputs, self.get_init_inputs = ns["Model"], ns["get_inputs"], ns["get_init_inputs"]
        why = "the task sets %s" % kin.TASK_FLAG if ns.get(kin.TASK_FLAG) is True else \
            "--cpu-inputs" if self.cfg.get("cpu_inputs") else None
        self.inputs = kin.InputMaker(self.torch, self.dev, self.dtype, self.get_inputs, self.set_seed,
                                     on_cpu=why is not None, why_cpu=why, part=self.part)

    def build_reference(self):
        t = self.torch
        self.set_seed(self.cfg.get("seed", 42))
        self.init_inputs = [self.inputs.process(x) for x in self.get_init_inputs()]
        with t.no_grad():
            self.set_seed(self.cfg.get("seed", 42))
            model = self.Model(*self.init_inputs)
        self.ref = model.to(device=self.dev, dtype=self.dtype)

    def load_reference(self, probe):
        """The task's module, its Model and (with `probe`) one call on the first trial's inputs, all before
        the candidate is loaded: a failure here is the task's (harness_error), never the candidate's."""
        steps = [("does not load", self.load_task), ("cannot be built", self.build_reference)]
        if probe:
            steps.append(("fails on its first inputs", self.probe_reference))
        for what, step in steps:
            try:
                step()
            except Stop:
                raise
            except BaseException as e:
                sys.stderr.write(util.format_exception(e) + "\n")
                raise Stop("harness_error", "the task's reference %s (before the candidate was loaded): %s: %s"
                           % (what, type(e).__name__, _first_line(e)))

    def probe_reference(self):
        seed = int(self.cfg.get("seed", 42))
        x = self.inputs.make(seed)
        with self.torch.no_grad():
            self.set_seed(seed)
            self.ref(*x)
        self._sync(self.dev)

    def load_candidate(self):
        import importlib.util

        path = self.cfg["candidate"]
        t0 = time.monotonic()
        self.result["inline_cache"] = inline_cache.install_for(path, self.tc.cache)
        printed = util.Printed()
        try:
            with printed:
                spec = importlib.util.spec_from_file_location("kp_candidate", path)
                mod = importlib.util.module_from_spec(spec)
                sys.modules["kp_candidate"] = mod
                spec.loader.exec_module(mod)
        except kbuild.BuildError as e:
            raise Stop("compile_error", "nvcc failed: %s" % str(e).splitlines()[0],
                       (e.log or str(e)) + "\n" + util.format_exception(e, limit=4))
        except SyntaxError as e:
            raise Stop("compile_error", "syntax error in the candidate: %s (line %s)" % (e.msg, e.lineno),
                       util.format_exception(e, limit=2))
        except BaseException as e:  # load_inline raises RuntimeError("Error building extension ...")
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise Stop("cheat_suspected", "the candidate tried to exit the harness while loading")
            log = util.format_exception(e)
            if printed.text().strip():  # load_inline(verbose=True): the build's output was printed
                log += "\n--- what the import printed (its end) ---\n" + printed.text().rstrip()
            raise Stop("compile_error", "importing the candidate failed: %s: %s"
                       % (type(e).__name__, _first_line(e)), log)
        self.result["build_s"] = time.monotonic() - t0
        builds = kbuild.registry()
        self.result["fast_builds"] = [{"key": b.key, "lib": b.lib, "cached": b.cached, "seconds": b.seconds}
                                      for b in builds.values()]
        if not hasattr(mod, "ModelNew"):
            raise Stop("compile_error", "the candidate defines no class ModelNew",
                       "A KernelBench candidate must define `class ModelNew(torch.nn.Module)` with the same "
                       "constructor arguments as Model.")
        self.ModelNew = mod.ModelNew

    def build_candidate(self):
        t = self.torch
        try:
            with t.no_grad():
                self.set_seed(self.cfg.get("seed", 42))
                model = self.ModelNew(*self.init_inputs)
                self.cand = model.to(device=self.dev, dtype=self.dtype)
            self._sync(self.dev)
        except Stop:
            raise
        except BaseException as e:
            raise self.runtime_stop("constructing ModelNew", e)
        self.check_intact("after constructing ModelNew")

    def warm_triton(self, src):
        """A candidate with Triton kernels is called once before the sandbox's lock (the "correctness"
        phase): Triton compiles a kernel at its first call (ptxas, the launcher's C compiler) and autotunes
        it there, and from the lock on no process may start. Its inputs come from a seed of their own, its
        outputs are not looked at; the trials that follow run what it compiled."""
        if not triton_check.uses_triton(src):
            return
        seed = int(self.cfg.get("seed", 42)) ^ WARM_SEED
        x = self.inputs.make(seed)
        with self.torch.no_grad():
            self.set_seed(seed)
            self.call(self.cand, x, "ModelNew for the first time (compiling its Triton kernels)")
        del x

    def warm_lazy_build(self, src):
        """A candidate whose forward() builds its extension (load_inline, cpp_extension.load or load_cuda
        reached from forward: kernelpro.pystatic.lazy_build) is called once here, in a phase of its own
        under what is left of the build limit, before the sandbox's lock: the build starts processes
        (ninja, nvcc, the host compiler), which from the lock on nothing may. Its seconds are build time
        (`build_s`, `lazy_build_s`), a failed build is a compile_error with the compiler's log, and its
        outputs are not looked at. Returns whether it called the candidate."""
        sites = pystatic.lazy_build(src)
        if not sites:
            return False
        limit = float(self.limits.get("build", 300) or 300)
        self.limits["lazy_build"] = max(limit - float(self.result.get("build_s") or 0.0), LAZY_MIN_S)
        self.phase("lazy_build", "lazy_build")
        seed = int(self.cfg.get("seed", 42)) ^ LAZY_SEED
        x = self.inputs.make(seed)
        where = "line %d: %s" % (sites[0]["line"], sites[0]["text"])
        t0 = time.monotonic()
        try:
            with self.torch.no_grad():
                self.set_seed(seed)
                self.cand(*x)
                self._sync(self.dev)
        except Stop:
            raise
        except BaseException as e:
            if is_build_failure(e):
                raise Stop("compile_error", "building the extension forward() builds (%s) failed: %s"
                           % (where, _first_line(e)), (getattr(e, "log", None) or "") + "\n" + util.format_exception(e))
            raise self.runtime_stop("running ModelNew for the first time (it builds its extension there)", e)
        dt = time.monotonic() - t0
        self.result["lazy_build_s"] = dt
        self.result["build_s"] = float(self.result.get("build_s") or 0.0) + dt
        self.check_intact("after ModelNew's first call (its lazy build)")
        del x
        return True

    def runtime_stop(self, what, e):
        text = "%s: %s" % (type(e).__name__, _first_line(e))
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            return Stop("cheat_suspected", "the candidate tried to exit the harness while %s" % what)
        if "out of memory" in str(e).lower():
            text = "out of memory: " + text
        return Stop("runtime_error", "%s failed: %s" % (what, text), util.format_exception(e))

    # --- checks -------------------------------------------------------------------------------
    def check_intact(self, when):
        t = self.torch
        now = {
            "torch.cuda.Event": t.cuda.Event,
            "Event.record": t.cuda.Event.record,
            "Event.elapsed_time": t.cuda.Event.elapsed_time,
            "torch.cuda.synchronize": t.cuda.synchronize,
            "time.perf_counter": time.perf_counter,
        }
        changed = [k for k, v in now.items() if v is not self.saved[k]]
        if changed:
            self.flag("timer_intact", REFUSE, "%s was replaced %s" % (", ".join(changed), when))
        if t.cuda.current_stream().cuda_stream != self.stream0:
            self.flag("timer_intact", REFUSE, "the current CUDA stream was switched %s" % when)
        if threading.active_count() > self.threads0:
            self.flag("extra_threads", REFUSE, "%d Python thread(s) running %s"
                      % (threading.active_count() - self.threads0, when))
        if self.tf32_switched():
            self.flag("precision", REFUSE, "PyTorch's TF32 switches (allow_tf32 / fp32_precision) were turned on %s: "
                      "the task runs in %s on both sides" % (when, self.cfg.get("precision", "f32")))

    def check_triton(self):
        """What the candidate's Triton kernels compiled to: no lower precision in an fp32 task."""
        with open(self.cfg["task"], encoding="utf-8") as f:
            triton_check.check(self, sys.modules, self.cfg.get("precision", "f32") in ("f32", "f64"), f.read())

    # --- modes ----------------------------------------------------------------------------------
    def run(self):
        mode = self.cfg.get("mode", "eval")
        self.setup_build()
        if mode == "baseline":
            return self.run_baseline()
        with open(self.cfg["candidate"], encoding="utf-8") as f:
            src = f.read()
        self.phase("build", "build")
        self.prebuild(src)
        self.import_torch()
        self.gpu_acquire(("build", "build"))
        self.load_reference(probe=True)
        if self.cfg.get("with_compile") and self.cfg.get("time_reference", True):
            self.compile_reference()
        self.gpu_release()  # the candidate's build needs no GPU: another evaluation may use it meanwhile
        self.load_candidate()
        self.result["compiled"] = True
        if self.cfg.get("build_only"):
            return self.finish("compiled", "built")
        self.gpu_acquire(None)
        self.phase("load", "check")
        self.build_candidate()
        if not self.warm_lazy_build(src):
            self.warm_triton(src)
        self.phase("correctness", "check")  # in mode "run" one compared trial (Correctness.correctness)
        try:
            self.correctness()
        except Stop as s:
            if s.status == "wrong_output":  # a lower Triton precision is the cause to report first
                with self.part("triton"):
                    self.check_triton()
            raise
        with self.part("triton"):
            self.check_triton()
        if mode == "run":
            self.phase("run", "timing")
            self.run_iters()
            return self.finish("correct", "ran %d iterations" % self.result["iterations"])
        self.phase("timing", "timing")
        inputs = self.timing()
        if self.cfg.get("with_compile") and self.cfg.get("time_reference", True):
            self.time_compiled(inputs)
        del inputs
        self.phase("loop", "timing")
        self.loops()
        self.check_intact("at the end")
        self.result["tf32"]["candidate"] = self.tf32_on()
        n = self.result.get("trials_passed", 0)
        rt = self.result.get("runtime")
        msg = "correct on %d of %d trials" % (n, n)
        if rt:
            msg += "; %.4g ms median" % rt["median_ms"]
        self.finish("correct", msg)

    def start_baseline(self):
        """A baseline's steps up to its timing: torch, the GPU's lock, the reference loaded."""
        self.phase("build", "build")
        self.import_torch()
        self.gpu_acquire(("build", "build"))
        self.load_reference(probe=False)
        self.phase("timing", "timing")

    def run_baseline(self):
        self.start_baseline()
        t = self.torch
        seed = int(self.cfg.get("seed", 42))
        self.make_flush()
        x = self.inputs.make(seed)
        pristine = kin.clone(t, x)
        self.result["in_bytes"] = kin.nbytes(t, x)
        with t.no_grad():
            outs = self.outputs(self.call(self.ref, x, "the reference"), "reference")
        self.learn_reference(x, outs, pristine)
        del x
        self.result["out_bytes"] = kin.nbytes(t, outs)
        self.result["io_bytes"] = self.result["in_bytes"] + self.result["out_bytes"]
        self.result["precision"] = {"reference": dtype_name(outs), "candidate": None}
        self.result["inputs"] = self.inputs.describe()
        del outs
        self.result["flops"] = self.count_flops(self.private(pristine), seed)
        st, _ = self.time_model(self.ref, self.private(pristine), "the reference")
        self.result["ref_runtime"] = st
        if self.cfg.get("with_compile"):
            self.time_compiled(pristine)
        self.finish("correct", "reference timed")


def main(t_start=None, clock_after_input=False):
    """One evaluation: the config from stdin, the answer on the original stdout; never returns (the
    process ends with os._exit). `clock_after_input`: the timeline starts once the config is read (a
    run started ahead of its input, whose wait is nobody's cost)."""
    chan = util.Channel()
    try:
        cfg = json.load(sys.stdin)
    except ValueError as e:
        chan.send({"result": {"status": "harness_error", "message": "bad config on stdin: %s" % e, "flags": []}})
        sys.stdout.flush()
        os._exit(2)
    if clock_after_input:
        t_start = time.monotonic()
    faulthandler.enable()
    ad = Adapter(cfg, chan, t_start)
    sandbox.apply(ad)  # limits, no network, no new processes: before anything of the candidate is read
    try:
        ad.run()
    except Stop as s:
        ad.finish(s.status, s.message, s.log)
    except BaseException as e:  # a bug here, or something no phase expected
        ad.finish("runtime_error", "%s during %s: %s" % (type(e).__name__, ad.cur_phase, _first_line(e)),
                  util.format_exception(e))
    sys.stdout.flush()
    sys.stderr.flush()
    # Skip interpreter teardown: a candidate's destructors must not get a chance to run after the
    # verdict, and a broken CUDA context can hang at exit.
    os._exit(0)


def preload():
    """For the warm worker: imports what every evaluation imports, and nothing that touches CUDA.
    Returns {"imported": [...], "failed": {module: why}, "torch": version or None}."""
    import importlib

    done, failed = [], {}
    for name in PRELOAD:
        try:
            importlib.import_module(name)
            done.append(name)
        except Exception as e:
            failed[name] = "%s: %s" % (type(e).__name__, _first_line(e))
    t = sys.modules.get("torch")
    return {"imported": done, "failed": failed, "torch": getattr(t, "__version__", None),
            "cuda_initialized": bool(t.cuda.is_initialized()) if t is not None else False}


def warm():
    """For the warm worker, after preload(): FlopCounterMode's first use imports some 800 modules lazily
    (3.8 s on the H200, bench/flop_count_cost.py), which every forked child would pay again in its
    count of the reference's FLOPs (the correctness part `flops`). Used once here, on a CPU matmul,
    the children count in milliseconds. CPU only: nothing here may touch CUDA (the worker checks with
    its CUDA-call watch and a second fork probe, and starts over without the warm-up if it did).
    Returns {"flop_counter": {"s": seconds, "ok": bool, "flops": counted, "error": why or None},
    "cuda_initialized": bool}; a failure is recorded, never raised (the children then count cold)."""
    t0 = time.monotonic()
    res = {"ok": False, "flops": None, "error": None}
    try:
        import torch
        from torch.utils.flop_counter import FlopCounterMode

        a = torch.ones(FLOP_WARM_N, FLOP_WARM_N)
        with FlopCounterMode(display=False) as fc:
            torch.mm(a, a)
        res["flops"] = int(sum(fc.get_flop_counts().get("Global", {}).values()))
        res["ok"] = res["flops"] == 2 * FLOP_WARM_N ** 3
        if not res["ok"]:
            res["error"] = "counted %d FLOPs for an %d x %d matmul, expected %d" % (
                res["flops"], FLOP_WARM_N, FLOP_WARM_N, 2 * FLOP_WARM_N ** 3)
    except Exception as e:
        res["error"] = "%s: %s" % (type(e).__name__, _first_line(e))
    res["s"] = round(time.monotonic() - t0, 3)
    t = sys.modules.get("torch")
    return {"flop_counter": res, "cuda_initialized": bool(t.cuda.is_initialized()) if t is not None else False}


if __name__ == "__main__":
    if os.environ.get("KERNELPRO_PRELOAD") == "1":
        # A profiling run that kernelpro starts ahead of its input (a held ncu run,
        # lib/profile/ncu_run.c): the imports every evaluation makes happen while it waits for the
        # config, so the profile itself starts at the candidate. Nothing in preload() touches CUDA.
        preload()
        main(clock_after_input=True)
    else:
        main()

#!/usr/bin/env python3
"""kernelpro's PyTorch adapter: evaluates one KernelBench candidate (a Python source defining
ModelNew) against its task, in a fresh process that kernelpro starts for this one evaluation.

Input: a JSON config on stdin (docs/internals/eval.md lists every key).
Output: JSON lines on the original stdout: {"phase": ...} as each phase starts, then one
{"result": {...}}. Everything else the process prints goes to stderr.

The protocol follows KernelBench's eval_kernel_against_ref (HEAD): seed 42 before building each
model, correctness trials with seeds drawn from it, reference first, shape check, allclose with
atol = rtol = the precision's tolerance; CUDA-event timing with 3 warm-ups, trials plus one
discarded, a 256 MB L2 flush before each trial. On top of it: inputs cloned per model, NaN never
passes, dtype must match, TF32 off, and the dynamic anti-cheat checks (lib/eval/checks.c).
"""

import time

T_START = time.monotonic()  # before any import that takes time: the timeline starts here

import faulthandler  # noqa: E402
import json
import os
import sys  # noqa: E402
import threading  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "python"))

from kernelpro import build as kbuild  # noqa: E402
from kernelpro import outcheck  # noqa: E402
from kernelpro import util  # noqa: E402

REFUSE, WARN, FAIL = "refuse", "warn", "fail"
POISON_NAN = 0xFF   # every byte 0xFF: NaN in f16/bf16/f32/f64, -1 in integers
POISON_BIG = 0x7F   # 0x7F7F7F7F: 3.4e38 in f32, a huge value in the other types too
HOST_TRIALS = 20
# The scaled trial multiplies floating-point inputs by a power of two (exact: mantissas unchanged);
# fp16's range is small (65504), so less there (docs/eval.md).
INPUT_SCALE = {"f32": 64.0, "f64": 64.0, "bf16": 64.0, "f16": 4.0}
# Matrix products whose counted FLOPs an honest kernel cannot avoid (convolutions and attention are
# left out: Winograd, FFT and causal kernels do less work than the count).
MATMUL_OPS = ("mm", "bmm", "addmm", "baddbmm")


class Stop(Exception):
    """Ends the evaluation with a verdict."""

    def __init__(self, status, message, log=""):
        super().__init__(message)
        self.status = status
        self.message = message
        self.log = log


class Adapter:
    def __init__(self, cfg, chan):
        self.cfg = cfg
        self.chan = chan
        self.limits = cfg.get("limits", {})
        self.checks_off = set(cfg.get("checks_off", []))
        self.flags = []
        self.result = {"flags": self.flags}
        self.cur_phase = "start"
        self.torch = None
        self.timeline = [("start", T_START)]

    # --- protocol ---------------------------------------------------------------------------
    def phase(self, name, limit_key):
        self.cur_phase = name
        self.timeline.append((name, time.monotonic()))
        limit = float(self.limits.get(limit_key, 0) or 0)
        self.chan.send({"phase": name, "limit_s": limit, "t": time.monotonic()})
        faulthandler.cancel_dump_traceback_later()
        if limit > 0:
            # A C thread: fires even while the main thread waits inside a CUDA call.
            faulthandler.dump_traceback_later(limit, exit=True)

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
        r["status"] = status
        r["message"] = message
        r["log"] = util.excerpt(log, 8000) if log else None
        r["phase"] = self.cur_phase if status != "correct" else "done"
        end = time.monotonic()
        marks = self.timeline + [("end", end)]
        r["timeline"] = ", ".join("%s %.2f" % (marks[i][0], marks[i + 1][1] - marks[i][1]) for i in range(len(marks) - 1))
        self.chan.send({"result": util.clean_json(r)})

    # --- setup ------------------------------------------------------------------------------
    def setup_build(self):
        b = self.cfg.get("build", {})
        self.tc = kbuild.Toolchain(nvcc=b.get("nvcc"), nvcc_version=b.get("nvcc_version"), arch=b.get("arch"),
                                   cache=b.get("cache"), flags=b.get("flags"), cutlass=b.get("cutlass"))
        os.environ.update(self.tc.to_env())
        if b.get("torch_ext_dir"):
            os.environ["TORCH_EXTENSIONS_DIR"] = b["torch_ext_dir"]
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

    def process(self, x):
        """To the GPU; floating-point tensors at the task's precision. (KernelBench casts integer
        tensors too, which turns class indices into floats; kernelpro keeps their dtype.)"""
        t = self.torch
        if not isinstance(x, t.Tensor):
            return x
        if x.is_floating_point():
            x = x.to(dtype=self.dtype)
        return x.to(device=self.dev)

    def new_inputs(self, seed):
        self.set_seed(seed)
        return [self.process(x) for x in self.get_inputs()]

    def build_reference(self):
        t = self.torch
        self.set_seed(self.cfg.get("seed", 42))
        self.init_inputs = [self.process(x) for x in self.get_init_inputs()]
        with t.no_grad():
            self.set_seed(self.cfg.get("seed", 42))
            model = self.Model(*self.init_inputs)
        self.ref = model.to(device=self.dev, dtype=self.dtype)

    def load_candidate(self):
        import importlib.util

        path = self.cfg["candidate"]
        t0 = time.monotonic()
        try:
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
            raise Stop("compile_error", "importing the candidate failed: %s: %s"
                       % (type(e).__name__, _first_line(e)), util.format_exception(e))
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

    def outputs(self, out, who):
        t = self.torch
        if isinstance(out, (list, tuple)):
            outs = list(out)
        else:
            outs = [out]
        for i, o in enumerate(outs):
            if who == "candidate" and isinstance(o, t.Tensor) and type(o) is not t.Tensor:
                self.flag("lazy_output", REFUSE, "output %d is a %s, not a plain torch.Tensor" % (i, type(o).__name__))
            if not isinstance(o, t.Tensor):
                raise Stop("wrong_output", "%s output %d is a %s, not a tensor" % (who, i, type(o).__name__))
        return outs

    @staticmethod
    def _span(x):
        s = x.untyped_storage()
        return s.data_ptr(), s.data_ptr() + s.nbytes()

    def check_alias(self, outs, against):
        for i, o in enumerate(outs):
            if o.numel() == 0:
                continue
            a0, a1 = self._span(o)
            for what, ts in against:
                for j, x in enumerate(ts):
                    if not isinstance(x, self.torch.Tensor) or x.numel() == 0 or not x.is_cuda:
                        continue
                    b0, b1 = self._span(x)
                    if a0 < b1 and b0 < a1:
                        self.flag("output_alias", REFUSE, "output %d shares memory with %s %d" % (i, what, j))

    def poison(self, byte):
        """Fills every free block of the caching allocator with `byte`, so a candidate's new
        allocation cannot hold an earlier result (Sakana's exploit read the reference's)."""
        t = self.torch
        held = []
        try:
            for seg in t.cuda.memory_snapshot():
                if seg.get("device", 0) != 0:
                    continue
                for blk in seg.get("blocks", []):
                    if blk.get("state") == "inactive" and blk.get("size", 0) >= 512:
                        held.append(blk["size"])
        except Exception:
            held = []
        tensors = []
        for size in sorted(held, reverse=True):
            try:
                x = t.empty(size, dtype=t.uint8, device=self.dev)
            except Exception:
                break
            x.fill_(byte)
            tensors.append(x)
        del tensors

    def compare(self, ref_outs, outs, trial, where, degenerate=False):
        """torch.allclose(ref, out, atol, rtol) per output, as KernelBench, except that NaN never passes
        and dtype must match. Works in chunks so huge outputs need little extra memory. With
        `degenerate`, floating-point outputs that pass are also judged by the degenerate-output checks
        (kernelpro/outcheck.py). Returns (ok, detail, (max_abs, mean_abs), failed check id or None)."""
        t = self.torch
        atol, rtol = self.cfg["atol"], self.cfg["rtol"]
        if len(ref_outs) != len(outs):
            return False, "%d outputs, the reference returns %d" % (len(outs), len(ref_outs)), None, None
        worst = None
        for i, (r, o) in enumerate(zip(ref_outs, outs)):
            name = "output" if len(outs) == 1 else "output %d" % i
            if tuple(r.shape) != tuple(o.shape):
                return False, "%s shape %s, expected %s" % (name, tuple(o.shape), tuple(r.shape)), None, None
            if r.dtype != o.dtype:
                return False, "%s dtype %s, expected %s" % (name, o.dtype, r.dtype), None, None
            if not o.is_cuda:
                self.flag("lazy_output", REFUSE, "%s is on %s, not on the GPU" % (name, o.device))
            rflat, oflat = r.reshape(-1), o.reshape(-1)
            nbad, nan_bad, first, max_abs, sum_abs, nfinite = 0, 0, None, float("nan"), 0.0, 0
            step = 1 << 26
            for c0 in range(0, rflat.numel(), step):
                rc, oc = rflat[c0:c0 + step], oflat[c0:c0 + step]
                if rc.is_floating_point():
                    if rc.dtype in (t.float16, t.bfloat16):
                        rc, oc = rc.float(), oc.float()
                    diff = (rc - oc).abs()
                    good = (diff <= atol + rtol * oc.abs()) | (rc == oc)  # NaN is never good
                    fin = t.isfinite(diff)
                    if bool(fin.any()):
                        m = float(diff[fin].max().item())
                        max_abs = m if max_abs != max_abs else max(max_abs, m)
                        sum_abs += float(diff[fin].double().sum().item())
                        nfinite += int(fin.sum().item())
                    nan_bad += int((t.isnan(oc) & t.isfinite(rc)).sum().item())
                else:
                    good = rc == oc
                    d = (rc.long() - oc.long()).abs()
                    m = float(d.max().item()) if d.numel() else 0.0
                    max_abs = m if max_abs != max_abs else max(max_abs, m)
                    sum_abs += float(d.double().sum().item())
                    nfinite += d.numel()
                bad = ~good
                nb = int(bad.sum().item())
                if nb and first is None:
                    first = c0 + int(bad.nonzero()[0].item())
                nbad += nb
            mean_abs = sum_abs / nfinite if nfinite else float("nan")
            stat = (max_abs, mean_abs)
            if worst is None or (max_abs == max_abs and (worst[0] != worst[0] or max_abs > worst[0])):
                worst = stat
            if nbad:
                detail = ("%s: %d of %d elements differ (atol=rtol=%g); max |diff| %.6g, mean |diff| %.6g; "
                          "first at %s: got %r, expected %r"
                          % (name, nbad, o.numel(), atol, max_abs, mean_abs, _unravel(first, tuple(o.shape)),
                             float(oflat[first].item()), float(rflat[first].item())))
                if nan_bad:
                    detail += ("; %d elements are NaN where the reference is finite (outputs left unwritten "
                               "show the poison pattern, NaN)" % nan_bad)
                    if "output_poison" not in self.checks_off:
                        self.flags.append({"check": "output_poison", "severity": WARN,
                                           "message": "%s (%s, trial %d): %d elements NaN where the reference "
                                                      "is finite" % (name, where, trial, nan_bad)})
                return False, detail, stat, None
            dt = _DTYPE_NAMES.get(str(r.dtype))
            if degenerate and outcheck.applies(dt):
                b = outcheck.bounds(dt, atol, rtol)
                st = outcheck.measure(t, r, o, b)
                coords = ", ".join(str(c) for c in _unravel(st["first_bad"], tuple(o.shape))) \
                    if st["first_bad"] >= 0 else None
                check, msg = outcheck.judge(st, b, str(i), coords, skip=self.checks_off)
                if check:
                    return False, msg, stat, check
        return True, "", worst, None

    def inputs_equal(self, a, b):
        """Bit-for-bit equality of the tensors in two argument lists."""
        t = self.torch
        for x, y in zip(a, b):
            if isinstance(x, t.Tensor):
                if x.shape != y.shape or x.dtype != y.dtype:
                    return False
                if not t.equal(x.contiguous().reshape(-1).view(t.uint8), y.contiguous().reshape(-1).view(t.uint8)):
                    return False
        return True

    def overlaps(self, xs, ys):
        for x in xs:
            if not isinstance(x, self.torch.Tensor) or x.numel() == 0:
                continue
            a0, a1 = self._span(x)
            for y in ys:
                if isinstance(y, self.torch.Tensor) and y.numel() and y.is_cuda:
                    b0, b1 = self._span(y)
                    if a0 < b1 and b0 < a1:
                        return True
        return False

    def clone(self, xs):
        return [x.clone() if isinstance(x, self.torch.Tensor) else x for x in xs]

    # --- running --------------------------------------------------------------------------------
    def call(self, model, args, who):
        try:
            out = model(*args)
            self._sync(self.dev)
        except Stop:
            raise
        except BaseException as e:
            raise self.runtime_stop("running %s" % who, e)
        return out

    def correctness(self):
        t = self.torch
        seed = int(self.cfg.get("seed", 42))
        n = int(self.cfg.get("correct_trials", 5))
        t.manual_seed(seed)
        seeds = [int(t.randint(0, 2 ** 32 - 1, (1,)).item()) for _ in range(n)]
        passed = 0
        stats = []
        prev = []
        self.result["trials_run"] = 0
        with t.no_grad():
            for i, s in enumerate(seeds):
                pristine = self.new_inputs(s)
                if i == 0:
                    self.result["in_bytes"] = _nbytes(t, pristine)
                    self.result["flops"] = self.count_flops(pristine, s)
                ref_in, cand_in = self.clone(pristine), self.clone(pristine)
                # Reference first (KernelBench's order) in even trials; candidate first in odd ones, so a
                # candidate output left unwritten cannot hold this trial's reference result.
                if i % 2 == 0:
                    self.set_seed(s)
                    ref_outs = self.outputs(self.call(self.ref, ref_in, "the reference"), "reference")
                    self.poison(POISON_NAN)
                    self.set_seed(s)
                    outs = self.outputs(self.call(self.cand, cand_in, "ModelNew"), "candidate")
                else:
                    self.poison(POISON_NAN)
                    self.set_seed(s)
                    outs = self.outputs(self.call(self.cand, cand_in, "ModelNew"), "candidate")
                    self.set_seed(s)
                    ref_outs = self.outputs(self.call(self.ref, ref_in, "the reference"), "reference")
                if i == 0:
                    self.result["out_bytes"] = _nbytes(t, ref_outs)
                    self.result["io_bytes"] = self.result["in_bytes"] + self.result["out_bytes"]
                    self.result["precision"] = {"reference": _dtype_name(ref_outs), "candidate": _dtype_name(outs)}
                self.result["trials_run"] = i + 1
                ins = [] if self.overlaps(ref_outs, ref_in) else [("input", cand_in)]
                self.check_alias(outs, ins + [("reference output", ref_outs), ("an earlier output", prev)])
                ref_changed = not self.inputs_equal(ref_in, pristine)
                if not ref_changed and not self.inputs_equal(cand_in, pristine):
                    self.flag("inputs_modified", REFUSE, "the candidate wrote into its inputs (trial %d)" % i)
                ok, detail, st, check = self.compare(ref_outs, outs, i, "correctness", degenerate=True)
                if st:
                    stats.append(st)
                if not ok:
                    self._diff_stats(stats)
                    self.result["trials_passed"] = passed
                    self.fail_trial("trial %d of %d (seed %d)" % (i + 1, n, s),
                                    "correctness trial %d of %d, inputs from seed %d" % (i + 1, n, s), detail, check)
                passed += 1
                prev = outs
                self.check_intact("while running ModelNew")
            self.result["trials_passed"] = passed
            self._diff_stats(stats)
            last = seeds[-1] if seeds else seed
            if self.cfg.get("mode", "eval") != "run":
                self.scaled_trial(last ^ 0x5CA1ED)
            self.extra_checks(last, pristine, ref_outs, outs)

    def fail_trial(self, where, log_where, detail, check):
        """Ends the evaluation as wrong_output: an element out of tolerance, or a degenerate-output check."""
        if check:
            self.flags.append({"check": check, "severity": FAIL, "message": "%s: %s" % (where, detail)})
            raise Stop("wrong_output", "%s: check '%s': %s" % (where, check, detail),
                       "%s:\nfailed dynamic check '%s': %s" % (log_where, check, detail))
        raise Stop("wrong_output", "%s: %s" % (where, detail.split(";")[0]), "%s:\n%s" % (log_where, detail))

    def count_flops(self, inputs, seed):
        """The reference's matrix-product FLOPs on one call (torch.utils.flop_counter), or None."""
        try:
            from torch.utils.flop_counter import FlopCounterMode
        except ImportError:
            return None
        try:
            fc = FlopCounterMode(display=False)
            self.set_seed(seed)
            with self.torch.no_grad(), fc:
                self.ref(*self.clone(inputs))
            self._sync(self.dev)
            counts = fc.get_flop_counts().get("Global", {})
        except Exception:
            return None  # the count is a hint; the correctness trials report the reference's own errors
        total = 0
        for op, n in counts.items():
            parts = str(op).split(".")
            if (parts[1] if len(parts) > 1 else parts[0]) in MATMUL_OPS:
                total += int(n)
        return float(total)

    def scaled_trial(self, seed):
        """One more trial with floating-point inputs multiplied by INPUT_SCALE: tiny outputs get a trial at
        meaningful magnitudes, and kernels that assume the task's input range show it. Skipped where the
        reference is not defined for such inputs."""
        t = self.torch
        prec = self.cfg.get("precision", "f32")
        scale = INPUT_SCALE.get(prec, 64.0)
        res = self.result["scaled_trial"] = {"status": "off", "scale": scale, "reason": None}
        if "scaled_inputs" in self.checks_off:
            res["reason"] = "switched off (--allow scaled_inputs)"
            return
        pristine = self.new_inputs(seed)
        floats = [x for x in pristine if isinstance(x, t.Tensor) and x.is_floating_point()]
        if not floats:
            res["status"], res["reason"] = "skipped", "the task has no floating-point inputs"
            return
        for x in floats:
            x.mul_(scale)
        ref_in, cand_in = self.clone(pristine), self.clone(pristine)
        try:
            self.set_seed(seed)
            ref_outs = self.outputs(self.call(self.ref, ref_in, "the reference"), "reference")
        except Stop as e:
            res["status"] = "skipped"
            res["reason"] = "the reference fails on inputs scaled x%g: %s" % (scale, e.message)
            return
        for o in ref_outs:
            if o.is_floating_point() and not bool(t.isfinite(o).all()):
                res["status"] = "skipped"
                res["reason"] = "the reference gives NaN or infinity on inputs scaled x%g" % scale
                return
        self.poison(POISON_NAN)
        self.set_seed(seed)
        outs = self.outputs(self.call(self.cand, cand_in, "ModelNew"), "candidate")
        ok, detail, _, check = self.compare(ref_outs, outs, 0, "scaled", degenerate=True)
        if ok:
            res["status"] = "passed"
            return
        res["status"] = "failed"
        res["reason"] = detail
        what = "with inputs scaled x%g" % scale
        if check:
            detail = "(%s) %s" % (check, detail)
        self.flag("scaled_inputs", FAIL, "%s: %s" % (what, detail))

    def _diff_stats(self, stats):
        finite = [s for s in stats if s[0] == s[0]]
        self.result["max_abs_diff"] = max((s[0] for s in finite), default=float("nan"))
        self.result["mean_abs_diff"] = max((s[1] for s in finite), default=float("nan"))

    def extra_checks(self, seed, pristine, ref_outs, last_outs):
        """repeat_mismatch and input_memo: the same inputs twice more with different poison; then new
        values written into the same input buffers."""
        if not pristine:
            return
        keep = [last_outs]
        if "repeat_mismatch" not in self.checks_off:
            for k, byte in enumerate((POISON_BIG, POISON_NAN)):
                args = self.clone(pristine)
                self.poison(byte)
                self.set_seed(seed)
                outs = self.outputs(self.call(self.cand, args, "ModelNew"), "candidate")
                self.check_alias(outs, [("reference output", ref_outs),
                                        ("an earlier output", [o for ks in keep for o in ks])])
                ok, detail, _, _ = self.compare(ref_outs, outs, k, "repeat")
                if not ok:
                    self.flag("repeat_mismatch", REFUSE, "a repeated run on the same inputs differs: " + detail)
                keep.append(outs)
        if "input_memo" not in self.checks_off:
            args = self.clone(pristine)
            self.set_seed(seed)
            self.call(self.cand, args, "ModelNew")
            fresh = self.new_inputs(seed ^ 0x5DEECE66D)
            for a, f in zip(args, fresh):
                if isinstance(a, self.torch.Tensor):
                    a.copy_(f)  # same addresses, new values
            ref_in = self.clone(args)
            self.set_seed(seed)
            new_ref = self.outputs(self.call(self.ref, ref_in, "the reference"), "reference")
            self.poison(POISON_NAN)
            self.set_seed(seed)
            outs = self.outputs(self.call(self.cand, args, "ModelNew"), "candidate")
            ok, detail, _, _ = self.compare(new_ref, outs, 0, "input_memo")
            if not ok:
                self.flag("input_memo", REFUSE, "new values in the same input buffers gave a stale result: " + detail)

    def clear_l2(self):
        self._flush.fill_(42)

    def host_trials(self, fn, n=HOST_TRIALS):
        """Calls of fn timed both ways: host wall time from launch to a full device sync, and CUDA
        events on the current stream. Returns the median of (host - event) in ms: the time work took
        that the events did not see (plus the harness's own fixed overhead)."""
        Event = self.saved["torch.cuda.Event"]
        flush = self._flush is not None
        gaps = []
        for _ in range(n):
            self._sync(self.dev)
            start, end = Event(enable_timing=True), Event(enable_timing=True)
            if flush:
                self.clear_l2()
            self._sync(self.dev)
            h0 = self._perf()
            self._record(start)
            fn()
            self._record(end)
            self._sync(self.dev)
            h1 = self._perf()
            gaps.append((h1 - h0) * 1e3 - self._elapsed(start, end))
        return util.stats(gaps)["median_ms"]

    def time_model(self, model, args, who):
        """KernelBench's cuda_event method; then host-timed calls for the host_time check."""
        t = self.torch
        warmup = int(self.cfg.get("warmup", 3))
        trials = int(self.cfg.get("trials", 100))
        discard = int(self.cfg.get("discard_first", 1))
        flush = self._flush is not None
        Event = self.saved["torch.cuda.Event"]
        times = []
        try:
            with t.no_grad():
                for _ in range(warmup):
                    model(*args)
                    self._sync(self.dev)
                t.cuda.empty_cache()
                for k in range(trials + discard):
                    self._sync(self.dev)
                    start, end = Event(enable_timing=True), Event(enable_timing=True)
                    if flush:
                        self.clear_l2()
                    self._record(start)
                    model(*args)
                    self._record(end)
                    self._sync(self.dev)
                    if k >= discard:
                        times.append(self._elapsed(start, end))
                gap = self.host_trials(lambda: model(*args))
        except Stop:
            raise
        except BaseException as e:
            raise self.runtime_stop("timing %s" % who, e)
        st = util.stats(times)
        st["host_median_ms"] = st["median_ms"] + gap
        return st, gap

    def timing(self):
        t = self.torch
        seed = int(self.cfg.get("seed", 42))
        self._flush = t.empty((32, 1024, 1024), dtype=t.int64, device=self.dev) if self.cfg.get("l2_flush", True) else None
        inputs = self.new_inputs(seed)
        if self.cfg.get("time_candidate", True):
            st, gap = self.time_model(self.cand, self.clone(inputs), "ModelNew")
            self.check_intact("during timing")
            # The same measurement around a call that does nothing: the harness's own overhead.
            base = self.host_trials(lambda: None)
            hidden = gap - base
            if hidden > max(0.5 * st["median_ms"], 0.02):
                self.flag("host_time", REFUSE,
                          "%.4g ms per call ran outside the CUDA events that timed %.4g ms (host time with a full "
                          "device sync minus event time, %.4g ms over a call that does nothing; median of %d "
                          "calls): work on another stream or deferred" % (hidden, st["median_ms"], base, HOST_TRIALS))
            self.result["runtime"] = st
        if self.cfg.get("time_reference", True):
            st, _ = self.time_model(self.ref, self.clone(inputs), "the reference")
            self.result["ref_runtime"] = st

    def loop(self, model, args, seconds):
        t = self.torch
        n = 0
        with t.no_grad():
            self._sync(self.dev)
            t0 = time.monotonic()
            while True:
                for _ in range(8):
                    model(*args)
                    n += 1
                self._sync(self.dev)
                if time.monotonic() - t0 >= seconds:
                    break
            t1 = time.monotonic()
        return {"iterations": n, "t0": t0, "t1": t1}

    def loops(self):
        seconds = float(self.cfg.get("loop_s", 0) or 0)
        if seconds <= 0:
            return
        inputs = self.new_inputs(int(self.cfg.get("seed", 42)))
        self.result["loop"] = self.loop(self.cand, self.clone(inputs), seconds)
        if self.cfg.get("time_reference", True):
            self.result["ref_loop"] = self.loop(self.ref, self.clone(inputs), seconds)

    def run_iters(self):
        """Prepared runs for profilers: `iters` calls inside the NVTX range "kp_candidate"."""
        t = self.torch
        iters = int(self.cfg.get("iters", 1))
        args = self.clone(self.new_inputs(int(self.cfg.get("seed", 42))))
        with t.no_grad():
            t.cuda.nvtx.range_push("kp_candidate")
            for _ in range(iters):
                self.cand(*args)
                self._sync(self.dev)
            t.cuda.nvtx.range_pop()
        self.result["iterations"] = iters

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
        self.load_task()
        self.build_reference()
        self.load_candidate()
        self.result["compiled"] = True
        if self.cfg.get("build_only"):
            return self.finish("compiled", "built")
        self.phase("load", "check")
        self.build_candidate()
        self.phase("correctness", "check")
        if mode == "run":
            self.cfg["correct_trials"] = 1
        self.correctness()
        if mode == "run":
            self.phase("run", "timing")
            self.run_iters()
            return self.finish("correct", "ran %d iterations" % self.result["iterations"])
        self.phase("timing", "timing")
        self.timing()
        if self.cfg.get("with_compile") and self.cfg.get("time_reference", True):
            self.time_compiled(self.new_inputs(int(self.cfg.get("seed", 42))))
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

    def time_compiled(self, inputs):
        """torch.compile(reference) (inductor, default mode), timed as the eager one; a failure to compile
        is recorded, not fatal."""
        t = self.torch
        try:
            t._dynamo.reset()
            compiled = t.compile(self.ref, backend="inductor", mode="default")
            cst, _ = self.time_model(compiled, self.clone(inputs), "torch.compile(reference)")
            self.result["compiled_runtime"] = cst
        except Stop as e:
            self.result["compile_error"] = e.message
            self.result["compile_log"] = util.excerpt(e.log, 4000)
        except BaseException as e:
            self.result["compile_error"] = "%s: %s" % (type(e).__name__, _first_line(e))

    def run_baseline(self):
        self.phase("build", "build")
        self.import_torch()
        self.load_task()
        self.build_reference()
        self.phase("timing", "timing")
        t = self.torch
        seed = int(self.cfg.get("seed", 42))
        self._flush = t.empty((32, 1024, 1024), dtype=t.int64, device=self.dev) if self.cfg.get("l2_flush", True) else None
        inputs = self.new_inputs(seed)
        self.result["in_bytes"] = _nbytes(t, inputs)
        self.result["flops"] = self.count_flops(inputs, seed)
        with t.no_grad():
            outs = self.outputs(self.call(self.ref, self.clone(inputs), "the reference"), "reference")
        self.result["out_bytes"] = _nbytes(t, outs)
        self.result["io_bytes"] = self.result["in_bytes"] + self.result["out_bytes"]
        self.result["precision"] = {"reference": _dtype_name(outs), "candidate": None}
        del outs
        st, _ = self.time_model(self.ref, self.clone(inputs), "the reference")
        self.result["ref_runtime"] = st
        if self.cfg.get("with_compile"):
            self.time_compiled(inputs)
        self.finish("correct", "reference timed")


def _nbytes(t, xs):
    return float(sum(x.numel() * x.element_size() for x in xs if isinstance(x, t.Tensor)))


def _dtype_name(outs):
    """The first floating-point output's dtype ("f32"), else the first output's."""
    for o in outs:
        if o.is_floating_point():
            return _DTYPE_NAMES.get(str(o.dtype), str(o.dtype))
    return _DTYPE_NAMES.get(str(outs[0].dtype), str(outs[0].dtype)) if outs else None


_DTYPE_NAMES = {"torch.float32": "f32", "torch.float16": "f16", "torch.bfloat16": "bf16", "torch.float64": "f64",
                "torch.int32": "i32", "torch.int64": "i64", "torch.int8": "i8", "torch.uint8": "u8"}


def _first_line(e):
    s = str(e).strip()
    return s.splitlines()[0][:400] if s else type(e).__name__


def _unravel(idx, shape):
    pos = []
    for d in reversed(shape):
        pos.append(idx % d if d else 0)
        idx = idx // d if d else 0
    return list(reversed(pos))


def main():
    chan = util.Channel()
    try:
        cfg = json.load(sys.stdin)
    except ValueError as e:
        chan.send({"result": {"status": "harness_error", "message": "bad config on stdin: %s" % e, "flags": []}})
        return 2
    faulthandler.enable()
    ad = Adapter(cfg, chan)
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


if __name__ == "__main__":
    sys.exit(main())

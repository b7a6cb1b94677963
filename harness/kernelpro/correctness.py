"""The PyTorch adapter's correctness phase: the trials (fresh inputs each, reference and candidate in
alternating order, poisoned free memory), the elementwise comparison and the degenerate-output checks,
the dynamic checks that need a correct candidate (repeat_mismatch, input_memo, output_alias,
inputs_modified), then the scaled trial (after the repeats: a candidate that goes wrong after its first
calls is told repeat_mismatch, not a wrong scaled output).

Copies: a trial draws its inputs once and keeps one pristine copy (inputs_modified compares against
it bit for bit). The second model of a trial runs on the same tensors as the first unless the first
wrote into them or returned memory that belongs to them; then it gets a copy of the pristine inputs.
What the trials learn about the reference (`ref_mutates`, `ref_aliases`) decides the copies of the
later phases.

Time: every piece of the phase's work runs inside a named part (part(): inputs, reference,
candidate, poison, input_checks, flops, compare, degenerate, intact; kp_torch adds triton), which
the result reports as correctness_parts (docs/eval.md, "Where the time goes").
"""

import contextlib
import os

from . import evidence
from . import inputs as kin
from . import outcheck
from . import util
from .state import AdapterState
from .util import DTYPE_NAMES, FAIL, REFUSE, WARN, Stop, dtype_name, unravel

POISON_NAN = 0xFF   # every byte 0xFF: NaN in f16/bf16/f32/f64, -1 in integers
POISON_BIG = 0x7F   # 0x7F7F7F7F: 3.4e38 in f32, a huge value in the other types too
# The scaled trial multiplies floating-point inputs by a power of two (exact: mantissas unchanged);
# fp16's range is small (65504), so less there (docs/eval.md).
INPUT_SCALE = {"f32": 64.0, "f64": 64.0, "bf16": 64.0, "f16": 4.0}
# Matrix products whose counted FLOPs an honest kernel cannot avoid (convolutions and attention are
# left out: Winograd, FFT and causal kernels do less work than the count).
MATMUL_OPS = ("mm", "bmm", "addmm", "baddbmm")
COMPARE_STEP = 1 << 26
_NO_PART = contextlib.nullcontext()


def elementwise(t, r, o, atol, rtol, step=COMPARE_STEP):
    """torch.allclose's test per element (NaN never passes), in chunks, accumulated on the device and read
    once: {"nbad", "nan_bad", "max_abs", "mean_abs", "first"} (first: flat index of the first failing
    element, -1 when none)."""
    rflat, oflat = r.reshape(-1), o.reshape(-1)
    f64 = t.float64
    acc = t.zeros(4, dtype=f64, device=rflat.device)  # nbad, nan_bad, sum |diff|, finite count
    top = t.zeros((), dtype=f64, device=rflat.device)  # max |diff| over finite elements
    floating = rflat.is_floating_point()

    def bad_of(c0):
        rc, oc = rflat[c0:c0 + step], oflat[c0:c0 + step]
        if not floating:
            return ~(rc == oc), None, rc, oc
        if rc.dtype in (t.float16, t.bfloat16):
            rc, oc = rc.float(), oc.float()
        diff = (rc - oc).abs()
        good = (diff <= atol + rtol * oc.abs()) | (rc == oc)  # NaN is never good
        return ~good, diff, rc, oc

    for c0 in range(0, rflat.numel(), step):
        bad, diff, rc, oc = bad_of(c0)
        if floating:
            fin = t.isfinite(diff)
            dz = t.where(fin, diff, t.zeros((), dtype=diff.dtype, device=diff.device))
            nan_bad = (t.isnan(oc) & t.isfinite(rc)).sum().to(f64)
            nfin = fin.sum().to(f64)
        else:
            dz = (rc.long() - oc.long()).abs()
            nan_bad = t.zeros((), dtype=f64, device=acc.device)
            nfin = t.full((), float(dz.numel()), dtype=f64, device=acc.device)
        acc += t.stack([bad.sum().to(f64), nan_bad, dz.sum(dtype=f64), nfin])
        top = t.maximum(top, dz.max().to(f64))
    nbad, nan_bad, sum_abs, nfin, max_abs = t.cat([acc, top.reshape(1)]).tolist()  # one read, one sync
    res = {"nbad": int(nbad), "nan_bad": int(nan_bad), "first": -1,
           "max_abs": float(max_abs) if nfin else float("nan"),
           "mean_abs": sum_abs / nfin if nfin else float("nan")}
    if res["nbad"]:  # only a failing output pays for finding its first bad element
        for c0 in range(0, rflat.numel(), step):
            idx = bad_of(c0)[0].nonzero()
            if idx.numel():
                res["first"] = c0 + int(idx[0].item())
                break
    return res


class Correctness(AdapterState):
    """Mixed into the adapter (kp_torch.Adapter): uses its torch, cfg, result, flag(), set_seed(), inputs
    (kernelpro.inputs.InputMaker), ref and cand."""

    ref_mutates = False  # the reference writes into its inputs (some in-place models do)
    ref_aliases = False  # the reference returns memory of its inputs (views, in-place results)
    parts = None         # kernelpro.util.Parts while the correctness phase runs (kp_torch.Adapter.phase)

    def part(self, name):
        """A context that clocks its block as the part `name` of the correctness phase; nothing outside it."""
        return self.parts.part(name) if self.parts is not None else _NO_PART

    # --- running -------------------------------------------------------------------------------
    recorder = None  # kernelpro.evidence.Recorder while the first trial records each side's first call
    records = None
    evidence_why = None

    def call(self, model, args, who):
        side = "reference" if model is self.ref else "candidate"
        try:
            with self.part(side):
                if self.recorder is not None and side not in self.records:
                    out = self.recorded_call(side, model, args)
                else:
                    out = model(*args)
                self._sync(self.dev)
        except Stop:
            raise
        except BaseException as e:
            raise self.runtime_stop("running %s" % who, e)
        return out

    def recorded_call(self, side, model, args):
        """One call under the evidence recorder. When recording fails the call runs again plainly: an
        error of the model's own then surfaces as usual, one of the recorder's only ends the record."""
        try:
            out, self.records[side] = self.recorder.record(lambda: model(*args))
            return out
        except Stop:
            raise
        except BaseException as e:
            self.recorder = None
            self.evidence_why = "recording %s's call failed: %s: %s" % (side, type(e).__name__, str(e)[:200])
        return model(*args)

    def start_evidence(self):
        """The recorder for the first trial (docs/eval.md, "Runtime evidence"): the ATen ops; the kernels
        too with KERNELPRO_EVIDENCE=kernels; nothing with KERNELPRO_EVIDENCE=off, and in prepared runs
        (a profiler of its own is attached there)."""
        self.records = {}
        want = os.environ.get("KERNELPRO_EVIDENCE", "ops")
        if want == "off":
            self.evidence_why = "switched off (KERNELPRO_EVIDENCE=off)"
            return
        kernels = want == "kernels"
        if kernels and os.environ.get("CUDA_INJECTION64_PATH"):  # compute-sanitizer, ncu or nsys holds CUPTI
            self.evidence_why = "kernels not recorded: another CUDA tool is attached (CUDA_INJECTION64_PATH)"
            kernels = False
        try:
            self.recorder = evidence.Recorder(self.torch, lambda: self._sync(self.dev), kernels=kernels)
        except evidence.Recorder.Unavailable as e:
            self.evidence_why = "no recorder here: %s" % e

    def judge_evidence(self):
        """After the first trial: the record into the result, and the checks that rest on it."""
        self.recorder = None
        recs = self.records or {}
        if "candidate" not in recs or "reference" not in recs:
            self.result["runtime_evidence"] = {"recorded": False,
                                               "why": self.evidence_why or "the first trial recorded nothing"}
            return
        # The kernels its source defines: none known without the source (a test's adapter, a
        # candidate given as a module), and then the record alone decides which kernels are its own.
        path, defined, no_source = self.cfg.get("candidate"), set(), None
        if not path:
            no_source = "no candidate source file"
        else:
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    defined = evidence.candidate_kernels(f.read())
            except OSError as e:
                no_source = "candidate source unreadable: %s" % util.first_line(e)[:160]
        self.result["runtime_evidence"] = evidence.summary(recs, defined)
        if no_source is not None:
            self.result["runtime_evidence"]["no_source"] = no_source + \
                " (its own kernels from the record only: neither the reference's nor PyTorch's)"
        if recs["candidate"].get("kernels") is None:
            self.result["runtime_evidence"]["why"] = self.evidence_why or \
                "kernels not recorded (KERNELPRO_EVIDENCE=kernels records them: ~5 s more per evaluation)"
        check, msg = evidence.judge(recs, defined)
        if check is not None:
            self.flag(check, REFUSE, msg)

    def copy(self, args):
        with self.part("inputs"):
            return kin.clone(self.torch, args)

    def same(self, a, b):
        with self.part("input_checks"):
            return kin.same(self.torch, a, b)

    def overlap(self, xs, ys):
        with self.part("input_checks"):
            return kin.overlaps(self.torch, xs, ys)

    def run_ref(self, args, seed):
        self.set_seed(seed)
        return self.outputs(self.call(self.ref, args, "the reference"), "reference")

    def run_cand(self, args, seed):
        self.poison(POISON_NAN)
        self.set_seed(seed)
        return self.outputs(self.call(self.cand, args, "ModelNew"), "candidate")

    def private(self, args):
        """The inputs a later call may use: the same tensors, or a copy where the reference writes into or
        returns its inputs (then each call needs its own)."""
        return self.copy(args) if self.ref_mutates or self.ref_aliases else args

    def outputs(self, out, who):
        t = self.torch
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        for i, o in enumerate(outs):
            if who == "candidate" and isinstance(o, t.Tensor) and type(o) is not t.Tensor:
                self.flag("lazy_output", REFUSE, "output %d is a %s, not a plain torch.Tensor" % (i, type(o).__name__))
            if not isinstance(o, t.Tensor):
                raise Stop("wrong_output", "%s output %d is a %s, not a tensor" % (who, i, type(o).__name__))
        return outs

    def check_alias(self, outs, against):
        for i, o in enumerate(outs):
            if o.numel() == 0:
                continue
            for what, ts in against:
                for j, x in enumerate(ts):
                    if self.overlap([o], [x]):
                        self.flag("output_alias", REFUSE, "output %d shares memory with %s %d" % (i, what, j))

    def poison(self, byte):
        """Fills every free block of the caching allocator with `byte`, so a candidate's new
        allocation cannot hold an earlier result (Sakana's exploit read the reference's)."""
        with self.part("poison"):
            self._poison(byte)

    def _poison(self, byte):
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

    # --- comparing -----------------------------------------------------------------------------
    def compare(self, ref_outs, outs, trial, where, degenerate=False, atols=None):
        """torch.allclose(ref, out, atol, rtol) per output, as KernelBench, except that NaN never passes
        and dtype must match; `atols`: each output's atol where it is not the task's (the scaled trial).
        With `degenerate`, floating-point outputs that pass are also judged by the degenerate-output
        checks (kernelpro/outcheck.py). Returns (ok, detail, (max_abs, mean_abs), failed check id or
        None)."""
        rtol = self.cfg["rtol"]
        if len(ref_outs) != len(outs):
            return False, "%d outputs, the reference returns %d" % (len(outs), len(ref_outs)), None, None
        worst = None
        for i, (r, o) in enumerate(zip(ref_outs, outs)):
            atol = atols[i] if atols else self.cfg["atol"]
            name = "output" if len(outs) == 1 else "output %d" % i
            if tuple(r.shape) != tuple(o.shape):
                return False, "%s shape %s, expected %s" % (name, tuple(o.shape), tuple(r.shape)), None, None
            if r.dtype != o.dtype:
                return False, "%s dtype %s, expected %s" % (name, o.dtype, r.dtype), None, None
            if o.device.type != self.dev.type:
                self.flag("lazy_output", REFUSE, "%s is on %s, not on the GPU" % (name, o.device))
            with self.part("compare"):
                e = elementwise(self.torch, r, o, atol, rtol)
            stat = (e["max_abs"], e["mean_abs"])
            m = e["max_abs"]
            if worst is None or (m == m and (worst[0] != worst[0] or m > worst[0])):
                worst = stat
            if e["nbad"]:
                first = e["first"]
                detail = ("%s: %d of %d elements differ (atol %g, rtol %g); max |diff| %.6g, mean |diff| %.6g; "
                          "first at %s: got %r, expected %r"
                          % (name, e["nbad"], o.numel(), atol, rtol, e["max_abs"], e["mean_abs"],
                             unravel(first, tuple(o.shape)), float(o.reshape(-1)[first].item()),
                             float(r.reshape(-1)[first].item())))
                if e["nan_bad"]:
                    detail += ("; %d elements are NaN where the reference is finite (outputs left unwritten "
                               "show the poison pattern, NaN)" % e["nan_bad"])
                    if "output_poison" not in self.checks_off:
                        self.flags.append({"check": "output_poison", "severity": WARN,
                                           "message": "%s (%s, trial %d): %d elements NaN where the reference "
                                                      "is finite" % (name, where, trial, e["nan_bad"])})
                return False, detail, stat, None
            dt = DTYPE_NAMES.get(str(r.dtype))
            if degenerate and outcheck.applies(dt):
                b = outcheck.bounds(dt, atol, rtol)
                with self.part("degenerate"):
                    st = outcheck.measure(self.torch, r, o, b)
                coords = ", ".join(str(c) for c in unravel(st["first_bad"], tuple(o.shape))) \
                    if st["first_bad"] >= 0 else None
                check, msg = outcheck.judge(st, b, str(i), coords, skip=self.checks_off)
                if check:
                    return False, msg, stat, check
        return True, "", worst, None

    def fail_trial(self, where, log_where, detail, check):
        """Ends the evaluation as wrong_output: an element out of tolerance, or a degenerate-output check."""
        if check:
            self.flags.append({"check": check, "severity": FAIL, "message": "%s: %s" % (where, detail)})
            raise Stop("wrong_output", "%s: check '%s': %s" % (where, check, detail),
                       "%s:\nfailed dynamic check '%s': %s" % (log_where, check, detail))
        raise Stop("wrong_output", "%s: %s" % (where, detail.split(";")[0]), "%s:\n%s" % (log_where, detail))

    def _diff_stats(self, stats):
        finite = [s for s in stats if s[0] == s[0]]
        self.result["max_abs_diff"] = max((s[0] for s in finite), default=float("nan"))
        self.result["mean_abs_diff"] = max((s[1] for s in finite), default=float("nan"))

    # --- the trials ----------------------------------------------------------------------------
    def trial(self, i, s, x, pristine):
        """One trial on inputs x (pristine: their copy). Reference first (KernelBench's order) in even
        trials, candidate first in odd ones, so a candidate output left unwritten cannot hold this trial's
        reference result. Returns (ref_outs, outs, the candidate's inputs)."""
        if i % 2 == 0:
            ref_in = x
            ref_outs = self.run_ref(ref_in, s)
            self.learn_reference(ref_in, ref_outs, pristine)
            cand_in = ref_in if not (self.ref_changed or self.overlap(ref_outs, ref_in)) else self.copy(pristine)
            outs = self.run_cand(cand_in, s)
            cand_changed = not self.same(cand_in, pristine)
        else:
            cand_in = x
            outs = self.run_cand(cand_in, s)
            cand_changed = not self.same(cand_in, pristine)
            ref_in = cand_in if not (cand_changed or self.overlap(outs, cand_in)) else self.copy(pristine)
            ref_outs = self.run_ref(ref_in, s)
            self.learn_reference(ref_in, ref_outs, pristine)
        self.result["trials_run"] = i + 1
        ins = [] if self.overlap(ref_outs, ref_in) else [("input", cand_in)]
        self.check_alias(outs, ins + [("reference output", ref_outs)])
        if cand_changed and not self.ref_changed:
            self.flag("inputs_modified", REFUSE, "the candidate wrote into its inputs (trial %d)" % i)
        return ref_outs, outs, cand_in

    def learn_reference(self, ref_in, ref_outs, pristine):
        self.ref_changed = not self.same(ref_in, pristine)
        self.ref_mutates = self.ref_mutates or self.ref_changed
        self.ref_aliases = self.ref_aliases or self.overlap(ref_outs, ref_in)

    def correctness(self):
        """The trials, then the checks that need a correct candidate. In a prepared run (mode "run", a
        candidate put under a profiler after the evaluation that found it correct): one compared trial,
        so the profiled calls belong to a candidate that still gives the reference's output, and none of
        what that evaluation already did: no FLOP count, no degenerate-output statistics, no
        repeat_mismatch / input_memo, no scaled trial (4.8 s and 0.4 s of a 10 s prepared run on a
        6 GiB task)."""
        t = self.torch
        seed = int(self.cfg.get("seed", 42))
        prepared = self.cfg.get("mode", "eval") == "run"
        n = 1 if prepared else int(self.cfg.get("correct_trials", 5))
        t.manual_seed(seed)
        seeds = [int(t.randint(0, 2 ** 32 - 1, (1,)).item()) for _ in range(n)]
        passed = 0
        stats = []
        prev = []
        self.result["trials_run"] = 0
        if not prepared:
            self.start_evidence()
        with t.no_grad():
            for i, s in enumerate(seeds):
                x = self.inputs.make(s)
                pristine = self.copy(x)
                if i == 0:
                    self.result["in_bytes"] = kin.nbytes(t, pristine)
                ref_outs, outs, _ = self.trial(i, s, x, pristine)
                if i == 0:
                    self.result["out_bytes"] = kin.nbytes(t, ref_outs)
                    self.result["io_bytes"] = self.result["in_bytes"] + self.result["out_bytes"]
                    self.result["precision"] = {"reference": dtype_name(ref_outs), "candidate": dtype_name(outs)}
                    if not prepared:
                        with self.part("flops"):
                            self.result["flops"] = self.count_flops(self.private(pristine), s)
                self.check_alias(outs, [("an earlier output", prev)])
                ok, detail, st, check = self.compare(ref_outs, outs, i, "correctness", degenerate=not prepared)
                if st:
                    stats.append(st)
                if not ok:
                    self._diff_stats(stats)
                    self.result["trials_passed"] = passed
                    self.fail_trial("trial %d of %d (seed %d)" % (i + 1, n, s),
                                    "correctness trial %d of %d, inputs from seed %d" % (i + 1, n, s), detail, check)
                passed += 1
                prev = outs
                if i == 0 and not prepared:
                    self.judge_evidence()
                with self.part("intact"):
                    self.check_intact("while running ModelNew")
            self.result["trials_passed"] = passed
            self._diff_stats(stats)
            self.result["inputs"] = self.inputs.describe()
            if prepared:
                return
            last = seeds[-1] if seeds else seed
            self.extra_checks(last, pristine, ref_outs, outs)
            self.scaled_trial(last ^ 0x5CA1ED)

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
                self.ref(*inputs)
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
        meaningful magnitudes, and kernels that assume the task's input range show it. Each output's atol
        is widened to the rounding error its scaled magnitudes allow (outcheck.scaled_atol). Skipped
        where the reference is not defined for such inputs."""
        t = self.torch
        prec = self.cfg.get("precision", "f32")
        scale = INPUT_SCALE.get(prec, 64.0)
        res = self.result["scaled_trial"] = {"status": "off", "scale": scale, "reason": None}
        if "scaled_inputs" in self.checks_off:
            res["reason"] = "switched off (--allow scaled_inputs)"
            return
        x = self.inputs.make(seed)
        floats = [a for a in x if isinstance(a, t.Tensor) and a.is_floating_point()]
        if not floats:
            res["status"], res["reason"] = "skipped", "the task has no floating-point inputs"
            return
        for a in floats:
            a.mul_(scale)
        cand_in = self.private(x)  # the reference runs first, on x
        try:
            ref_outs = self.run_ref(x, seed)
        except Stop as e:
            res["status"] = "skipped"
            res["reason"] = "the reference fails on inputs scaled x%g: %s" % (scale, e.message)
            return
        for o in ref_outs:
            if o.is_floating_point() and not bool(t.isfinite(o).all()):
                res["status"] = "skipped"
                res["reason"] = "the reference gives NaN or infinity on inputs scaled x%g" % scale
                return
        atol = self.cfg["atol"]
        atols = [outcheck.scaled_atol(DTYPE_NAMES.get(str(o.dtype)), atol, outcheck.rms(t, o))
                 if o.is_floating_point() else atol for o in ref_outs]
        outs = self.run_cand(cand_in, seed)
        ok, detail, _, check = self.compare(ref_outs, outs, 0, "scaled", degenerate=True, atols=atols)
        if ok:
            res["status"] = "passed"
            return
        res["status"] = "failed"
        res["reason"] = detail
        what = "with inputs scaled x%g" % scale
        if check:
            detail = "(%s) %s" % (check, detail)
        self.flag("scaled_inputs", FAIL, "%s: %s" % (what, detail))

    def extra_checks(self, seed, pristine, ref_outs, last_outs):
        """repeat_mismatch and input_memo: the same inputs twice more with different poison; then new
        values written into the same input buffers."""
        if not pristine:
            return
        t = self.torch
        keep = [last_outs]
        if "repeat_mismatch" not in self.checks_off:
            for k, byte in enumerate((POISON_BIG, POISON_NAN)):
                args = self.private(pristine)
                self.poison(byte)
                self.set_seed(seed)
                outs = self.outputs(self.call(self.cand, args, "ModelNew"), "candidate")
                self.check_alias(outs, [("reference output", ref_outs),
                                        ("an earlier output", [o for ks in keep for o in ks])])
                ok, detail, _, _ = self.compare(ref_outs, outs, k, "repeat")
                if not ok:
                    self.flag("repeat_mismatch", REFUSE, "a repeated run on the same inputs differs: " + detail)
                keep.append(outs)
        del keep
        if "input_memo" not in self.checks_off:
            args = self.private(pristine)
            self.set_seed(seed)
            self.call(self.cand, args, "ModelNew")
            fresh = self.inputs.make(seed ^ 0x5DEECE66D)
            with self.part("inputs"):
                for a, f in zip(args, fresh):
                    if isinstance(a, t.Tensor):
                        a.copy_(f)  # same addresses, new values
            del fresh
            new_ref = self.run_ref(self.private(args), seed)
            outs = self.run_cand(args, seed)
            ok, detail, _, _ = self.compare(new_ref, outs, 0, "input_memo")
            if not ok:
                self.flag("input_memo", REFUSE, "new values in the same input buffers gave a stale result: " + detail)

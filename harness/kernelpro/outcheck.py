"""Degenerate-output checks for the PyTorch adapter: outputs that pass the elementwise tolerance without
being right (zeros or a constant where the reference varies, an error large for the reference's own
scale, agreement on only part of the elements).

The judgement (bounds, layouts, judge) is pure Python and mirrors lib/eval/outcheck.c line for line;
both are held to tests/golden/eval/outcheck-cases.json. `measure` and `groups` compute the statistics
with torch (any device: tests/python runs them on CPU tensors where torch is installed), in chunks so
huge outputs need little extra memory.
"""

import math

CONSTANT, PARTIAL, RELATIVE = "constant_output", "partial_match", "relative_error"
ORDER = (CONSTANT, PARTIAL, RELATIVE)
MIN_GROUP = 32
EPS = {"f32": 2.0 ** -23, "f16": 2.0 ** -10, "bf16": 2.0 ** -7, "f64": 2.0 ** -52}
# The scaled trial's widening of atol, in units of rms(ref) (kp_outcheck_scaled_atol in outcheck.c).
SCALED_ACC_UNITS, SCALED_OUT_UNITS = 128, 4


def applies(dtype):
    return dtype in EPS


def bounds(dtype, atol, rtol):
    """rel: the relative error no honest kernel comes near; noise: below noise * max|ref| a value is
    rounding noise; frac: more than this share of elements (rows, channels) wrong fails."""
    eps = EPS.get(dtype, EPS["f32"])
    r = 0.0 if rtol is None or rtol != rtol else float(rtol)
    return {"rel": max(10 * r, 8 * eps, 1e-3), "noise": 4 * eps, "frac": 0.01, "atol": atol, "rtol": rtol}


def scaled_atol(dtype, atol, ref_rms):
    """The scaled trial's atol for one output: max(atol, max(128 * acc_eps, 4 * eps) * ref_rms), acc_eps
    fp32's unit roundoff (fp64's for fp64 outputs); the task's atol for integer dtypes and a reference RMS
    that is not a positive finite number (docs/eval.md, the scaled trial)."""
    if dtype not in EPS or not (ref_rms == ref_rms and 0 < ref_rms < float("inf")):
        return atol
    acc = EPS["f64"] if dtype == "f64" else EPS["f32"]
    return max(atol, max(SCALED_ACC_UNITS * acc, SCALED_OUT_UNITS * EPS[dtype]) * ref_rms)


def layouts(shape):
    """{"rows": (inner, nseg, size) or None, "chans": ...}: group(i) = (i // inner) % nseg."""
    shape = [int(d) for d in shape]
    numel = 1
    for d in shape:
        numel *= d
    rows = chans = None
    if len(shape) >= 2 and numel > 0:
        if shape[-1] >= MIN_GROUP and numel // shape[-1] >= 2:
            rows = (shape[-1], numel // shape[-1], shape[-1])
        if shape[1] >= 2 and numel // shape[1] >= MIN_GROUP:
            inner = 1
            for d in shape[2:]:
                inner *= d
            chans = (inner, shape[1], numel // shape[1])
    return {"rows": rows, "chans": chans}


def no_groups():
    return {"n": 0, "size": 0, "considered": 0, "bad": 0, "worst": -1, "worst_rel": 0.0}


def groups(t, r2, d2, size, ref_maxabs, b):
    """Classifies groups from per-group sums of ref^2 and (out - ref)^2 (float64 tensors): a group counts
    when its reference RMS is above noise * ref_maxabs, and is bad when sqrt(d2) > rel * sqrt(r2)."""
    g = no_groups()
    g["n"], g["size"] = int(r2.numel()), size
    counted = (r2 / size).sqrt() > b["noise"] * ref_maxabs
    rel = t.where(counted, d2.sqrt() / r2.sqrt().clamp_min(1e-300), t.zeros_like(r2))
    bad = counted & (rel > b["rel"])
    g["considered"], g["bad"] = (int(v) for v in t.stack([counted.sum(), bad.sum()]).tolist())  # one sync
    if g["bad"]:
        worst = t.where(bad, rel, t.full_like(rel, -1.0))
        g["worst"] = int(worst.argmax().item())
        g["worst_rel"] = float(rel[g["worst"]].item())
    return g


def _too_many(bad, of, frac):
    return bad > 0 and bad > frac * of


def _group_message(g, b, name, what):
    return ("output '%s': %d of %d %ss (%d elements each) have ||out - ref|| / ||ref|| above %g (worst: %s %d, "
            "%.3g) though every element is within atol=%g: %ss whose values are small next to the rest are wrong; "
            "compute them as carefully as the large ones"
            % (name, g["bad"], g["considered"], what, g["size"], b["rel"], what, g["worst"], g["worst_rel"],
               b["atol"], what))


def judge(s, b, name, coords=None, skip=()):
    """(check id or None, message) for one output whose elements all passed the elementwise tolerance."""
    n = s["n"]
    if n <= 0:
        return None, ""
    ref_rms = math.sqrt(s["ref_sumsq"] / n)
    rel = math.sqrt(s["diff_sumsq"] / s["ref_sumsq"]) if s["ref_sumsq"] > 0 else 0.0
    if (CONSTANT not in skip and n >= 2 and s["out_min"] == s["out_max"]
            and s["ref_max"] - s["ref_min"] > b["rel"] * s["ref_maxabs"]):
        return CONSTANT, ("output '%s' is constant (every element %.6g) where the reference's varies from %.6g to "
                          "%.6g: it is within atol=%g only because the reference's values are that small; compute "
                          "each element (an all-zero output usually means the kernel never ran or wrote elsewhere)"
                          % (name, s["out_min"], s["ref_min"], s["ref_max"], b["atol"]))
    if PARTIAL not in skip and _too_many(s["nbad"], n, b["frac"]):
        return PARTIAL, ("output '%s': %d of %d elements (%.3g%%) differ from the reference by more than %g of its "
                         "scale (|out - ref| > %g * (|ref| + rms(ref)), rms(ref) = %.3g), though each is within "
                         "atol=%g; first at [%s]: got %.9g, expected %.9g. The output is right only on part of its "
                         "elements: compute every element"
                         % (name, s["nbad"], n, 100.0 * s["nbad"] / n, b["rel"], b["rel"], ref_rms, b["atol"],
                            coords if coords is not None else "?", s["first_got"], s["first_want"]))
    if RELATIVE in skip:
        return None, ""
    if rel > b["rel"]:
        return RELATIVE, ("output '%s': ||out - ref|| / ||ref|| = %.3g, above %g: the error is large for the "
                          "reference's own scale (rms(ref) = %.3g) though every element is within atol=%g; the "
                          "values are wrong, only small" % (name, rel, b["rel"], ref_rms, b["atol"]))
    for key, what in (("rows", "row"), ("chans", "channel")):
        g = s.get(key) or no_groups()
        if g["n"] > 0 and _too_many(g["bad"], g["considered"], b["frac"]):
            return RELATIVE, _group_message(g, b, name, what)
    return None, ""


# --- measuring, with torch ------------------------------------------------------------------------

def _valid_end(c0, c1, inner, nseg):
    """The largest end <= c1 for a chunk starting at c0 that maps to groups (i // inner) % nseg simply:
    whole slabs of inner * nseg elements, whole groups inside one slab, or a piece of one group."""
    slab = inner * nseg
    if c0 % slab == 0 and c1 - c0 >= slab:
        return c0 + (c1 - c0) // slab * slab
    if c0 % inner == 0 and c1 - c0 >= inner:
        c1 = min(c1, (c0 // slab + 1) * slab)
        return c0 + (c1 - c0) // inner * inner
    return min(c1, (c0 // inner + 1) * inner)


def _spans(numel, lays, step):
    """Flat [c0, c1) ranges of at most `step` elements covering [0, numel), each of which every layout
    (inner, nseg) in `lays` can sum per group without an index per element (_add_groups)."""
    c0 = 0
    while c0 < numel:
        c1 = min(numel, c0 + step)
        while True:  # each layout may only shorten the chunk; a one-element chunk suits them all
            e = c1
            for inner, nseg in lays:
                e = _valid_end(c0, e, inner, nseg)
            if e == c1:
                break
            c1 = e
        yield c0, c1
        c0 = c1


def _add_groups(acc, v, c0, c1, inner, nseg):
    """Adds a chunk's per-element values `v` (flat [c0, c1), shaped as _spans makes them) into the
    per-group accumulator `acc`: on the device, no host synchronisation."""
    slab = inner * nseg
    if c0 % slab == 0 and (c1 - c0) % slab == 0:
        acc += v.reshape(-1, nseg, inner).sum(dim=(0, 2))
    elif c0 % inner == 0 and (c1 - c0) % inner == 0:
        g0, cnt = (c0 // inner) % nseg, (c1 - c0) // inner
        acc[g0:g0 + cnt] += v.reshape(cnt, inner).sum(dim=1)
    else:
        acc[(c0 // inner) % nseg] += v.sum()


def rms(t, ref, step=1 << 24):
    """sqrt(mean(ref^2)) over the finite elements of a floating-point tensor, in float64 chunks on its
    device (0.0 when none is finite)."""
    r = ref.reshape(-1)
    f64 = t.float64
    acc = t.zeros(2, dtype=f64, device=r.device)
    for c0 in range(0, r.numel(), step):
        rc = r[c0:c0 + step].to(f64)
        fin = t.isfinite(rc)
        acc += t.stack([t.where(fin, rc * rc, t.zeros((), dtype=f64, device=r.device)).sum(), fin.sum().to(f64)])
    sumsq, n = acc.tolist()
    return math.sqrt(sumsq / n) if n else 0.0


def measure(t, ref, out, b, step=1 << 24):
    """Statistics of one floating-point output (torch tensors of one shape, any device). Two passes in
    float64 chunks of `step` elements: the first gathers the sums, extremes and per-group sums, the
    second counts elements off by more than rel of the reference's scale (it needs the first's RMS).
    Everything accumulates on the tensors' device; the host reads it once per pass."""
    shape = tuple(ref.shape)
    r, o = ref.reshape(-1), out.reshape(-1)
    numel = r.numel()
    dev = r.device
    f64 = t.float64
    s = {"n": 0, "ref_min": 0.0, "ref_max": 0.0, "ref_maxabs": 0.0, "ref_sumsq": 0.0, "out_min": 0.0,
         "out_max": 0.0, "diff_sumsq": 0.0, "nbad": 0, "first_bad": -1, "first_got": 0.0, "first_want": 0.0,
         "rows": no_groups(), "chans": no_groups()}
    if numel == 0:
        return s
    lay = layouts(shape)
    keys = [k for k in ("rows", "chans") if lay[k] is not None]
    accs = {k: (t.zeros(lay[k][1], dtype=f64, device=dev), t.zeros(lay[k][1], dtype=f64, device=dev)) for k in keys}
    spans = list(_spans(numel, [lay[k][:2] for k in keys], step))
    inf = float("inf")
    hi = t.full((5,), -inf, dtype=f64, device=dev)  # maxima of -ref, ref, -out, out, |ref|
    sums = t.zeros(3, dtype=f64, device=dev)  # n, sum ref^2, sum (out - ref)^2

    def pair(c0, c1):
        rc, oc = r[c0:c1].to(f64), o[c0:c1].to(f64)
        return rc, oc, t.isfinite(rc) & t.isfinite(oc)

    for c0, c1 in spans:
        rc, oc, fin = pair(c0, c1)
        zero = t.zeros((), dtype=f64, device=dev)
        r2 = t.where(fin, rc * rc, zero)
        d2 = t.where(fin, (oc - rc) ** 2, zero)
        hi = t.maximum(hi, t.stack([t.where(fin, -rc, -inf).max(), t.where(fin, rc, -inf).max(),
                                    t.where(fin, -oc, -inf).max(), t.where(fin, oc, -inf).max(),
                                    t.where(fin, rc.abs(), -inf).max()]))
        sums += t.stack([fin.sum().to(f64), r2.sum(), d2.sum()])
        for k in keys:
            _add_groups(accs[k][0], r2, c0, c1, *lay[k][:2])
            _add_groups(accs[k][1], d2, c0, c1, *lay[k][:2])
    both = t.cat([hi, sums]).tolist()  # one read, one sync
    h, (n, ref_sumsq, diff_sumsq) = both[:5], both[5:]
    if not n:
        return s
    s.update(n=int(n), ref_min=-h[0], ref_max=h[1], out_min=-h[2], out_max=h[3], ref_maxabs=h[4],
             ref_sumsq=ref_sumsq, diff_sumsq=diff_sumsq)
    rms = math.sqrt(ref_sumsq / n)
    nbad = t.zeros((), dtype=t.int64, device=dev)
    for c0, c1 in spans:
        rc, oc, fin = pair(c0, c1)
        nbad += (fin & ((oc - rc).abs() > b["rel"] * (rc.abs() + rms))).sum()
    s["nbad"] = int(nbad.item())
    if s["nbad"]:  # only a failing output pays for finding its first bad element
        for c0, c1 in spans:
            rc, oc, fin = pair(c0, c1)
            bad = fin & ((oc - rc).abs() > b["rel"] * (rc.abs() + rms))
            idx = bad.nonzero()
            if idx.numel():
                j = int(idx[0].item())
                s["first_bad"], s["first_got"], s["first_want"] = c0 + j, float(oc[j].item()), float(rc[j].item())
                break
    for k in keys:
        s[k] = groups(t, accs[k][0], accs[k][1], lay[k][2], s["ref_maxabs"], b)
    return s

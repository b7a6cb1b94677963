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


def applies(dtype):
    return dtype in EPS


def bounds(dtype, atol, rtol):
    """rel: the relative error no honest kernel comes near; noise: below noise * max|ref| a value is
    rounding noise; frac: more than this share of elements (rows, channels) wrong fails."""
    eps = EPS.get(dtype, EPS["f32"])
    r = 0.0 if rtol is None or rtol != rtol else float(rtol)
    return {"rel": max(10 * r, 8 * eps, 1e-3), "noise": 4 * eps, "frac": 0.01, "atol": atol, "rtol": rtol}


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
    g["considered"], g["bad"] = int(counted.sum().item()), int(bad.sum().item())
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

def _chunks(numel, inner, step):
    """Flat [c0, c1) ranges of about `step` elements that start and end on multiples of `inner`, or
    lie inside one block of `inner` elements (so each maps to whole groups or to one group)."""
    c0 = 0
    while c0 < numel:
        if inner <= step:
            c1 = min(numel, c0 + max(1, step // inner) * inner)
        else:
            c1 = min(numel, c0 + step, (c0 // inner + 1) * inner)
        yield c0, c1
        c0 = c1


def _segment_sums(t, squares, numel, inner, nseg, step, dev):
    """Per-group sums of the float64 tensors squares(c0, c1) returns, for group(i) = (i // inner) % nseg:
    one accumulator per returned tensor, in one pass."""
    accs = None
    for c0, c1 in _chunks(numel, inner, step):
        vs = squares(c0, c1)
        if accs is None:
            accs = [t.zeros(nseg, dtype=t.float64, device=dev) for _ in vs]
        if inner <= step:
            ids = t.arange(c0 // inner, c1 // inner, device=dev) % nseg
            for acc, v in zip(accs, vs):
                acc.index_add_(0, ids, v.reshape(-1, inner).sum(dim=1))
        else:
            for acc, v in zip(accs, vs):
                acc[(c0 // inner) % nseg] += v.sum()
    return accs


def measure(t, ref, out, b, step=1 << 24):
    """Statistics of one floating-point output (torch tensors of one shape, any device)."""
    shape = tuple(ref.shape)
    r, o = ref.reshape(-1), out.reshape(-1)
    numel = r.numel()
    dev = r.device
    s = {"n": 0, "ref_min": 0.0, "ref_max": 0.0, "ref_maxabs": 0.0, "ref_sumsq": 0.0, "out_min": 0.0,
         "out_max": 0.0, "diff_sumsq": 0.0, "nbad": 0, "first_bad": -1, "first_got": 0.0, "first_want": 0.0,
         "rows": no_groups(), "chans": no_groups()}
    first = True

    def pair(c0, c1):
        rc, oc = r[c0:c1].double(), o[c0:c1].double()
        fin = t.isfinite(rc) & t.isfinite(oc)
        return rc, oc, fin

    for c0 in range(0, numel, step):
        rc, oc, fin = pair(c0, min(numel, c0 + step))
        k = int(fin.sum().item())
        if not k:
            continue
        rf, of = rc[fin], oc[fin]
        lo, hi, olo, ohi = (float(rf.min().item()), float(rf.max().item()), float(of.min().item()),
                            float(of.max().item()))
        if first:
            s["ref_min"], s["ref_max"], s["out_min"], s["out_max"] = lo, hi, olo, ohi
            first = False
        else:
            s["ref_min"], s["ref_max"] = min(s["ref_min"], lo), max(s["ref_max"], hi)
            s["out_min"], s["out_max"] = min(s["out_min"], olo), max(s["out_max"], ohi)
        s["n"] += k
        s["ref_maxabs"] = max(s["ref_maxabs"], float(rf.abs().max().item()))
        s["ref_sumsq"] += float((rf * rf).sum().item())
        s["diff_sumsq"] += float(((of - rf) ** 2).sum().item())
    if not s["n"]:
        return s
    rms = math.sqrt(s["ref_sumsq"] / s["n"])
    for c0 in range(0, numel, step):
        rc, oc, fin = pair(c0, min(numel, c0 + step))
        bad = fin & ((oc - rc).abs() > b["rel"] * (rc.abs() + rms))
        nb = int(bad.sum().item())
        if nb and s["first_bad"] < 0:
            j = int(bad.nonzero()[0].item())
            s["first_bad"], s["first_got"], s["first_want"] = c0 + j, float(oc[j].item()), float(rc[j].item())
        s["nbad"] += nb

    def squares(c0, c1):
        rc, oc, fin = pair(c0, c1)
        zero = t.zeros_like(rc)
        return t.where(fin, rc * rc, zero), t.where(fin, (oc - rc) ** 2, zero)

    lay = layouts(shape)
    for key in ("rows", "chans"):
        if lay[key] is None:
            continue
        inner, nseg, size = lay[key]
        r2, d2 = _segment_sums(t, squares, numel, inner, nseg, step, dev)
        s[key] = groups(t, r2, d2, size, s["ref_maxabs"], b)
    return s

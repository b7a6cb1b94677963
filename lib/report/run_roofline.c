/*
 * The run page's roofline: the reference's and the best version's Stage-1 positions under the GPU's
 * roofs, from their saved profiles (a note instead when neither has one).
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/json.h"
#include "report/report_int.h"

struct roof_point {
	const char *label, *cls;
	double ai, flops, bw, compute_peak, memory_peak;
	const char *precision, *bound;
	long long node;
};

/* A version's Stage-1 position, when its profile has one with a usable point and roof. */
static int roof_point(const json_t *n, const char *label, const char *cls, struct roof_point *p)
{
	const json_t *s1 =
	    json_object_get(json_object_get(json_object_get(n, "profile"), "launch"), "stage1");
	if (!json_is_object(s1))
		return 0;
	*p = (struct roof_point){label,
	                         cls,
	                         kp_json_num(s1, "ai", NAN),
	                         kp_json_num(s1, "achieved_flops", NAN),
	                         kp_json_num(s1, "achieved_bw", NAN),
	                         kp_json_num(s1, "compute_peak", NAN),
	                         kp_json_num(s1, "memory_peak", NAN),
	                         kp_json_str(s1, "precision", "fp32"),
	                         kp_json_str(s1, "class", "unknown"),
	                         kp_json_int(n, "node", 0)};
	return p->ai > 0 && isfinite(p->ai) && p->flops > 0 && isfinite(p->flops) && p->compute_peak > 0 &&
	       isfinite(p->compute_peak) && p->memory_peak > 0 && isfinite(p->memory_peak);
}

static double decade_floor(double v)
{
	return pow(10, floor(log10(v)));
}

static double decade_ceil(double v)
{
	return pow(10, ceil(log10(v)));
}

static void draw_roof(struct kp_svg *S, const struct roof_point *p, int label_below)
{
	double ridge = p->compute_peak / p->memory_peak;
	double x[3] = {S->x.lo, ridge, S->x.hi},
	       y[3] = {p->memory_peak * S->x.lo, p->compute_peak, p->compute_peak};
	char a[32], c[160];
	kp_svg_clip_begin(S);
	kp_svg_line(S, x, y, 3, "roof");
	kp_svg_clip_end(S);
	kp_svg_fmt_value(a, sizeof(a), KP_SVG_SI, p->compute_peak);
	snprintf(c, sizeof(c), "%s peak %sFLOP/s", p->precision, a);
	kp_svg_text(S, S->w - S->mr - 8, kp_svg_py(S, p->compute_peak) + (label_below ? 16 : -7), 'e',
	            "annot", c);
	kp_svg_fmt_value(a, sizeof(a), KP_SVG_SI, p->memory_peak);
	snprintf(c, sizeof(c), "memory %sB/s", a);
	{
		double lx = S->x.lo * 3, px = kp_svg_px(S, lx), py = kp_svg_py(S, p->memory_peak * lx);
		if (py > S->mt + 10 && py < S->h - S->mb - 6)
			kp_svg_text(S, px + 4, py - 8, 's', "annot", c);
	}
}

void kp__report_roofline(struct kp_buf *b, const json_t *ref, const json_t *best)
{
	struct roof_point pt[2];
	size_t n = 0;
	struct kp_svg S = {.ml = 72, .mr = 24, .mt = 20, .mb = 52};
	double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
	const char *cls[2], *labels[2];
	char lab[2][64];

	if (ref && roof_point(ref, "reference", "ref", &pt[n]))
		n++;
	if (best && roof_point(best, "best", "best", &pt[n]))
		n++;
	if (!n) {
		kp_html_para(b, "empty",
		             "No Stage-1 profile was saved for the reference or the best version (profiling "
		             "was off or "
		             "unavailable on that machine), so there is no roofline to draw.");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		double ridge = pt[i].compute_peak / pt[i].memory_peak;
		xlo = fmin(xlo, fmin(pt[i].ai, ridge));
		xhi = fmax(xhi, fmax(pt[i].ai, ridge));
		ylo = fmin(ylo, pt[i].flops);
		yhi = fmax(yhi, pt[i].compute_peak);
	}
	S.x = (struct kp_svg_axis){decade_floor(xlo / 3),
	                           decade_ceil(xhi * 3),
	                           KP_SVG_LOG10,
	                           KP_SVG_SI,
	                           "arithmetic intensity (FLOP per DRAM byte)",
	                           NULL,
	                           0};
	S.y = (struct kp_svg_axis){
	    decade_floor(ylo / 3), decade_ceil(yhi * 2), KP_SVG_LOG10, KP_SVG_SI, "achieved FLOP/s", NULL, 0};
	kp_svg_begin(&S, b, "roofline", "Roofline: the reference and the best version", 820, 420, 0);
	kp_svg_axes(&S);
	draw_roof(&S, &pt[0], 0);
	if (n == 2 && (pt[1].compute_peak != pt[0].compute_peak || pt[1].memory_peak != pt[0].memory_peak))
		draw_roof(&S, &pt[1], 1);
	if (n == 2) {
		double x[2] = {pt[0].ai, pt[1].ai}, y[2] = {pt[0].flops, pt[1].flops};
		kp_svg_line(&S, x, y, 2, "arrow");
	}
	for (size_t i = 0; i < n; i++) {
		char t[320], a[32], f[32], bw[32];
		kp_svg_fmt_value(a, sizeof(a), KP_SVG_SI, pt[i].ai);
		kp_svg_fmt_value(f, sizeof(f), KP_SVG_SI, pt[i].flops);
		kp_svg_fmt_value(bw, sizeof(bw), KP_SVG_SI, pt[i].bw);
		snprintf(t, sizeof(t), "%s (#%lld): %s FLOP/byte, %sFLOP/s, %sB/s; %s-bound", pt[i].label,
		         pt[i].node, a, f, bw, pt[i].bound);
		kp_svg_mark(&S, pt[i].ai, pt[i].flops, 'o', 7, pt[i].cls, t);
		snprintf(t, sizeof(t), "%s #%lld", pt[i].label, pt[i].node);
		kp_svg_text(&S, kp_svg_px(&S, pt[i].ai) + 11, kp_svg_py(&S, pt[i].flops) + (i ? -4 : 12), 's',
		            "annot", t);
		snprintf(lab[i], sizeof(lab[i]), "%s (#%lld), %s-bound", pt[i].label, pt[i].node,
		         pt[i].bound);
		cls[i] = pt[i].cls;
		labels[i] = lab[i];
	}
	kp_svg_legend(&S, n, cls, labels, 1);
	kp_svg_end(&S);
}


/* Small SVG charts written directly: linear, log and category axes with readable ticks, lines, marks, bars,
 * legends. */
#include "base/setup.h"

#include <math.h>

#include "report/report_int.h"

static double to_unit(const struct kp_svg_axis *a, double v)
{
	double lo = a->lo, hi = a->hi;
	if (a->scale == KP_SVG_LOG2 || a->scale == KP_SVG_LOG10) {
		if (!(v > 0))
			return -1e3; /* far outside: clipped */
		v = log(v);
		lo = log(lo);
		hi = log(hi);
	}
	return hi != lo ? (v - lo) / (hi - lo) : 0.5;
}

double kp_svg_px(const struct kp_svg *S, double x)
{
	return S->ml + to_unit(&S->x, x) * (S->w - S->ml - S->mr);
}

double kp_svg_py(const struct kp_svg *S, double y)
{
	return S->h - S->mb - to_unit(&S->y, y) * (S->h - S->mt - S->mb);
}

void kp_svg_begin(struct kp_svg *S, struct kp_buf *b, const char *name, const char *title, double w, double h,
                  int fixed)
{
	S->b = b;
	S->w = w;
	S->h = h;
	snprintf(S->id, sizeof(S->id), "clip-%s", name); /* plot names are unique within a page */
	kp_buf_addf(b,
	            "<svg class=\"plot%s\" data-plot=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 "
	            "0 %.0f %.0f\"",
	            fixed ? " fixed" : "", name, w, h);
	if (fixed)
		kp_buf_addf(b, " width=\"%.0f\" height=\"%.0f\"", w, h);
	kp_buf_adds(b, " role=\"img\" aria-label=\"");
	kp_html_escape(b, title);
	kp_buf_adds(b, "\">\n<title>");
	kp_html_escape(b, title);
	kp_buf_addf(
	    b,
	    "</title>\n<defs><clipPath id=\"%s\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>"
	    "</clipPath></defs>\n",
	    S->id, S->ml, S->mt, w - S->ml - S->mr, h - S->mt - S->mb);
}

void kp_svg_end(struct kp_svg *S)
{
	kp_buf_adds(S->b, "</svg>\n");
}

void kp_svg_clip_begin(struct kp_svg *S)
{
	kp_buf_addf(S->b, "<g clip-path=\"url(#%s)\">\n", S->id);
}

void kp_svg_clip_end(struct kp_svg *S)
{
	kp_buf_adds(S->b, "</g>\n");
}

/* ---- ticks ------------------------------------------------------------------------------------------- */

static void trim_num(char *buf, size_t n, double v)
{
	snprintf(buf, n, "%.3g", v);
}

void kp_svg_fmt_value(char *buf, size_t n, enum kp_svg_fmt fmt, double v)
{
	static const char *const si[] = {"", "k", "M", "G", "T", "P", "E"};
	char num[32];
	int k = 0;
	switch (fmt) {
	case KP_SVG_TIMES:
		trim_num(num, sizeof(num), v);
		snprintf(buf, n, "%s\xc3\x97", num);
		return;
	case KP_SVG_PCT: snprintf(buf, n, "%.0f%%", v * 100); return;
	case KP_SVG_SI:
		while (fabs(v) >= 1000 && k < 6) {
			v /= 1000;
			k++;
		}
		trim_num(num, sizeof(num), v);
		snprintf(buf, n, "%s%s%s", num, k ? " " : "", si[k]);
		return;
	default: trim_num(buf, n, v);
	}
}

/* Tick values for an axis, at most `max`; returns how many. */
static size_t ticks(const struct kp_svg_axis *a, double *t, size_t max)
{
	size_t n = 0;
	if (a->scale == KP_SVG_CATEGORY) {
		for (double v = a->lo; v < a->hi && n < max; v += 1)
			t[n++] = v + 0.5;
		return n;
	}
	if (a->scale == KP_SVG_LOG2 || a->scale == KP_SVG_LOG10) {
		double base = a->scale == KP_SVG_LOG2 ? 2 : 10;
		double e0 = ceil(log(a->lo) / log(base) - 1e-9), e1 = floor(log(a->hi) / log(base) + 1e-9);
		double stride = ceil((e1 - e0 + 1) / 9); /* at most ~9 labels */
		for (double e = e0; e <= e1 && n < max; e += stride < 1 ? 1 : stride)
			t[n++] = pow(base, e);
		return n;
	}
	{
		double raw = (a->hi - a->lo) / 6, mag, norm, step;
		if (!(raw > 0))
			return 0;
		mag = pow(10, floor(log10(raw)));
		norm = raw / mag;
		step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
		if (a->integer && step < 1)
			step = 1;
		for (double v = ceil(a->lo / step - 1e-9) * step; v <= a->hi + step * 1e-9 && n < max;
		     v += step)
			t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
		return n;
	}
}

void kp_svg_axes(struct kp_svg *S)
{
	double t[64], x0 = S->ml, x1 = S->w - S->mr, y0 = S->mt, y1 = S->h - S->mb;
	char label[48];
	size_t n;

	kp_buf_adds(S->b, "<g class=\"axes\">\n");
	n = ticks(&S->y, t, KP_ARRAY_SIZE(t));
	for (size_t i = 0; i < n; i++) {
		double py = kp_svg_py(S, t[i]);
		kp_svg_fmt_value(label, sizeof(label), S->y.fmt, t[i]);
		kp_buf_addf(S->b, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
		            x0, x1, py, py);
		kp_svg_text(S, x0 - 6, py + 4, 'e', "tick", label);
	}
	n = ticks(&S->x, t, KP_ARRAY_SIZE(t));
	for (size_t i = 0; i < n; i++) {
		double px = kp_svg_px(S, t[i]);
		if (S->x.scale == KP_SVG_CATEGORY) {
			size_t c = (size_t)t[i];
			kp_svg_text(S, px, y1 + 16, 'm', "tick", S->x.categories ? S->x.categories[c] : "");
			continue;
		}
		kp_svg_fmt_value(label, sizeof(label), S->x.fmt, t[i]);
		kp_buf_addf(S->b, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
		            px, px, y0, y1);
		kp_svg_text(S, px, y1 + 16, 'm', "tick", label);
	}
	kp_buf_addf(S->b, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
	            x0, y0, x1 - x0, y1 - y0);
	if (S->x.label)
		kp_svg_text(S, (x0 + x1) / 2, S->h - 8, 'm', "axis-label", S->x.label);
	if (S->y.label) {
		kp_buf_addf(S->b,
		            "<text class=\"axis-label\" text-anchor=\"middle\" transform=\"translate(16 "
		            "%.1f) rotate(-90)\">",
		            (y0 + y1) / 2);
		kp_html_escape(S->b, S->y.label);
		kp_buf_adds(S->b, "</text>\n");
	}
	kp_buf_adds(S->b, "</g>\n");
}

/* ---- marks ----------------------------------------------------------------------------------------------
 */

void kp_svg_text(struct kp_svg *S, double px, double py, char anchor, const char *cls, const char *text)
{
	kp_buf_addf(S->b, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", cls, px, py,
	            anchor == 'm'   ? "middle"
	            : anchor == 'e' ? "end"
	                            : "start");
	kp_html_escape(S->b, text);
	kp_buf_adds(S->b, "</text>\n");
}

void kp_svg_line(struct kp_svg *S, const double *x, const double *y, size_t n, const char *cls)
{
	int pen = 0;
	kp_buf_addf(S->b, "<path class=\"line %s\" d=\"", cls);
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]) || !isfinite(y[i])) {
			pen = 0;
			continue;
		}
		kp_buf_addf(S->b, "%s%.1f %.1f ", pen ? "L" : "M", kp_svg_px(S, x[i]), kp_svg_py(S, y[i]));
		pen = 1;
	}
	kp_buf_adds(S->b, "\"/>\n");
}

static void tip(struct kp_svg *S, const char *text)
{
	if (!text)
		return;
	kp_buf_adds(S->b, "<title>");
	kp_html_escape(S->b, text);
	kp_buf_adds(S->b, "</title>");
}

void kp_svg_mark(struct kp_svg *S, double x, double y, char shape, double r, const char *cls,
                 const char *text)
{
	double px = kp_svg_px(S, x), py = kp_svg_py(S, y);
	switch (shape) {
	case 's':
		kp_buf_addf(S->b,
		            "<rect class=\"mark %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">",
		            cls, px - r, py - r, 2 * r, 2 * r);
		tip(S, text);
		kp_buf_adds(S->b, "</rect>\n");
		return;
	case 'x':
		kp_buf_addf(S->b, "<path class=\"mark %s\" d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\">",
		            cls, px - r, py - r, px + r, py + r, px - r, py + r, px + r, py - r);
		tip(S, text);
		kp_buf_adds(S->b, "</path>\n");
		return;
	case 'd':
		kp_buf_addf(S->b, "<path class=\"mark %s\" d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ\">",
		            cls, px, py - r * 1.3, px + r * 1.3, py, px, py + r * 1.3, px - r * 1.3, py);
		tip(S, text);
		kp_buf_adds(S->b, "</path>\n");
		return;
	default:
		kp_buf_addf(S->b, "<circle class=\"mark %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\">", cls, px,
		            py, r);
		tip(S, text);
		kp_buf_adds(S->b, "</circle>\n");
	}
}

void kp_svg_bar(struct kp_svg *S, double x0, double x1, double y, const char *cls, const char *text)
{
	double px0 = kp_svg_px(S, x0), px1 = kp_svg_px(S, x1), py = kp_svg_py(S, y),
	       base = kp_svg_py(S, S->y.lo);
	kp_buf_addf(S->b, "<rect class=\"mark bar %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">",
	            cls, px0, py, px1 - px0, base - py);
	tip(S, text);
	kp_buf_adds(S->b, "</rect>\n");
}

void kp_svg_legend(struct kp_svg *S, size_t n, const char *const *cls, const char *const *labels, int left)
{
	double longest = 0, w, x, y = S->mt + 10;
	for (size_t i = 0; i < n; i++)
		if (strlen(labels[i]) > longest)
			longest = (double)strlen(labels[i]);
	w = 34 + longest * 6.6;
	x = left ? S->ml + 10 : S->w - S->mr - 10 - w;
	kp_buf_addf(
	    S->b,
	    "<g class=\"legend-group\"><rect class=\"legend-box\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
	    "height=\"%.1f\" rx=\"4\"/>\n",
	    x, y, w, 8 + 18.0 * (double)n);
	for (size_t i = 0; i < n; i++) {
		double cy = y + 15 + 18.0 * (double)i;
		kp_buf_addf(S->b,
		            "<rect class=\"swatch %s\" x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\"/>",
		            cls[i], x + 8, cy - 6);
		kp_svg_text(S, x + 28, cy + 3, 's', "legend", labels[i]);
	}
	kp_buf_adds(S->b, "</g>\n");
}

void kp_svg_guide(struct kp_svg *S, int vertical, double at)
{
	double x[2] = {at, at}, y[2] = {at, at};
	if (vertical) {
		y[0] = S->y.lo;
		y[1] = S->y.hi;
	} else {
		x[0] = S->x.lo;
		x[1] = S->x.hi;
	}
	kp_svg_line(S, x, y, 2, "guide");
}

struct kp_svg_axis kp_svg_speedup_axis(double lo, double hi, const char *label)
{
	lo = fmin(lo, 0.5);
	hi = fmax(hi, 2);
	return (struct kp_svg_axis){pow(2, floor(log2(lo)) - 0.5),
	                            pow(2, ceil(log2(hi)) + 0.3),
	                            KP_SVG_LOG2,
	                            KP_SVG_TIMES,
	                            label,
	                            NULL,
	                            0};
}

void kp_svg_legend_row(struct kp_svg *S, size_t n, const char *const *cls, const char *const *labels)
{
	double x = S->ml, y = S->mt - 12;
	for (size_t i = 0; i < n; i++) {
		kp_buf_addf(S->b,
		            "<rect class=\"swatch %s\" x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\"/>",
		            cls[i], x, y - 9);
		kp_svg_text(S, x + 20, y, 's', "legend", labels[i]);
		x += 40 + 6.6 * (double)strlen(labels[i]);
	}
}

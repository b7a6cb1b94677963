/*
 * Inside lib/report: the page skeleton and its pieces (html.c, kp_html_), and the SVG charts
 * (svg.c, kp_svg_). Every string that comes from a run passes through kp_html_escape.
 */
#ifndef KP_REPORT_INT_H
#define KP_REPORT_INT_H

#include "kernelpro/buf.h"
#include "kernelpro/report.h"

/* ---- The page ------------------------------------------------------------------------------------ */

/* <!doctype html> up to <main>: the style sheet, and a Content-Security-Policy that lets only the
 * page's own script run and nothing load from anywhere. */
void kp_html_begin(struct kp_buf *b, const char *title);
/* The page's one script (table sorting) and the closing tags. */
void kp_html_end(struct kp_buf *b);

/* <h1>title</h1><p class="sub">subtitle</p> */
void kp_html_heading(struct kp_buf *b, const char *title, const char *subtitle);
/* <section id=..><h2>title</h2> ... </section> */
void kp_html_section(struct kp_buf *b, const char *id, const char *title);
void kp_html_section_end(struct kp_buf *b);
/* A paragraph of escaped text with a class ("note", "empty"). */
void kp_html_para(struct kp_buf *b, const char *cls, const char *text);

/* The row of headline figures: begin, one card per figure, end. */
void kp_html_cards_begin(struct kp_buf *b);
void kp_html_card(struct kp_buf *b, const char *label, const char *value, const char *detail);
void kp_html_cards_end(struct kp_buf *b);

/*
 * A table the reader can sort by clicking a header. cols: "Name" (text) or "#Name" (numeric);
 * NULL-terminated. Cells carry their sort key: kp_html_td_num sorts by `v` (NAN sorts last) and
 * shows `text`; kp_html_td sorts and shows the escaped text.
 */
void kp_html_table_begin(struct kp_buf *b, const char *id, const char *const *cols);
void kp_html_table_end(struct kp_buf *b);
void kp_html_td(struct kp_buf *b, const char *text);
void kp_html_td_num(struct kp_buf *b, double v, const char *text);

/* <td data-v="sort_key"> for a cell whose markup the caller writes (escaped), then "</td>". */
void kp_html_td_begin(struct kp_buf *b, const char *sort_key);
/* A relative path for an href: anything but [A-Za-z0-9/._-~] percent-encoded (so it is also safe
 * inside a double-quoted attribute). */
void kp_html_href(struct kp_buf *b, const char *path);
/* <a href="path#fragment" class="cls">text</a>; fragment and cls may be NULL. */
void kp_html_link(struct kp_buf *b, const char *path, const char *fragment, const char *cls,
                  const char *text);
/* A line of "label value" pairs (the page's context: GPU, model, version, dates); NULL values are left out.
 */
void kp_html_facts(struct kp_buf *b, size_t n, const char *const *labels, const char *const *values);

/* Formatting into a caller's buffer; "—" for NAN. kp_html_fmt takes exactly one double. */
const char *kp_html_fmt(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *kp_html_speedup(char *buf, size_t n, double v);  /* "2.60×" */
const char *kp_html_pct(char *buf, size_t n, double v);      /* 0.4 -> "40%" */
const char *kp_html_duration(char *buf, size_t n, double s); /* "3m12s" */

/*
 * A line diff of `old` to `new_` in unified form (hunks with `context` lines around each change) as
 * escaped HTML: <pre class="diff"> with one span per line (add, del, ctx, hunk). Returns the lines
 * changed, or -1 (a note written instead) when the pair is too large to compare.
 */
int kp_html_diff(struct kp_buf *b, const char *old, const char *new_, int context);

/* ---- Charts ------------------------------------------------------------------------------------------ */

enum kp_svg_scale { KP_SVG_LINEAR, KP_SVG_LOG2, KP_SVG_LOG10, KP_SVG_CATEGORY };
enum kp_svg_fmt { KP_SVG_NUM, KP_SVG_TIMES, KP_SVG_PCT, KP_SVG_SI };

struct kp_svg_axis {
	double lo, hi;
	enum kp_svg_scale scale;
	enum kp_svg_fmt fmt;
	const char *label;
	const char *const *categories; /* KP_SVG_CATEGORY: one label per unit, lo = 0, hi = count */
	int integer;                   /* ticks at whole numbers only (counts) */
};

struct kp_svg {
	struct kp_buf *b;
	double w, h;           /* the viewBox */
	double ml, mr, mt, mb; /* margins around the plot area */
	struct kp_svg_axis x, y;
	char id[32];
};

/*
 * Opens <svg class="plot" data-plot="name"> with an accessible title. The plot area is clipped:
 * data outside the axes' ranges is cut at the frame. `fixed`: the SVG keeps its pixel size
 * (wide trees scroll) instead of scaling to the page width.
 */
void kp_svg_begin(struct kp_svg *S, struct kp_buf *b, const char *name, const char *title, double w, double h,
                  int fixed);
void kp_svg_end(struct kp_svg *S);
/* Data to pixels (values outside the range map outside the plot area). */
double kp_svg_px(const struct kp_svg *S, double x);
double kp_svg_py(const struct kp_svg *S, double y);
/* Grid, ticks, tick labels, axis labels and the frame. */
void kp_svg_axes(struct kp_svg *S);
/* Opens and closes a group clipped to the plot area. */
void kp_svg_clip_begin(struct kp_svg *S);
void kp_svg_clip_end(struct kp_svg *S);
/* A polyline through data points (NAN points break it), class `cls`. */
void kp_svg_line(struct kp_svg *S, const double *x, const double *y, size_t n, const char *cls);
/* A marker at a data point: shape 'o' circle, 's' square, 'x' cross, 'd' diamond; class "mark <cls>".
 * `tip` (may be NULL) becomes its tooltip. */
void kp_svg_mark(struct kp_svg *S, double x, double y, char shape, double r, const char *cls,
                 const char *tip);
/* A bar from y = 0 to y over [x0, x1] in data units, class "mark bar <cls>". */
void kp_svg_bar(struct kp_svg *S, double x0, double x1, double y, const char *cls, const char *tip);
/* Text at pixel coordinates; anchor 's'tart, 'm'iddle or 'e'nd. */
void kp_svg_text(struct kp_svg *S, double px, double py, char anchor, const char *cls, const char *text);
/* A legend in the plot area's top-right (or top-left when `left`) corner: n entries of class/label. */
void kp_svg_legend(struct kp_svg *S, size_t n, const char *const *cls, const char *const *labels, int left);
/* The same as one row above the plot area, in the top margin (which must be ~30 px). */
void kp_svg_legend_row(struct kp_svg *S, size_t n, const char *const *cls, const char *const *labels);

/* A dashed guide across the plot area at x = `at` (vertical) or y = `at`. */
void kp_svg_guide(struct kp_svg *S, int vertical, double at);
/* A log2 speedup axis around [lo, hi] (which always holds 0.5x..2x), with a little room at each end. */
struct kp_svg_axis kp_svg_speedup_axis(double lo, double hi, const char *label);

/* An axis value formatted the axis's way ("2×", "40%", "1.2 T"). */
void kp_svg_fmt_value(char *buf, size_t n, enum kp_svg_fmt fmt, double v);

/* The run page's roofline section (run_roofline.c): ref and best are run-view nodes, best NULL when no
 * version beat the reference. */
void kp__report_roofline(struct kp_buf *b, const json_t *ref, const json_t *best);

#endif

/*
 * The measurement protocol: idle power, warm-up, then windows of back-to-back launches whose
 * energy is the difference of the total-energy counter, read on counter ticks at both ends.
 * Meter and workload are callbacks, so the same code runs against NVML and against the
 * simulated GPU of the unit tests.
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/energy.h"
#include "kernelpro/str.h"

/* The counter ticks every 20-100 ms; a counter that has not moved for this long is stuck. */
#define TICK_WAIT_MAX_S 0.5
#define TICK_POLL_S 1e-4
#define MAX_LAUNCHES_PER_WINDOW 20000000L

void kp_energy_opts_default(struct kp_energy_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->window_s = 1.0;
	o->windows = 5;
	o->idle_s = 1.0;
	o->idle_power_w = NAN;
	o->settle_s = 0.3;
	o->warmup_s = 0.3;
	o->align = 1;
}

static void note(struct kp_energy_measurement *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct kp_energy_measurement *out, const char *fmt, ...)
{
	size_t len = strlen(out->notes);
	va_list ap;
	if (len + 3 >= sizeof(out->notes))
		return;
	if (len) {
		out->notes[len++] = ';';
		out->notes[len++] = ' ';
		out->notes[len] = 0;
	}
	va_start(ap, fmt);
	vsnprintf(out->notes + len, sizeof(out->notes) - len, fmt, ap);
	va_end(ap);
}

/*
 * Reads the counter. With `align`, keeps reading until its value changes, so the reading sits
 * on a tick: the energy between two aligned readings is exactly what the driver accounted
 * between those ticks. *stuck is set when no tick came within TICK_WAIT_MAX_S.
 */
static int read_counter(const struct kp_energy_meter *m, int align, struct kp_energy_reading *r, int *stuck,
			struct kp_error *err)
{
	struct kp_energy_reading first;
	double start;
	int rc = m->read(m->ud, &first, err);
	*stuck = 0;
	if (rc)
		return rc;
	if (!isfinite(first.energy_j))
		return kp_error_set(err, KP_EUNSUPPORTED, "energy unavailable: the energy counter gave no value");
	*r = first;
	if (!align)
		return 0;
	start = m->now(m->ud);
	for (;;) {
		rc = m->read(m->ud, r, err);
		if (rc)
			return rc;
		if (r->energy_j != first.energy_j)
			return 0;
		if (m->now(m->ud) - start > TICK_WAIT_MAX_S) {
			*stuck = 1;
			return 0;
		}
		m->sleep(m->ud, TICK_POLL_S);
	}
}

int kp_energy_idle_power(const struct kp_energy_meter *m, double seconds, int align, double *watts,
			 struct kp_error *err)
{
	struct kp_energy_reading a, b;
	int stuck, rc;
	*watts = NAN;
	if (!(seconds > 0))
		return kp_error_set(err, KP_EINVAL, "idle measurement needs a positive duration");
	if ((rc = read_counter(m, align, &a, &stuck, err)))
		return rc;
	m->sleep(m->ud, seconds);
	if ((rc = read_counter(m, align, &b, &stuck, err)))
		return rc;
	if (!(b.t > a.t))
		return kp_error_set(err, KP_EIO, "energy meter clock did not advance");
	if (b.energy_j < a.energy_j)
		return kp_error_set(err, KP_EIO, "energy counter went backwards (driver reloaded?)");
	*watts = (b.energy_j - a.energy_j) / (b.t - a.t);
	return 0;
}

/* Warm-up: batches of growing size until warmup_s has passed; returns the GPU time of one launch. */
static int warm_up(const struct kp_energy_meter *m, const struct kp_energy_workload *w, double warmup_s,
		   double *per_launch_s, struct kp_error *err)
{
	double t0 = m->now(m->ud), spent = 0;
	long n = 1;
	*per_launch_s = NAN;
	do {
		double gpu = NAN, start = m->now(m->ud), wall;
		int rc = w->run(w->ud, n, &gpu, err);
		if (rc)
			return rc;
		wall = m->now(m->ud) - start;
		*per_launch_s = (isfinite(gpu) && gpu > 0 ? gpu : wall) / (double)n;
		spent = m->now(m->ud) - t0;
		/* Grow batches until one takes ~50 ms, so the per-launch estimate is not launch noise. */
		if (wall < 0.05 && n < MAX_LAUNCHES_PER_WINDOW / 2)
			n *= 2;
	} while (spent < warmup_s);
	return 0;
}

static void summarize(struct kp_energy_measurement *out)
{
	double v[KP_ENERGY_MAX_WINDOWS];
	int n = out->nwindows;
	double lo = INFINITY, hi = -INFINITY;

#define KP__MEDIAN(field, dest)                                                                \
	do {                                                                                   \
		for (int i = 0; i < n; i++)                                                    \
			v[i] = out->w[i].field;                                                \
		(dest) = kp_energy_median(v, (size_t)n);                                       \
	} while (0)
	KP__MEDIAN(time_s, out->time_s);
	KP__MEDIAN(energy_per_launch_j, out->energy_j);
	KP__MEDIAN(dynamic_per_launch_j, out->dynamic_j);
	KP__MEDIAN(power_w, out->power_w);
	KP__MEDIAN(sm_clock_mhz, out->sm_clock_mhz);
	KP__MEDIAN(mem_clock_mhz, out->mem_clock_mhz);
#undef KP__MEDIAN
	out->temp_max_c = NAN;
	for (int i = 0; i < n; i++) {
		double e = out->w[i].energy_per_launch_j;
		lo = fmin(lo, e);
		hi = fmax(hi, e);
		if (isfinite(out->w[i].temp_end_c) && !(out->w[i].temp_end_c <= out->temp_max_c))
			out->temp_max_c = out->w[i].temp_end_c;
	}
	out->energy_spread = out->energy_j > 0 ? (hi - lo) / out->energy_j : NAN;
}

static int one_window(const struct kp_energy_meter *m, const struct kp_energy_workload *w,
		      const struct kp_energy_opts *o, long launches, double idle_w, struct kp_energy_window *win,
		      int *stuck, struct kp_error *err)
{
	struct kp_energy_reading a, b;
	double gpu = NAN, t_end;
	int rc, s1 = 0, s2 = 0;

	memset(win, 0, sizeof(*win));
	if ((rc = read_counter(m, o->align, &a, &s1, err)))
		return rc;
	if ((rc = w->run(w->ud, launches, &gpu, err)))
		return rc;
	t_end = m->now(m->ud);
	if ((rc = read_counter(m, o->align, &b, &s2, err)))
		return rc;
	*stuck = s1 || s2;
	if (b.energy_j < a.energy_j)
		return kp_error_set(err, KP_EIO, "energy counter went backwards (driver reloaded?)");
	win->launches = launches;
	win->seconds = t_end - a.t;
	win->gpu_seconds = gpu;
	/* After the work ends the GPU idles until the tick: that tail is idle energy, not the kernel's. */
	win->tail_s = o->align ? b.t - t_end : 0;
	win->energy_j = b.energy_j - a.energy_j - (isfinite(idle_w) ? idle_w * win->tail_s : 0);
	if (!(win->seconds > 0))
		return kp_error_set(err, KP_EIO, "energy meter clock did not advance over a window");
	win->time_s = (isfinite(gpu) && gpu > 0 ? gpu : win->seconds) / (double)launches;
	win->energy_per_launch_j = win->energy_j / (double)launches;
	win->dynamic_per_launch_j =
		isfinite(idle_w) ? (win->energy_j - idle_w * win->seconds) / (double)launches : NAN;
	win->power_w = win->energy_j / win->seconds;
	win->sm_clock_mhz = b.sm_clock_mhz;
	win->mem_clock_mhz = b.mem_clock_mhz;
	win->temp_start_c = a.temp_c;
	win->temp_end_c = b.temp_c;
	return 0;
}

/* Launches per window for one workload: fixed, or enough to last window_s. */
static long window_launches(const struct kp_energy_opts *o, double per_launch)
{
	double want;
	if (o->launches > 0)
		return o->launches;
	want = ceil(o->window_s / fmax(per_launch, 1e-9));
	return want > (double)MAX_LAUNCHES_PER_WINDOW ? MAX_LAUNCHES_PER_WINDOW : (long)fmax(want, 1);
}

static void add_notes(struct kp_energy_measurement *out, const struct kp_energy_opts *o, int stuck_windows)
{
	const struct kp_energy_window *w0 = &out->w[0];
	if (stuck_windows)
		note(out, "the energy counter did not tick within %.1f s in %d window(s): figures are rough",
		     TICK_WAIT_MAX_S, stuck_windows);
	if (o->launches <= 0 && w0->seconds < 0.5 * o->window_s)
		note(out, "windows were shorter than asked (%.2f s of %.2f s)", w0->seconds, o->window_s);
	if (o->launches > 0 && w0->seconds < 0.2)
		note(out, "windows of %.3f s are short for a counter that ticks every 20-100 ms", w0->seconds);
	if (isfinite(w0->gpu_seconds) && w0->gpu_seconds < 0.8 * w0->seconds)
		note(out, "the GPU was busy only %.0f%% of each window (launch-bound): energy per launch includes the gaps",
		     100 * w0->gpu_seconds / w0->seconds);
	if (isfinite(out->dynamic_j) && out->dynamic_j < 0)
		note(out, "power did not rise above idle: dynamic energy is below the noise");
}

int kp_energy_measure_many(const struct kp_energy_meter *m, const struct kp_energy_workload *w, size_t nw,
			   const struct kp_energy_opts *o, struct kp_energy_measurement *out, struct kp_error *err)
{
	double idle_w = o->idle_power_w;
	long launches[16];
	int stuck[16] = {0};
	int rc;

	if (nw < 1 || nw > KP_ARRAY_SIZE(launches))
		return kp_error_set(err, KP_EINVAL, "energy: between 1 and %zu workloads per measurement",
				    KP_ARRAY_SIZE(launches));
	if (o->windows < 1 || o->windows > KP_ENERGY_MAX_WINDOWS)
		return kp_error_set(err, KP_EINVAL, "energy: --windows must be between 1 and %d", KP_ENERGY_MAX_WINDOWS);
	if (o->launches <= 0 && !(o->window_s > 0))
		return kp_error_set(err, KP_EINVAL, "energy: a window needs a positive length or a launch count");
	if (o->launches > MAX_LAUNCHES_PER_WINDOW)
		return kp_error_set(err, KP_EINVAL, "energy: at most %ld launches per window", MAX_LAUNCHES_PER_WINDOW);
	for (size_t j = 0; j < nw; j++) {
		memset(&out[j], 0, sizeof(out[j]));
		kp_strlcpy(out[j].name, w[j].name ? w[j].name : "", sizeof(out[j].name));
		kp_strlcpy(out[j].device, m->device, sizeof(out[j].device));
		out[j].power_limit_w = m->power_limit_w;
	}

	if (o->idle_s > 0) {
		if (o->settle_s > 0)
			m->sleep(m->ud, o->settle_s);
		if ((rc = kp_energy_idle_power(m, o->idle_s, o->align, &idle_w, err)))
			return rc;
	}
	for (size_t j = 0; j < nw; j++) {
		double per_launch = NAN;
		out[j].idle_power_w = idle_w;
		out[j].idle_s = o->idle_s > 0 ? o->idle_s : 0;
		if (o->warmup_s > 0 || o->launches <= 0) {
			if ((rc = warm_up(m, &w[j], o->warmup_s, &per_launch, err))) {
				if (nw > 1) /* name which side of a comparison failed */
					kp_error_prefix(err, "%s", out[j].name);
				return rc;
			}
		}
		launches[j] = window_launches(o, per_launch);
	}

	for (int i = 0; i < o->windows; i++) {
		for (size_t j = 0; j < nw; j++) {
			int s = 0;
			if ((i > 0 || j > 0) && o->cooldown_s > 0)
				m->sleep(m->ud, o->cooldown_s);
			if ((rc = one_window(m, &w[j], o, launches[j], idle_w, &out[j].w[i], &s, err))) {
				if (nw > 1)
					kp_error_prefix(err, "%s", out[j].name);
				return rc;
			}
			out[j].nwindows++;
			stuck[j] += s;
		}
	}
	for (size_t j = 0; j < nw; j++) {
		summarize(&out[j]);
		add_notes(&out[j], o, stuck[j]);
	}
	return 0;
}

int kp_energy_measure(const struct kp_energy_meter *m, const struct kp_energy_workload *w,
		      const struct kp_energy_opts *o, struct kp_energy_measurement *out, struct kp_error *err)
{
	return kp_energy_measure_many(m, w, 1, o, out, err);
}

/* Runs the kp-energy driver (a CUDA program in harness/energy) as a child process and reads its result. */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/child.h"
#include "kernelpro/energy.h"
#include "kernelpro/fs.h"

/* The driver prints one small JSON object; its stderr is a few lines. */
#define DRIVER_OUT_CAP (1u << 20)
#define DRIVER_ERR_CAP (64u << 10)

void kp_energy_driver_init(struct kp_energy_driver *d)
{
	memset(d, 0, sizeof(*d));
	kp_energy_opts_default(&d->opts);
	kp_strvec_init(&d->tensors);
	kp_strvec_init(&d->libs);
	d->seed = 42;
}

void kp_energy_driver_release(struct kp_energy_driver *d)
{
	kp_strvec_release(&d->tensors);
	kp_strvec_release(&d->libs);
}

/* A generous limit: idle, warm-up and every window of every library, plus start-up and module loads. */
static double time_limit(const struct kp_energy_driver *d)
{
	const struct kp_energy_opts *o = &d->opts;
	double nlibs = d->builtin ? 1 : (double)d->libs.n;
	double per_window = o->launches > 0 ? 30 : 3 * o->window_s + 1;
	return 120 + o->settle_s + o->idle_s + nlibs * (o->warmup_s + o->windows * (per_window + o->cooldown_s));
}

int kp_energy_driver_run(const struct kp_energy_driver *d, struct kp_energy_measurement *out, size_t max, size_t *n,
			 struct kp_error *err)
{
	struct kp_child c = KP_CHILD_INIT;
	char *prog = d->program ? kp_xstrdup(d->program) : kp_find_libexec("kp-energy");
	const struct kp_energy_opts *o = &d->opts;
	char how[128];
	int rc = 0;

	*n = 0;
	if (!prog)
		return kp_error_set(err, KP_ENOTOOL,
				    "energy: the kp-energy driver was not built (it needs nvcc: run 'make' where the CUDA "
				    "toolkit is installed)");
	if (!d->builtin && d->libs.n == 0) {
		rc = kp_error_set(err, KP_EINVAL, "energy: nothing to measure (no built-in kernel, no library)");
		goto out;
	}
	kp_strvec_pushl(&c.args, prog, NULL);
	kp_strvec_pushf(&c.args, "--gpu=%d", d->gpu);
	kp_strvec_pushf(&c.args, "--windows=%d", o->windows);
	kp_strvec_pushf(&c.args, "--window-s=%.17g", o->window_s);
	if (o->launches > 0)
		kp_strvec_pushf(&c.args, "--launches=%ld", o->launches);
	kp_strvec_pushf(&c.args, "--idle-s=%.17g", o->idle_s);
	if (o->idle_s <= 0 && isfinite(o->idle_power_w))
		kp_strvec_pushf(&c.args, "--idle-w=%.17g", o->idle_power_w);
	kp_strvec_pushf(&c.args, "--warmup-s=%.17g", o->warmup_s);
	kp_strvec_pushf(&c.args, "--settle-s=%.17g", o->settle_s);
	kp_strvec_pushf(&c.args, "--cooldown-s=%.17g", o->cooldown_s);
	kp_strvec_pushf(&c.args, "--seed=%llu", d->seed);
	if (!o->align)
		kp_strvec_push(&c.args, "--no-align");
	if (d->builtin) {
		kp_strvec_pushl(&c.args, "builtin", d->builtin, NULL);
	} else {
		kp_strvec_push(&c.args, "task");
		for (size_t i = 0; i < d->tensors.n; i++)
			kp_strvec_push(&c.args, d->tensors.v[i]);
		for (size_t i = 0; i < d->libs.n; i++)
			kp_strvec_push(&c.args, d->libs.v[i]);
	}
	c.out_cap = DRIVER_OUT_CAP;
	c.err_cap = DRIVER_ERR_CAP;
	c.timeout_ms = (long)(time_limit(d) * 1000);
	if ((rc = kp_child_run(&c, err)))
		goto out;
	if (c.timed_out || c.term_signal) {
		kp_buf_rtrim(&c.err);
		rc = kp_error_set(err, c.timed_out ? KP_ETIMEOUT : KP_ECHILD, "energy: kp-energy %s%s%s",
				  kp_child_describe(&c, how, sizeof(how)), c.err.len ? ": " : "", c.err.buf);
		goto out;
	}
	/* Success or not, the driver says what happened on stdout; fall back to stderr if it could not. */
	rc = kp_energy_parse_driver_output(c.out.buf, c.out.len, out, max, n, err);
	if (rc && c.out.len == 0) {
		kp_error_clear(err);
		kp_buf_rtrim(&c.err);
		rc = kp_error_set(err, KP_ECHILD, "energy: kp-energy %s without a result%s%s",
				  kp_child_describe(&c, how, sizeof(how)), c.err.len ? ": " : "", c.err.buf);
	}
out:
	kp_child_release(&c);
	free(prog);
	return rc;
}

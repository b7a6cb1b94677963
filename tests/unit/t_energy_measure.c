/*
 * Unit tests: the measurement protocol against a simulated GPU whose energy counter ticks every
 * 50 ms (as NVML's does), so the right answer is known exactly.
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/energy.h"
#include "kernelpro/json.h"
#include "kp_test.h"

struct sim {
	double t;            /* simulated clock, s */
	double e;            /* true energy since start, J */
	double tick;         /* counter period, s */
	double e_at_tick;    /* true energy at the last tick */
	double p_idle, p_busy;
	double t_kernel;     /* GPU time per launch */
	double host_gap;     /* wall time per launch the GPU idles (launch-bound kernels) */
	double read_cost;    /* time one meter read takes */
	int frozen;          /* the counter never moves */
	double backwards_at; /* time from which the counter reads 100 kJ lower (0: never) */
	int reads;
	int fail_run;
	long launches;
};

/* Advances the clock by dt at power p, snapshotting the energy at every tick crossed. */
static void advance(struct sim *s, double dt, double p)
{
	double end = s->t + dt;
	double next = (floor(s->t / s->tick) + 1) * s->tick;
	while (next <= end) {
		s->e_at_tick = s->e + p * (next - s->t);
		next += s->tick;
	}
	s->e += p * dt;
	s->t = end;
}

static int sim_read(void *ud, struct kp_energy_reading *r, struct kp_error *err)
{
	struct sim *s = ud;
	advance(s, s->read_cost, s->p_idle);
	s->reads++;
	r->t = s->t;
	/* NVML counts whole millijoules. */
	r->energy_j = s->frozen ? 1000.0 : floor(s->e_at_tick * 1000) / 1000;
	if (s->backwards_at > 0 && s->t > s->backwards_at)
		r->energy_j -= 1e5; /* a driver reload resets the counter */
	r->power_w = s->p_idle;
	r->sm_clock_mhz = 1980;
	r->mem_clock_mhz = 2619;
	r->temp_c = 40 + s->t / 10;
	return 0;
}

static double sim_now(void *ud)
{
	return ((struct sim *)ud)->t;
}

static void sim_sleep(void *ud, double sec)
{
	struct sim *s = ud;
	advance(s, sec, s->p_idle);
}

/* A second kernel on the same simulated GPU, with its own power and speed (for A/B tests). */
struct sim_kernel {
	struct sim *s;
	double p_busy, t_kernel;
};

static int sim_run_kernel(void *ud, long n, double *gpu, struct kp_error *err)
{
	struct sim_kernel *k = ud;
	advance(k->s, (double)n * k->t_kernel, k->p_busy);
	*gpu = (double)n * k->t_kernel;
	return 0;
}

static int sim_run(void *ud, long n, double *gpu, struct kp_error *err)
{
	struct sim *s = ud;
	if (s->fail_run)
		return kp_error_set(err, KP_ECHILD, "kernel launch failed: an illegal memory access was encountered");
	/* Busy for the kernels, idle in the host gaps between them. */
	advance(s, (double)n * s->t_kernel, s->p_busy);
	advance(s, (double)n * s->host_gap, s->p_idle);
	s->launches += n;
	*gpu = (double)n * s->t_kernel;
	return 0;
}

static void sim_init(struct sim *s, struct kp_energy_meter *m, struct kp_energy_workload *w)
{
	memset(s, 0, sizeof(*s));
	s->t = 0.0123; /* not on a tick */
	s->tick = 0.05;
	s->p_idle = 133;
	s->p_busy = 560;
	s->t_kernel = 223e-6;
	s->read_cost = 30e-6;
	memset(m, 0, sizeof(*m));
	m->ud = s;
	m->read = sim_read;
	m->now = sim_now;
	m->sleep = sim_sleep;
	snprintf(m->device, sizeof(m->device), "Simulated H200");
	m->power_limit_w = 700;
	w->name = "sim";
	w->ud = s;
	w->run = sim_run;
}

static double rel(double got, double want)
{
	return fabs(got - want) / fabs(want);
}

static void test_aligned_measurement_is_exact(void **state)
{
	struct sim s;
	struct kp_energy_meter m;
	struct kp_energy_workload w;
	struct kp_energy_opts o;
	struct kp_energy_measurement r;
	struct kp_error err = KP_ERROR_INIT;

	sim_init(&s, &m, &w);
	kp_energy_opts_default(&o);
	KP_ASSERT_OK(kp_energy_measure(&m, &w, &o, &r, &err), &err);
	assert_int_equal(r.nwindows, 5);
	assert_string_equal(r.device, "Simulated H200");
	assert_true(rel(r.idle_power_w, s.p_idle) < 0.005);
	assert_true(rel(r.time_s, s.t_kernel) < 1e-9);
	assert_true(rel(r.energy_j, s.p_busy * s.t_kernel) < 0.005);
	assert_true(rel(r.dynamic_j, (s.p_busy - s.p_idle) * s.t_kernel) < 0.01);
	assert_true(rel(r.power_w, s.p_busy) < 0.005);
	assert_true(r.energy_spread < 0.01);
	assert_true(r.sm_clock_mhz == 1980);
	assert_true(r.temp_max_c > 40);
	/* Each window lasted at least the asked second. */
	for (int i = 0; i < r.nwindows; i++) {
		assert_true(r.w[i].seconds >= 0.99);
		assert_true(r.w[i].tail_s >= 0 && r.w[i].tail_s <= s.tick + 1e-3);
	}
	assert_string_equal(r.notes, "");
}

/* Without aligning to ticks a short window can be off by a tick's worth of energy: why align exists. */
static void test_unaligned_short_windows_are_off(void **state)
{
	struct sim s;
	struct kp_energy_meter m;
	struct kp_energy_workload w;
	struct kp_energy_opts o;
	struct kp_energy_measurement aligned, naive;
	struct kp_error err = KP_ERROR_INIT;
	double truth;

	kp_energy_opts_default(&o);
	o.launches = 700; /* 0.156 s: windows end at a different phase of the tick each time */
	o.windows = 3;
	sim_init(&s, &m, &w);
	KP_ASSERT_OK(kp_energy_measure(&m, &w, &o, &aligned, &err), &err);
	truth = s.p_busy * s.t_kernel;
	o.align = 0;
	sim_init(&s, &m, &w);
	KP_ASSERT_OK(kp_energy_measure(&m, &w, &o, &naive, &err), &err);
	assert_true(rel(aligned.energy_j, truth) < 0.001);
	assert_true(rel(naive.energy_j, truth) > 0.02); /* 3.9% in this configuration */
}

static void test_energy_grows_with_launch_count(void **state)
{
	struct sim s;
	struct kp_energy_meter m;
	struct kp_energy_workload w;
	struct kp_energy_opts o;
	struct kp_energy_measurement a, b;
	struct kp_error err = KP_ERROR_INIT;

	kp_energy_opts_default(&o);
	o.windows = 3;
	o.launches = 2000;
	sim_init(&s, &m, &w);
	KP_ASSERT_OK(kp_energy_measure(&m, &w, &o, &a, &err), &err);
	o.launches = 8000;
	sim_init(&s, &m, &w);
	KP_ASSERT_OK(kp_energy_measure(&m, &w, &o, &b, &err), &err);
	assert_int_equal(a.w[0].launches, 2000);
	assert_int_equal(b.w[0].launches, 8000);
	assert_true(fabs(b.w[1].energy_j / a.w[1].energy_j - 4) < 0.1);
	/* Per launch they agree. */
	assert_true(rel(a.energy_j, b.energy_j) < 0.02);
}

static void test_given_idle_power_and_launch_bound_note(void **state)
{
	struct sim s;
	struct kp_energy_meter m;
	struct kp_energy_workload w;
	struct kp_energy_opts o;
	struct kp_energy_measurement r;
	struct kp_error err = KP_ERROR_INIT;

	sim_init(&s, &m, &w);
	s.t_kernel = 2e-6;
	s.host_gap = 3e-6; /* the GPU idles 60% of the time */
	kp_energy_opts_default(&o);
	o.idle_s = 0;
	o.idle_power_w = 130;
	o.windows = 3;
	KP_ASSERT_OK(kp_energy_measure(&m, &w, &o, &r, &err), &err);
	assert_true(r.idle_power_w == 130);
	assert_true(r.idle_s == 0);
	assert_non_null(strstr(r.notes, "launch-bound"));
	/* Energy per launch includes the idle gap: busy 2 us plus idle 3 us. */
	assert_true(rel(r.energy_j, s.p_busy * 2e-6 + s.p_idle * 3e-6) < 0.01);
}

static void test_frozen_counter_is_noted(void **state)
{
	struct sim s;
	struct kp_energy_meter m;
	struct kp_energy_workload w;
	struct kp_energy_opts o;
	struct kp_energy_measurement r;
	struct kp_error err = KP_ERROR_INIT;

	sim_init(&s, &m, &w);
	s.frozen = 1;
	kp_energy_opts_default(&o);
	o.windows = 2;
	o.idle_s = 0;
	KP_ASSERT_OK(kp_energy_measure(&m, &w, &o, &r, &err), &err);
	assert_non_null(strstr(r.notes, "did not tick"));
	assert_true(r.energy_j == 0);
	assert_true(isnan(r.dynamic_j));
}

static void test_errors(void **state)
{
	struct sim s;
	struct kp_energy_meter m;
	struct kp_energy_workload w;
	struct kp_energy_opts o;
	struct kp_energy_measurement r;
	struct kp_error err = KP_ERROR_INIT;

	sim_init(&s, &m, &w);
	kp_energy_opts_default(&o);
	o.windows = 0;
	assert_int_equal(kp_energy_measure(&m, &w, &o, &r, &err), KP_EINVAL);
	assert_non_null(strstr(kp_error_msg(&err), "--windows"));

	kp_error_clear(&err);
	kp_energy_opts_default(&o);
	s.fail_run = 1;
	assert_int_equal(kp_energy_measure(&m, &w, &o, &r, &err), KP_ECHILD);
	assert_non_null(strstr(kp_error_msg(&err), "illegal memory access"));

	kp_error_clear(&err);
	sim_init(&s, &m, &w);
	s.backwards_at = 2.0;
	assert_int_equal(kp_energy_measure(&m, &w, &o, &r, &err), KP_EIO);
	assert_non_null(strstr(kp_error_msg(&err), "backwards"));
}

static void test_interleaved_ab(void **state)
{
	struct sim s;
	struct kp_energy_meter m;
	struct kp_energy_workload w[2];
	struct kp_energy_opts o;
	struct kp_energy_measurement r[2];
	struct kp_error err = KP_ERROR_INIT;
	struct sim_kernel ieee, fast;

	sim_init(&s, &m, &w[0]);
	/* The Swish A/B of the H200 probe: nearly the same speed, 10% less power. */
	ieee = (struct sim_kernel){&s, 565, 222.9e-6};
	fast = (struct sim_kernel){&s, 510, 213.6e-6};
	w[0] = (struct kp_energy_workload){"swish_ieee", &ieee, sim_run_kernel};
	w[1] = (struct kp_energy_workload){"swish_fast", &fast, sim_run_kernel};
	kp_energy_opts_default(&o);
	o.windows = 4;
	KP_ASSERT_OK(kp_energy_measure_many(&m, w, 2, &o, r, &err), &err);
	assert_string_equal(r[0].name, "swish_ieee");
	assert_string_equal(r[1].name, "swish_fast");
	assert_int_equal(r[0].nwindows, 4);
	assert_int_equal(r[1].nwindows, 4);
	assert_true(r[0].idle_power_w == r[1].idle_power_w);
	assert_true(rel(r[0].energy_j, 565 * 222.9e-6) < 0.002);
	assert_true(rel(r[1].energy_j, 510 * 213.6e-6) < 0.002);
	/* Interleaved: A's second window starts after B's first. */
	assert_true(r[0].w[1].seconds > 0.99 && r[1].w[0].seconds > 0.99);

	/* The driver writes them; kernelpro reads them back. */
	{
		struct kp_buf out = KP_BUF_INIT;
		struct kp_energy_measurement back[2];
		size_t n = 0;
		kp_energy_driver_result(&out, r, 2, "task: 2 libraries");
		KP_ASSERT_OK(kp_energy_parse_driver_output(out.buf, out.len, back, 2, &n, &err), &err);
		assert_int_equal(n, 2);
		assert_string_equal(back[1].name, "swish_fast");
		assert_true(rel(back[1].energy_j, r[1].energy_j) < 1e-9); /* 10 significant digits */
		kp_buf_reset(&out);
		kp_error_clear(&err);
		kp_error_set(&err, KP_ENOTOOL, "energy unavailable: no NVML");
		kp_energy_driver_failure(&out, &err);
		kp_error_clear(&err);
		assert_int_equal(kp_energy_parse_driver_output(out.buf, out.len, back, 2, &n, &err), KP_ENOTOOL);
		assert_string_equal(kp_error_msg(&err), "energy unavailable: no NVML");
		kp_buf_release(&out);
	}
}

static void test_json_round_trip(void **state)
{
	struct sim s;
	struct kp_energy_meter m;
	struct kp_energy_workload w;
	struct kp_energy_opts o;
	struct kp_energy_measurement r, back;
	struct kp_error err = KP_ERROR_INIT;
	json_t *v;

	sim_init(&s, &m, &w);
	kp_energy_opts_default(&o);
	o.windows = 3;
	KP_ASSERT_OK(kp_energy_measure(&m, &w, &o, &r, &err), &err);
	v = kp_energy_measurement_to_json(&r);
	KP_ASSERT_OK(kp_energy_measurement_from_json(v, "round trip", &back, &err), &err);
	json_decref(v);
	assert_string_equal(back.device, r.device);
	assert_int_equal(back.nwindows, 3);
	assert_true(back.energy_j == r.energy_j && back.dynamic_j == r.dynamic_j && back.time_s == r.time_s);
	assert_true(back.w[2].launches == r.w[2].launches && back.w[2].energy_j == r.w[2].energy_j);
	assert_true(back.w[1].temp_end_c == r.w[1].temp_end_c);
}

static void test_driver_output(void **state)
{
	struct kp_buf b = KP_BUF_INIT;
	struct kp_energy_measurement r;
	struct kp_error err = KP_ERROR_INIT;
	size_t n = 0;
	const char *bad[] = {
		"",
		"[]",
		"{\"ok\": 1}",
		"{\"ok\": true}",
		"{\"ok\": true, \"measurements\": []}",
		"{\"ok\": true, \"measurements\": [{\"energy_j\": 1, \"time_s\": 1}, {\"energy_j\": 1, \"time_s\": 1}]}",
		"{\"ok\": true, \"measurements\": [{\"energy_j\": \"x\", \"time_s\": 1}]}",
		"{\"ok\": true, \"measurements\": [{\"energy_j\": 1e30, \"time_s\": 1}]}",
		"{\"ok\": true, \"measurements\": [{\"energy_j\": 1, \"time_s\": 1, \"windows\": [{\"seconds\": 1}]}]}",
		"{\"ok\": true, \"measurements\": [{\"energy_j\": 1, \"time_s\": 1, \"windows\": {}}]}",
	};

	kp_test_read("tests/golden/energy/driver-ok.json", &b);
	KP_ASSERT_OK(kp_energy_parse_driver_output(b.buf, b.len, &r, 1, &n, &err), &err);
	assert_int_equal(n, 1);
	assert_string_equal(r.name, "builtin:swish_ieee");
	assert_string_equal(r.device, "NVIDIA H200");
	assert_int_equal(r.nwindows, 3);
	assert_true(fabs(r.energy_j - 0.126) < 1e-12);
	assert_true(isnan(r.w[0].gpu_seconds) == 0);
	kp_buf_release(&b);

	kp_test_read("tests/golden/energy/driver-unavailable.json", &b);
	assert_int_equal(kp_energy_parse_driver_output(b.buf, b.len, &r, 1, &n, &err), KP_ENOTOOL);
	assert_non_null(strstr(kp_error_msg(&err), "energy unavailable"));
	kp_buf_release(&b);

	for (size_t i = 0; i < KP_ARRAY_SIZE(bad); i++) {
		kp_error_clear(&err);
		if (kp_energy_parse_driver_output(bad[i], strlen(bad[i]), &r, 1, &n, &err) == 0)
			fail_msg("accepted bad driver output %zu: %s", i, bad[i]);
		assert_true(err.msg[0] != 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aligned_measurement_is_exact),
		cmocka_unit_test(test_unaligned_short_windows_are_off),
		cmocka_unit_test(test_energy_grows_with_launch_count),
		cmocka_unit_test(test_given_idle_power_and_launch_bound_note),
		cmocka_unit_test(test_frozen_counter_is_noted),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_interleaved_ab),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_driver_output),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

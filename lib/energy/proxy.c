/* The energy proxy: a weighted sum of per-launch counts (time, bytes, sectors, instructions by class). */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/energy.h"
#include "kernelpro/json.h"
#include "kernelpro/ncu_metrics.h"
#include "kernelpro/str.h"

struct term_info {
	const char *name, *unit, *cunit, *what;
	double def;
};

#define KP__TERM_INFO(id, name, unit, cunit, def, what) {name, unit, cunit, what, def},
static const struct term_info terms[KP_ENERGY_NTERMS] = {KP_ENERGY_TERMS(KP__TERM_INFO)};
#undef KP__TERM_INFO

const char *kp_energy_term_name(enum kp_energy_term t)
{
	return (unsigned)t < KP_ENERGY_NTERMS ? terms[t].name : "?";
}

const char *kp_energy_term_unit(enum kp_energy_term t)
{
	return (unsigned)t < KP_ENERGY_NTERMS ? terms[t].unit : "?";
}

const char *kp_energy_term_what(enum kp_energy_term t)
{
	return (unsigned)t < KP_ENERGY_NTERMS ? terms[t].what : "?";
}

int kp_energy_term_find(const char *name)
{
	for (int t = 0; t < KP_ENERGY_NTERMS; t++)
		if (!strcmp(terms[t].name, name))
			return t;
	return -1;
}

void kp_energy_counts_init(struct kp_energy_counts *k)
{
	for (int t = 0; t < KP_ENERGY_NTERMS; t++)
		k->v[t] = NAN;
}

void kp_energy_counts_add(struct kp_energy_counts *a, const struct kp_energy_counts *b)
{
	for (int t = 0; t < KP_ENERGY_NTERMS; t++)
		a->v[t] += b->v[t]; /* NAN + x stays NAN: missing anywhere is missing in the sum */
}

void kp_energy_coeffs_default(struct kp_energy_coeffs *c)
{
	memset(c, 0, sizeof(*c));
	for (int t = 0; t < KP_ENERGY_NTERMS; t++)
		c->c[t] = terms[t].def;
	/* Idle board power of the H200 the defaults come from (fixtures/h200-probe/energy.txt). */
	c->idle_power_w = 133.0;
	kp_strlcpy(c->source, "defaults (Hopper, from H200 measurements and published per-operation energies)",
		   sizeof(c->source));
}

void kp_energy_proxy(const struct kp_energy_counts *k, const struct kp_energy_coeffs *c,
		     struct kp_energy_breakdown *b)
{
	memset(b, 0, sizeof(*b));
	for (int t = 0; t < KP_ENERGY_NTERMS; t++) {
		double v = k->v[t];
		b->count[t] = v;
		if (!isfinite(v) || v < 0) {
			b->missing[t] = 1;
			continue;
		}
		b->term_j[t] = c->c[t] * v;
		b->total_j += b->term_j[t];
	}
	b->static_j = b->term_j[KP_ENERGY_STATIC] + b->term_j[KP_ENERGY_SM_ACTIVE];
	b->time_s = b->missing[KP_ENERGY_STATIC] ? NAN : k->v[KP_ENERGY_STATIC];
	b->dynamic_j = isfinite(b->time_s) ? b->total_j - c->idle_power_w * b->time_s : NAN;
	b->incomplete = b->missing[KP_ENERGY_STATIC] || b->missing[KP_ENERGY_DRAM];
}

json_t *kp_energy_breakdown_to_json(const struct kp_energy_breakdown *b, const struct kp_energy_coeffs *c)
{
	json_t *o = json_object(), *t = json_object(), *missing = json_array();
	kp_json_set(o, "total_j", kp_json_real(b->total_j));
	kp_json_set(o, "static_j", kp_json_real(b->static_j));
	kp_json_set(o, "dynamic_j", kp_json_real(b->dynamic_j));
	kp_json_set(o, "time_s", kp_json_real(b->time_s));
	kp_json_set(o, "incomplete", json_boolean(b->incomplete));
	for (int i = 0; i < KP_ENERGY_NTERMS; i++) {
		if (b->missing[i]) {
			json_array_append_new(missing, json_string(terms[i].name));
			continue;
		}
		kp_json_set(t, terms[i].name, kp_json_real(b->term_j[i]));
	}
	kp_json_set(o, "terms_j", t);
	kp_json_set(o, "missing", missing);
	if (c)
		kp_json_set(o, "coefficients", json_string(c->source));
	return o;
}

/*
 * What the proxy asks ncu for. Thread-level instruction counts (predicated-on) so that idle
 * lanes cost nothing; the XU pipe for MUFU and conversions; tensor-pipe cycles because HMMA and
 * HGMMA shapes differ too much for an instruction count to mean energy.
 */
static const char *const proxy_metrics[] = {
	KP_M_TIME,
	KP_M_SM_CYCLES_ACTIVE,
	KP_M_DRAM_RD,
	KP_M_DRAM_WR,
	KP_M_L2_BYTES,
	KP_M_G_SECTORS,
	KP_M_G_DATA_BYTES,
	KP_M_LLD_BYTES,
	KP_M_LST_BYTES,
	KP_M_OP_FP32,
	KP_M_OP_FP64,
	KP_M_OP_INTEGER,
	KP_M_OP_MEMORY,
	KP_M_XU_THREAD_INST,
	KP_M_THREAD_INST,
	KP_M_TENSOR_CYCLES,
	NULL,
};

const char *const *kp_energy_proxy_metrics(void)
{
	return proxy_metrics;
}

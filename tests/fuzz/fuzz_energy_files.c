/*
 * Fuzz target: the energy files kernelpro reads from disk: a corpus sample, a coefficient file and
 * the corpus benchmark's measured JSON Lines (joined against an empty ncu report). The first byte
 * picks the parser.
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/energy.h"
#include "kernelpro/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_error err = KP_ERROR_INIT;
	const char *text = (const char *)data + 1;
	json_t *v = NULL;
	if (size < 1)
		return 0;
	size--;
	switch (data[0] % 3) {
	case 0: {
		struct kp_energy_sample s;
		if (kp_json_load_mem("fuzz", text, size, &v, &err) == 0 && kp_energy_sample_from_json(v, "fuzz", &s, &err) == 0) {
			struct kp_energy_breakdown b;
			struct kp_energy_coeffs c;
			kp_energy_coeffs_default(&c);
			kp_energy_proxy(&s.counts, &c, &b);
			if (!(s.energy_j > 0) || b.total_j < 0)
				__builtin_trap();
		}
		break;
	}
	case 1: {
		struct kp_energy_coeffs c;
		if (kp_json_load_mem("fuzz", text, size, &v, &err) == 0 && kp_energy_coeffs_from_json(v, "fuzz", &c, &err) == 0)
			for (int t = 0; t < KP_ENERGY_NTERMS; t++)
				if (!(c.c[t] >= 0))
					__builtin_trap();
		break;
	}
	default: {
		/* A report of entry 0's marker and one launch without metrics, so measured lines get joined. */
		struct kp_launch l[2];
		struct kp_ncu_report r = KP_NCU_REPORT_INIT;
		struct kp_energy_sample *s = NULL;
		struct kp_buf w = KP_BUF_INIT;
		size_t n = 0, alloc = 0;
		memset(l, 0, sizeof(l));
		l[0].function = "kp_corpus_marker";
		l[0].grid[0] = 1;
		l[1].id = 1;
		l[1].function = "k";
		r.launches = l;
		r.nlaunches = 2;
		kp_energy_corpus_join(text, size, "fuzz", &r, &s, &n, &alloc, &w, &err);
		free(s);
		kp_buf_release(&w);
		break;
	}
	}
	json_decref(v);
	return 0;
}

/*
 * libFuzzer target: the knob reader (CUDA and Python, each derivation mode), constraints, binding,
 * variants and points. First byte: bit 0 Python, bits 1-2 derivation mode, bit 3 "the rest is a point
 * to parse against a fixed space". Checks the invariants too: the default variant is the source itself,
 * a variant reads back, a formatted point parses back to itself.
 */
#include "base/setup.h"

#include "kernelpro/tune.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void env_of(struct kp_tune_env *e)
{
	kp_tune_env_init(e);
	kp_tune_env_add_hw(e, kp_hw_spec_find("h200-sxm"));
	kp_tune_env_set(e, "x_0", 1 << 20, NULL);
}

static void point_text(const char *text)
{
	static const char src[] = "int a = KP_TUNE(BLOCK, 256, 128, -4);\nKP_UNROLL(UNROLL, 1, 2)\n";
	struct kp_tune_space *s;
	struct kp_tune_point p;
	struct kp_error err = KP_ERROR_INIT;
	if (kp_tune_parse(&s, "f.cu", src, sizeof(src) - 1, KP_TUNE_CUDA, KP_TUNE_DERIVE_AUTO, &err))
		abort();
	kp_tune_point_parse(s, text, &p, &err);
	kp_tune_space_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_tune_space *s = NULL, *s2 = NULL;
	struct kp_tune_env env;
	struct kp_tune_point p, q;
	struct kp_buf v = KP_BUF_INIT, text = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	enum kp_tune_lang lang;
	enum kp_tune_derive derive;
	json_t *j;

	if (size < 1)
		return 0;
	lang = data[0] & 1 ? KP_TUNE_PYTHON : KP_TUNE_CUDA;
	derive = (enum kp_tune_derive)((data[0] >> 1) % 3);
	if (data[0] & 8) {
		char *t = kp_xstrndup((const char *)data + 1, size - 1);
		point_text(t);
		free(t);
		return 0;
	}
	if (kp_tune_parse(&s, "fuzz", (const char *)data + 1, size - 1, lang, derive, &err))
		return 0;
	env_of(&env);
	if (kp_tune_bind(s, &env, &err))
		goto out;
	kp_tune_space_describe(s, &text);
	if (kp_tune_space_size(s) <= 4096) { /* the JSON counts feasible points one by one */
		j = kp_tune_space_to_json(s);
		json_decref(j);
	}

	kp_tune_default_point(s, &p);
	if (kp_tune_variant(s, &p, &v, &err) || v.len != size - 1 || memcmp(v.buf, data + 1, size - 1))
		abort(); /* the default variant must be the source itself */
	for (size_t k = 0; k < kp_tune_nknobs(s); k++)
		p.v[k] = (uint16_t)((p.v[k] + 1) % kp_tune_knob_at(s, k)->nvalues);
	kp_tune_feasible(s, &p);
	kp_buf_reset(&v);
	if (kp_tune_variant(s, &p, &v, &err))
		abort();
	if (kp_tune_parse(&s2, "variant", v.buf, v.len, lang, derive, &err) == 0)
		kp_tune_space_free(s2);

	kp_buf_reset(&text);
	kp_tune_point_format(s, &p, &text);
	if (kp_tune_point_parse(s, text.buf, &q, &err) || memcmp(&p, &q, sizeof(p.v[0]) * kp_tune_nknobs(s)))
		abort(); /* a point's text reads back to the point */
out:
	kp_tune_space_free(s);
	kp_buf_release(&text);
	kp_buf_release(&v);
	return 0;
}

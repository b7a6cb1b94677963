/* Unit tests: JSON helpers (errors with positions, getters, stable dumps) and SHA-256. */
#include "base/setup.h"

#include <math.h>

#include "kp_test.h"
#include "kernelpro/fs.h"
#include "kernelpro/hash.h"
#include "kernelpro/json.h"

static void test_load_error_has_position(void **state)
{
	struct kp_error err = KP_ERROR_INIT;
	json_t *v = NULL;
	const char *bad = "{\n  \"a\": 1,\n  \"b\": }";
	assert_int_equal(kp_json_load_mem("reply.json", bad, strlen(bad), &v, &err), KP_EPARSE);
	assert_null(v);
	assert_non_null(strstr(kp_error_msg(&err), "reply.json: line 3"));
}

static void test_getters(void **state)
{
	struct kp_error err = KP_ERROR_INIT;
	json_t *v = NULL;
	const char *s;
	double d;
	const char *text = "{\"s\":\"x\",\"n\":2.5,\"i\":7,\"b\":true,\"f\":3.0}";
	KP_ASSERT_OK(kp_json_load_mem("t", text, strlen(text), &v, &err), &err);
	assert_string_equal(kp_json_str(v, "s", "d"), "x");
	assert_string_equal(kp_json_str(v, "n", "d"), "d");
	assert_true(kp_json_num(v, "n", 0) == 2.5);
	assert_true(kp_json_num(v, "i", 0) == 7.0);
	assert_int_equal(kp_json_int(v, "i", 0), 7);
	assert_int_equal(kp_json_int(v, "f", 0), 3);
	assert_int_equal(kp_json_int(v, "n", -1), -1);
	assert_true(kp_json_bool(v, "b", 0));
	assert_int_equal(kp_json_req_str(v, "s", "task", &s, &err), 0);
	assert_int_equal(kp_json_req_num(v, "missing", "task.json", &d, &err), KP_EPARSE);
	assert_non_null(strstr(kp_error_msg(&err), "'missing'"));
	json_decref(v);
}

static void test_dump_sorted_and_nan(void **state)
{
	struct kp_buf b = KP_BUF_INIT;
	json_t *o = json_object();
	kp_json_set(o, "z", json_integer(1));
	kp_json_set(o, "a", kp_json_real(NAN));
	kp_json_set(o, "m", kp_json_real(0.5));
	assert_int_equal(kp_json_dump_buf(o, &b, 1), 0);
	assert_string_equal(b.buf, "{\"a\":null,\"m\":0.5,\"z\":1}");
	kp_buf_release(&b);
	json_decref(o);
}

static void test_write_file(void **state)
{
	char *dir = kp_test_tmpdir();
	struct kp_buf p = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	json_t *o = json_pack("{s:i}", "k", 5), *back = NULL;
	kp_buf_addf(&p, "%s/o.json", dir);
	KP_ASSERT_OK(kp_json_write_file(p.buf, o, &err), &err);
	KP_ASSERT_OK(kp_json_load_file(p.buf, 1024, &back, &err), &err);
	assert_true(json_equal(o, back));
	json_decref(o);
	json_decref(back);
	kp_buf_release(&p);
	kp_test_tmpdir_remove(dir);
}

/* kp_json_text: one compact line, keys sorted, the value taken (ASan sees a leak otherwise), NULL for NULL. */
static void test_text(void **state)
{
	json_t *o = json_object();
	char *t;
	(void)state;
	kp_json_set(o, "b", json_integer(2));
	kp_json_set(o, "a", json_pack("[i,s]", 1, "x"));
	t = kp_json_text(o);
	assert_string_equal(t, "{\"a\":[1,\"x\"],\"b\":2}");
	free(t);
	assert_null(kp_json_text(NULL));
}

static void test_sha256(void **state)
{
	char a[65], b[65];
	struct kp_sha256 h;
	kp_sha256_hex("abc", 3, a);
	assert_string_equal(a, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	kp_sha256_hex("", 0, a);
	assert_string_equal(a, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	kp_sha256_init(&h);
	kp_sha256_update(&h, "a", 1);
	kp_sha256_update(&h, "bc", 2);
	kp_sha256_final(&h, b);
	kp_sha256_hex("abc", 3, a);
	assert_string_equal(a, b);
	/* update_str separates fields: ("ab","c") != ("a","bc"). */
	kp_sha256_init(&h);
	kp_sha256_update_str(&h, "ab");
	kp_sha256_update_str(&h, "c");
	kp_sha256_final(&h, a);
	kp_sha256_init(&h);
	kp_sha256_update_str(&h, "a");
	kp_sha256_update_str(&h, "bc");
	kp_sha256_final(&h, b);
	assert_string_not_equal(a, b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_error_has_position),
		cmocka_unit_test(test_getters),
		cmocka_unit_test(test_dump_sorted_and_nan),
		cmocka_unit_test(test_write_file),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_sha256),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

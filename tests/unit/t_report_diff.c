/* The run page's line diffs (lib/report/diff.c): hunks with context, escaping, the same text, limits. */
#include "base/setup.h"

#include "kp_test.h"
#include "report/report_int.h"

static char *diff(const char *a, const char *b, int *changed)
{
	struct kp_buf out = KP_BUF_INIT;
	*changed = kp_html_diff(&out, a, b, 1);
	return kp_buf_detach(&out, NULL);
}

static void test_hunks(void **state)
{
	int n;
	char *d = diff("a\nb\nc\nd\ne\nf\ng\nh\n", "a\nB\nc\nd\ne\nf\ng\nh\ni\n", &n);
	assert_int_equal(n, 3); /* b out, B in, i in */
	assert_non_null(strstr(d, "<span class=\"hunk\">@@ -1 +1 @@</span><span class=\"ctx\"> a</span>"
	                          "<span class=\"del\">-b</span><span class=\"add\">+B</span>"
	                          "<span class=\"ctx\"> c</span>"));
	/* Far apart: a second hunk, with its own context, and the lines between left out. */
	assert_non_null(strstr(d, "<span class=\"hunk\">@@ -8 +8 @@</span><span class=\"ctx\"> h</span>"
	                          "<span class=\"add\">+i</span>"));
	assert_null(strstr(d, " e<"));
	free(d);
}

static void test_escaped_and_same(void **state)
{
	int n;
	char *d = diff("x\n", "<script>\"&'\n", &n);
	assert_int_equal(n, 2);
	assert_non_null(strstr(d, "+&lt;script&gt;&quot;&amp;&#39;"));
	assert_null(strstr(d, "<script>"));
	free(d);
	d = diff("same\n", "same\n", &n);
	assert_int_equal(n, 0);
	assert_non_null(strstr(d, "(the same source)"));
	free(d);
	d = diff(NULL, "new\n", &n); /* no parent text: everything added */
	assert_int_equal(n, 1);
	free(d);
}

static void test_too_large(void **state)
{
	struct kp_buf a = KP_BUF_INIT;
	int n;
	char *d;
	for (int i = 0; i < 3000; i++)
		kp_buf_addf(&a, "%d\n", i);
	d = diff(a.buf, a.buf, &n); /* 3001 x 3001 line pairs: past the bound */
	assert_int_equal(n, -1);
	assert_non_null(strstr(d, "Too large to compare here (3000 and 3000 lines)"));
	free(d);
	kp_buf_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hunks),
	    cmocka_unit_test(test_escaped_and_same),
	    cmocka_unit_test(test_too_large),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests: HTML escaping, and the run and suite pages built from hand-made data, hostile strings included.
 */
#include "base/setup.h"

#include <math.h>

#include "kp_test.h"
#include "kernelpro/json.h"
#include "kernelpro/report.h"
#include "kernelpro/suite.h"

#define HOSTILE "</title></style><script>window.__kp_pwned=1</script><img src=x onerror='x()'>\"&amp;\x01"
/* The same inside a JSON string. */
#define HOSTILE_J \
	"</title></style><script>window.__kp_pwned=1</script><img src=x onerror='x()'>\\\"&amp;\\u0001"

static void test_escape(void **state)
{
	struct kp_buf b = KP_BUF_INIT;
	kp_html_escape(&b, HOSTILE);
	assert_string_equal(
	    b.buf, "&lt;/title&gt;&lt;/style&gt;&lt;script&gt;window.__kp_pwned=1&lt;/script&gt;&lt;img "
	           "src=x onerror=&#39;x()&#39;&gt;&quot;&amp;amp;\xef\xbf\xbd");
	kp_buf_reset(&b);
	kp_html_escape(&b, NULL);
	assert_string_equal(b.buf, "");
	kp_html_escape(&b, "tab\tnew\nline \xc3\x97 ok");
	assert_string_equal(b.buf, "tab\tnew\nline \xc3\x97 ok");
	kp_buf_release(&b);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* Nothing from the data reaches the page as markup: one <script>, no <img>, no event handler. */
static void assert_inert(const char *html)
{
	assert_int_equal(count(html, "<script"), 1);
	assert_int_equal(count(html, "<img"), 0);
	assert_true(count(html, "onerror=&#39;x()&#39;&gt;") > 0); /* as text: its tag was escaped */
	assert_int_equal(count(html, "</style>"), 1);
	assert_null(strstr(html, "</title></style>"));
	assert_true(count(html, "&lt;script&gt;window.__kp_pwned=1") > 0);
}

static const char *view_text =
    "{\"schema\":\"kernelpro.run-view/1\",\"dir\":\"d\",\"hardware\":\"H200 " HOSTILE_J
    "\",\"stage1\":\"memory-bound\","
    "\"summary\":{\"run\":\"r" HOSTILE_J "\",\"status\":\"finished\",\"end_reason\":\"budget\","
    "\"task\":{\"name\":\"t" HOSTILE_J "\",\"kind\":\"native\"},"
    "\"used\":{\"evaluations\":3,\"tokens_in\":10,\"tokens_out\":5,\"cost_usd\":0.5,\"elapsed_s\":90,"
    "\"sessions\":1},"
    "\"outcomes\":{\"correct\":2,\"compile_error\":1},\"best\":{\"node\":3,\"improved\":true}},"
    "\"nodes\":["
    "{\"node\":1,\"parent\":null,\"kind\":\"root\",\"outcome\":\"correct\",\"speedup\":1.0,\"time_ms\":2.0,"
    "\"summary\":\"the reference\",\"feedback\":\"fb " HOSTILE_J "\",\"findings\":[{\"tool\":\"x" HOSTILE_J
    "\",\"severity\":\"high\",\"title\":\"" HOSTILE_J
    "\"}],\"profile\":{\"launch\":{\"stage1\":{\"class\":\"memory\","
    "\"precision\":\"fp32\",\"ai\":1.1,\"achieved_flops\":1.5e11,\"achieved_bw\":1.35e11,\"compute_peak\":6."
    "7e13,"
    "\"memory_peak\":4.8e12}}}},"
    "{\"node\":2,\"parent\":1,\"kind\":\"initial\",\"outcome\":\"compile_error\\\"><b>\",\"summary\":"
    "\"" HOSTILE_J "\",\"log\":\"log " HOSTILE_J "\"},"
    "{\"node\":3,\"parent\":1,\"kind\":\"refine\",\"outcome\":\"correct\",\"speedup\":2.5,\"time_ms\":0.8,"
    "\"summary\":\"s\",\"profile\":{\"launch\":{\"stage1\":{\"class\":\"memory\",\"precision\":\"fp32\","
    "\"ai\":1.1,"
    "\"achieved_flops\":3.75e11,\"achieved_bw\":3.4e11,\"compute_peak\":6.7e13,\"memory_peak\":4.8e12}}}}]}";

static void test_run_page(void **state)
{
	struct kp_buf b = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	json_t *v = NULL;

	KP_ASSERT_OK(kp_json_load_mem("view", view_text, strlen(view_text), &v, &err), &err);
	KP_ASSERT_OK(kp_report_run_html(v, &b, &err), &err);
	assert_inert(b.buf);
	assert_non_null(strstr(b.buf, "data-plot=\"roofline\""));
	assert_non_null(strstr(b.buf, "data-plot=\"search_tree\""));
	assert_non_null(strstr(b.buf, "data-plot=\"speedup_over_evals\""));
	assert_non_null(strstr(b.buf, "Content-Security-Policy"));
	assert_non_null(strstr(b.buf, "best #3"));
	/* An outcome the page does not know never becomes a class name. */
	assert_null(strstr(b.buf, "o-compile_error\""));
	assert_non_null(strstr(b.buf, "class=\"oc o-pending\""));
	kp_buf_release(&b);
	json_decref(v);
}

/* Without a profile the roofline says why it is missing, and the page still renders. */
static void test_run_page_without_profiles(void **state)
{
	struct kp_buf b = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	json_t *v = json_pack("{s:{s:s,s:{}},s:[{s:i,s:n,s:s,s:f}]}", "summary", "run", "r", "task", "nodes",
	                      "node", 1, "parent", "outcome", "correct", "time_ms", 2.0);
	KP_ASSERT_OK(kp_report_run_html(v, &b, &err), &err);
	assert_null(strstr(b.buf, "data-plot=\"roofline\""));
	assert_non_null(strstr(b.buf, "No Stage-1 profile was saved"));
	assert_non_null(strstr(b.buf, "no version beat the reference yet"));
	json_decref(v);
	json_decref(NULL);
	v = json_pack("{s:[]}", "nodes");
	assert_int_equal(kp_report_run_html(v, &b, &err), KP_EPARSE);
	json_decref(v);
	kp_buf_release(&b);
}

static void test_suite_page(void **state)
{
	struct kp_suite s;
	struct kp_suite_task t;
	struct kp_buf b = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;

	kp_suite_init(&s, "suite " HOSTILE);
	for (int i = 0; i < 3; i++) {
		kp_suite_task_init(&t);
		t.name = kp_xasprintf("task%d %s", i, HOSTILE);
		t.state = KP_SUITE_FINISHED;
		t.correct = i != 2;
		t.best_ms = i != 2 ? 1.0 + i : NAN;
		t.base_ms[KP_SUITE_EAGER] = 3.0;
		t.base_ms[KP_SUITE_COMPILE] = i ? 2.0 : NAN;
		t.elapsed_s = 100 * (i + 1);
		t.gpu = kp_xstrdup("H200 " HOSTILE);
		t.model = kp_xstrdup("m " HOSTILE);
		if (i == 2) { /* a refused task: its check and message are text too */
			t.failure_node = 4;
			t.failure_outcome = kp_xstrdup("cheat_suspected");
			t.failure_check = kp_xstrdup("reads_" HOSTILE);
			t.failure_message = kp_xstrdup("msg " HOSTILE);
			t.cost_known = 0;
		}
		kp_suite_add(&s, &t);
	}
	KP_ASSERT_OK(kp_suite_compute(&s, &err), &err);
	KP_ASSERT_OK(kp_report_suite_html(&s, &b, &err), &err);
	assert_inert(b.buf);
	/* Without run pages beside it (kp_report_suite_html alone), the page links nowhere. */
	assert_null(strstr(b.buf, "<a href="));
	assert_non_null(strstr(b.buf, "#4 CH reads_&lt;/title&gt;"));
	assert_non_null(strstr(b.buf, "<dt>GPU</dt><dd>H200 &lt;/title&gt;"));
	/* A task without a price: unknown, never $0.00; the headline says which part is a guess. */
	assert_non_null(strstr(b.buf, "data-v=\"\">unknown</td>"));
	assert_non_null(strstr(b.buf, "<div class=\"value\">unknown</div>"));
	assert_non_null(strstr(b.buf, "Best: the version that beat the reference"));
	assert_non_null(strstr(b.buf, "data-plot=\"fast_p\""));
	assert_non_null(strstr(b.buf, "data-plot=\"speedup_distribution\""));
	assert_non_null(strstr(b.buf, "data-plot=\"time_cost\""));
	assert_non_null(strstr(b.buf, "<table class=\"sortable\" id=\"tasks\">"));
	/* Sort keys carry full precision; values not measured sort last through an empty key. */
	assert_non_null(strstr(b.buf, "data-v=\"3\">3.00\xc3\x97</td>"));
	assert_non_null(strstr(b.buf, "data-v=\"\">\xe2\x80\x94</td>"));
	kp_buf_release(&b);
	kp_suite_release(&s);
}

static void test_empty_suite_page(void **state)
{
	struct kp_suite s;
	struct kp_buf b = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	kp_suite_init(&s, "empty");
	KP_ASSERT_OK(kp_suite_compute(&s, &err), &err);
	KP_ASSERT_OK(kp_report_suite_html(&s, &b, &err), &err);
	assert_non_null(strstr(b.buf, "This suite has no tasks yet"));
	assert_null(strstr(b.buf, "data-plot="));
	kp_buf_release(&b);
	kp_suite_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_escape),
	    cmocka_unit_test(test_run_page),
	    cmocka_unit_test(test_run_page_without_profiles),
	    cmocka_unit_test(test_suite_page),
	    cmocka_unit_test(test_empty_suite_page),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

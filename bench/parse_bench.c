/*
 * Times parsing the 17-kernel H200 capture: ncu_raw.csv (2,238 columns) and
 * sass.txt (cuobjdump -sass), plus the name join, as one would per profile.
 * Prints the median and best of N runs. Usage: parse_bench [REPO_ROOT] [N]
 */
#include "base/setup.h"

#include "kernelpro/fs.h"
#include "kernelpro/log.h"
#include "kernelpro/profile.h"
#include "kernelpro/str.h"

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *root = argc > 1 ? argv[1] : ".";
	long n = 50;
	struct kp_buf csv = KP_BUF_INIT, sass = KP_BUF_INIT, p = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	double *t = NULL, *tc = NULL, *ts = NULL;
	size_t joined = 0;
	int rc = 1;
	if (argc > 2 && (kp_parse_long(argv[2], &n) || n < 1)) {
		fprintf(stderr, "usage: parse_bench [REPO_ROOT] [N]\n");
		return 2;
	}
	kp_buf_addf(&p, "%s/tests/golden/h200-probe/ncu_raw.csv", root);
	if (kp_read_file(p.buf, 0, &csv, &err))
		goto out;
	kp_buf_reset(&p);
	kp_buf_addf(&p, "%s/tests/golden/h200-probe/sass.txt", root);
	if (kp_read_file(p.buf, 0, &sass, &err))
		goto out;
	t = kp_xcalloc((size_t)n, sizeof(*t));
	tc = kp_xcalloc((size_t)n, sizeof(*tc));
	ts = kp_xcalloc((size_t)n, sizeof(*ts));
	for (long i = 0; i < n; i++) {
		struct kp_ncu_report r = KP_NCU_REPORT_INIT;
		struct kp_sass s = KP_SASS_INIT;
		double t0 = kp_now(), t1, t2;
		int bad = kp_ncu_parse_raw(&r, "ncu_raw.csv", csv.buf, csv.len, &err);
		t1 = kp_now();
		bad = bad || kp_sass_parse(&s, "sass.txt", sass.buf, sass.len, &err);
		joined = 0;
		for (size_t j = 0; !bad && j < r.nlaunches; j++)
			joined += kp_sass_find_launch(&s, &r.launches[j]) != NULL;
		t2 = kp_now();
		kp_ncu_report_release(&r);
		kp_sass_release(&s);
		if (bad)
			goto out;
		tc[i] = t1 - t0;
		ts[i] = t2 - t1;
		t[i] = t2 - t0;
	}
	qsort(t, (size_t)n, sizeof(*t), cmp);
	qsort(tc, (size_t)n, sizeof(*tc), cmp);
	qsort(ts, (size_t)n, sizeof(*ts), cmp);
	printf("parse ncu_raw.csv (%zu bytes) + sass.txt (%zu bytes) + join (%zu of 17 launches joined), %ld runs:\n",
	       csv.len, sass.len, joined, n);
	printf("  total    median %.2f ms, best %.2f ms\n", 1e3 * t[n / 2], 1e3 * t[0]);
	printf("  ncu csv  median %.2f ms\n", 1e3 * tc[n / 2]);
	printf("  sass     median %.2f ms (with the join)\n", 1e3 * ts[n / 2]);
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "parse_bench: %s\n", kp_error_msg(&err));
	free(t);
	free(tc);
	free(ts);
	kp_buf_release(&csv);
	kp_buf_release(&sass);
	kp_buf_release(&p);
	return rc;
}

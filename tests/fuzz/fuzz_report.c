/* Fuzz target: first byte 0: a results document (kp_suite_from_json, then its JSON, CSV and suite page);
 * 1: a run view (kp_suite_task_from_view and the run page). Neither may crash on any JSON. */
#include "base/setup.h"

#include "kernelpro/json.h"
#include "kernelpro/report.h"
#include "kernelpro/suite.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf out = KP_BUF_INIT;
	json_t *doc = NULL;

	if (size < 1 || kp_json_load_mem("fuzz", (const char *)data + 1, size - 1, &doc, &err))
		return 0;
	if (data[0] & 1) {
		struct kp_suite_task t;
		kp_suite_task_init(&t);
		kp_suite_task_from_view(&t, doc, &err);
		kp_suite_task_release(&t);
		kp_report_run_html(doc, &out, &err);
	} else {
		struct kp_suite s;
		kp_suite_init(&s, "fuzz");
		if (!kp_suite_from_json(&s, doc, &err)) {
			json_t *back = kp_suite_to_json(&s);
			kp_suite_csv(&s, &out);
			kp_report_suite_html(&s, &out, &err);
			json_decref(back);
		}
		kp_suite_release(&s);
	}
	kp_buf_release(&out);
	json_decref(doc);
	return 0;
}

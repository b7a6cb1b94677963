/* kernelpro analyze: Stage 1 for a saved profile (a `kernelpro profile` directory, or an .ncu-rep report). */
#include "base/setup.h"

#include <math.h>

#include "cli.h"
#include "diagnose.h"
#include "tools_cli.h"
#include "kernelpro/fs.h"
#include "kernelpro/str.h"

static const struct kp_opt analyze_opts[] = {
	{"gpu", 0, KP_OPT_STR, "KEY", "GPU model (kernelpro hw show --list); default: the report's, else this machine's", NULL},
	{"gpu-index", 0, KP_OPT_INT, "N:0..", "local GPU to model when neither --gpu nor the report names one", "0"},
	{"launch", 0, KP_OPT_LIST, "ID", "only this launch (ncu ID)", NULL},
	{"min-bytes", 0, KP_OPT_NUM, "N:0..", "minimum DRAM traffic of the task (inputs read once, outputs written once)", NULL},
	{"sass", 0, KP_OPT_STR, "FILE", "SASS to join (instead of the directory's)", NULL},
	{"ptxas", 0, KP_OPT_STR, "FILE", "ptxas -v output to join", NULL},
	{"out", 0, KP_OPT_STR, "DIR", "with an .ncu-rep: where to export its pages (default: a temporary directory)", NULL},
	KP_TOOLS_OPTS,
	KP_FEEDBACK_OPTS,
	KP_OPT_TABLE_END,
};

/* Exports an .ncu-rep's raw, details and source pages into dir (needs ncu, not a GPU). */
static int import_report(struct kp_cli *cli, const char *rep, const char *dir)
{
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf p = KP_BUF_INIT;
	static const struct {
		const char *page, *file;
		int required;
	} pages[] = {{"raw", "ncu_raw.csv", 1}, {"details", "ncu_details.csv", 0}, {"source", "sass.csv", 0}};
	int rc = 0;
	if (kp_mkdir_p(dir, 0755, &err))
		return kp_cli_fail(cli, &err);
	for (size_t i = 0; i < KP_ARRAY_SIZE(pages) && !rc; i++) {
		kp_buf_reset(&p);
		kp_path_join(&p, dir, pages[i].file);
		if (kp_ncu_import(NULL, rep, pages[i].page, p.buf, 600000, &err)) {
			if (pages[i].required)
				rc = kp_cli_fail(cli, &err);
			else
				kp_cli_warn(cli, "%s", kp_error_msg(&err));
			kp_error_clear(&err);
		}
	}
	kp_buf_release(&p);
	return rc;
}

static int run_analyze(struct kp_cli *cli, const struct kp_args *args)
{
	const char *in = kp_arg_pos(args, 0);
	struct kp_diagnose_opts o;
	struct kp_strvec paths = KP_STRVEC_INIT;
	struct kp_buf tmp = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	const char *dir = in;
	int rc;

	memset(&o, 0, sizeof(o));
	if (kp_ends_with(in, ".ncu-rep")) {
		dir = kp_arg_str(args, "out");
		if (!dir) {
			if (kp_mkdtemp("kp-analyze", &tmp, &err)) {
				rc = kp_cli_fail(cli, &err);
				goto out;
			}
			dir = tmp.buf;
		}
		if ((rc = import_report(cli, in, dir)))
			goto out;
	} else if (!kp_path_is_dir(in)) {
		kp_cli_error(cli, "'%s' is neither a profile directory nor an .ncu-rep report", in);
		rc = KP_EXIT_USAGE;
		goto out;
	}
	if ((rc = kp_diagnose_tools_open(cli, args, &o)))
		goto out;
	kp_profile_dir_files(dir, &o.files, &paths);
	o.device_name = kp_profile_dir_device(dir, &paths);
	if (kp_arg_str(args, "sass"))
		o.files.sass = kp_arg_str(args, "sass");
	if (kp_arg_str(args, "ptxas"))
		o.files.ptxas = kp_arg_str(args, "ptxas");
	if (!o.files.ncu_csv) {
		if (o.files.trace) {
			rc = kp_trace_report(cli, o.files.trace, &o);
			goto out;
		}
		kp_cli_error(cli, "'%s' has neither ncu_raw.csv nor trace.json; run 'kernelpro profile' first", dir);
		rc = KP_EXIT_FAIL;
		goto out;
	}
	o.gpu_key = kp_arg_str(args, "gpu");
	o.gpu_index = (int)kp_arg_int(args, "gpu-index", 0);
	o.launches = kp_arg_list(args, "launch");
	o.min_bytes = kp_arg_num(args, "min-bytes", NAN);
	rc = kp_diagnose_report(cli, &o);
out:
	kp_diagnose_tools_close(&o);
	if (tmp.len)
		kp_rm_rf(tmp.buf, NULL);
	kp_buf_release(&tmp);
	kp_strvec_release(&paths);
	return rc;
}

const struct kp_cmd kp_cmd_analyze = {
	.name = "analyze",
	.summary = "Stage 1 (roofline, bottleneck class) for a saved profile directory or .ncu-rep",
	.usage = "[options] PROFILE_DIR|REPORT.ncu-rep",
	.description = "PROFILE_DIR is what 'kernelpro profile --out DIR' wrote. An .ncu-rep is exported\n"
		       "with 'ncu --import' first (needs ncu, not a GPU). Without ncu data, prints the\n"
		       "trace's timing. --json: docs/diagnose-json.md.",
	.flags = KP_CMD_JSON,
	.opts = analyze_opts,
	.min_args = 1,
	.max_args = 1,
	.run = run_analyze,
};

/* kernelpro analyze: Stage 1 for a saved profile (a `kernelpro profile` directory, or an .ncu-rep report). */
#include "base/setup.h"

#include <math.h>

#include "cli.h"
#include "diagnose.h"
#include "tools_cli.h"
#include "kernelpro/fs.h"
#include "kernelpro/str.h"

static const struct kp_opt analyze_opts[] = {
	KP_DIAGNOSE_OPTS,
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
	struct kp_buf tmp = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	int rc;

	memset(&o, 0, sizeof(o));
	o.dir = in;
	if (kp_ends_with(in, ".ncu-rep")) {
		o.dir = kp_arg_str(args, "out");
		if (!o.dir) {
			if (kp_mkdtemp("kp-analyze", &tmp, &err)) {
				rc = kp_cli_fail(cli, &err);
				goto out;
			}
			o.dir = tmp.buf;
		}
		if ((rc = import_report(cli, in, o.dir)))
			goto out;
	} else if (!kp_path_is_dir(in)) {
		/* A path that is not there (or not what it should be) is exit 1 in every command (docs/cli.md). */
		kp_cli_error(cli, "'%s' is neither a profile directory nor an .ncu-rep report%s", in,
			     kp_path_exists(in) ? "" : " (no such file or directory)");
		rc = KP_EXIT_FAIL;
		goto out;
	}
	if ((rc = kp_diagnose_tools_open(cli, args, &o)))
		goto out;
	o.dir_hint = "run 'kernelpro profile' first";
	o.files.sass = kp_arg_str(args, "sass");
	o.files.ptxas = kp_arg_str(args, "ptxas");
	kp_diagnose_opts_args(&o, args);
	rc = kp_diagnose_report(cli, &o);
out:
	kp_diagnose_tools_close(&o);
	if (tmp.len)
		kp_rm_rf(tmp.buf, NULL);
	kp_buf_release(&tmp);
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
	.examples = "kernelpro analyze prof                  # what 'kernelpro profile --out prof' saved\n"
		    "kernelpro analyze report.ncu-rep --gpu-model h200-sxm --json",
};

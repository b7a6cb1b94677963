/* kernelpro diagnose: Stage 1 (and later the tools' findings) for saved ncu/SASS/ptxas/trace output, offline. */
#include "base/setup.h"

#include <math.h>

#include "cli.h"
#include "diagnose.h"
#include "tools_cli.h"

static const struct kp_opt diagnose_opts[] = {
	{"ncu-csv", 0, KP_OPT_STR, "FILE", "ncu raw page: ncu --csv --page raw --print-units base (required)", NULL},
	{"ncu-details", 0, KP_OPT_STR, "FILE", "ncu details page (--page details): Nsight Compute's rule results", NULL},
	{"sass", 0, KP_OPT_STR, "FILE", "cuobjdump -sass, nvdisasm, or ncu --page source --print-source sass --csv", NULL},
	{"ptxas", 0, KP_OPT_STR, "FILE", "nvcc -Xptxas -v output", NULL},
	{"trace", 0, KP_OPT_STR, "FILE", "kernelpro tracer JSON, or nsys stats --format csv output", NULL},
	KP_DIAGNOSE_OPTS,
	KP_TOOLS_OPTS,
	KP_FEEDBACK_OPTS,
	KP_OPT_TABLE_END,
};

static int run_diagnose(struct kp_cli *cli, const struct kp_args *args)
{
	struct kp_diagnose_opts o;
	int rc;
	memset(&o, 0, sizeof(o));
	o.files.ncu_csv = kp_arg_str(args, "ncu-csv");
	if (!o.files.ncu_csv && !kp_arg_str(args, "trace")) {
		kp_cli_error(cli, "--ncu-csv FILE is required (the output of 'ncu --csv --page raw --print-units base'),"
				  " or --trace FILE alone for timing only");
		return KP_EXIT_USAGE;
	}
	o.files.ncu_details = kp_arg_str(args, "ncu-details");
	o.files.sass = kp_arg_str(args, "sass");
	o.files.ptxas = kp_arg_str(args, "ptxas");
	o.files.trace = kp_arg_str(args, "trace");
	kp_diagnose_opts_args(&o, args);
	if ((rc = kp_diagnose_tools_open(cli, args, &o)))
		return rc;
	rc = kp_diagnose_report(cli, &o);
	kp_diagnose_tools_close(&o);
	return rc;
}

const struct kp_cmd kp_cmd_diagnose = {
	.name = "diagnose",
	.summary = "Roofline, bottleneck class and the tools' findings for each launch in saved profiler output (offline)",
	.usage = "--ncu-csv FILE [--sass FILE] [--ptxas FILE] [--trace FILE] [--gpu-model KEY] [--json]",
	.description = "Reads what ncu, cuobjdump/nvdisasm, ptxas and the tracer wrote, joins it per kernel launch\n"
		       "and places each launch on the roofline of the GPU (measured ceilings when\n"
		       "'kernelpro hw calibrate' stored them), then runs the micro-profiling tools the\n"
		       "bottleneck class selects and lists their findings, most important first\n"
		       "(--feedback-text: the exact text the LLM gets). With --trace alone: timing and\n"
		       "launch overhead. No GPU needed. --json: docs/diagnose-json.md.",
	.flags = KP_CMD_JSON,
	.opts = diagnose_opts,
	.max_args = 0,
	.run = run_diagnose,
	.examples = "kernelpro diagnose --ncu-csv ncu_raw.csv --gpu-model h200-sxm\n"
		    "kernelpro diagnose --ncu-csv ncu_raw.csv --sass kernel.sass --ptxas ptxas.txt --all-tools\n"
		    "kernelpro diagnose --trace trace.json   # timing and launch overhead only",
};

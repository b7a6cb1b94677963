/* Prerequisites checked together: each problem said on its own line, one exit code for them all. */
#include "base/setup.h"

#include <sys/stat.h>

#include "kernelpro/device.h"
#include "llm_opts.h"
#include "prereq.h"

void kp_prereq_init(struct kp_prereq *p, struct kp_cli *cli)
{
	memset(p, 0, sizeof(*p));
	p->cli = cli;
}

void kp_prereq_llm(struct kp_prereq *p, const struct kp_args *a, const char *fallback_spec)
{
	struct kp_llm_config cfg;
	struct kp_error err = KP_ERROR_INIT;
	const char *spec = kp_arg_str(a, "llm");

	kp_llm_config_init(&cfg);
	if (spec && kp_llm_config_parse_spec(&cfg, spec, &err)) {
		kp_cli_error(p->cli, "--llm: %s", kp_error_msg(&err));
		p->usage++;
		goto out;
	}
	kp_llm_config_release(&cfg);
	if (kp_cli_llm_config(a, fallback_spec, &cfg, &err)) {
		kp_cli_error(p->cli, "%s", kp_error_msg(&err));
		p->failed++;
	} else if (!kp_cli_llm_chosen(&cfg)) {
		kp_cli_error(p->cli, "no LLM chosen: pass --llm PROVIDER:MODEL or a model name (openai:gpt-4.1, "
				     "gpt-4o, claude-sonnet-4-5; docs/llm.md), set KERNELPRO_LLM, or use --llm-config FILE");
		p->usage++;
	}
out:
	kp_llm_config_release(&cfg);
}

void kp_prereq_path(struct kp_prereq *p, const char *path, const char *what)
{
	struct stat st;
	if (!path || !stat(path, &st))
		return;
	kp_cli_error(p->cli, "cannot open %s '%s': %s", what, path, strerror(errno));
	p->failed++;
}

void kp_prereq_gpu(struct kp_prereq *p, int index, const char *why)
{
	struct kp_gpu_list gpus;
	struct kp_error err = KP_ERROR_INIT;

	if (!kp_device_query(&gpus, &err) && index < gpus.count)
		return;
	if (err.code)
		kp_cli_error(p->cli, "no usable GPU %d here: %s; %s", index, kp_error_msg(&err), why);
	else
		kp_cli_error(p->cli, "no usable GPU %d here: the driver sees %d GPU%s; %s", index, gpus.count,
			     gpus.count == 1 ? "" : "s", why);
	p->missing++;
}

int kp_prereq_done(const struct kp_prereq *p)
{
	return p->usage ? KP_EXIT_USAGE : p->missing ? KP_EXIT_MISSING : p->failed ? KP_EXIT_FAIL : 0;
}

/* kernelpro version: the version, the git revision and the build's toolkit. */
#include "base/setup.h"

#include <jansson.h>

#include "cli.h"
#include "kernelpro/json.h"

#ifndef KP_CUDA_HOME
#define KP_CUDA_HOME ""
#endif

static int run_version(struct kp_cli *cli, const struct kp_args *args)
{
	if (cli->json) {
		json_t *o = json_object();
		kp_json_set(o, "version", json_string(KP_VERSION));
		kp_json_set(o, "revision", json_string(KP_GIT_REV));
		kp_json_set(o, "cuda_home", json_string(KP_CUDA_HOME));
		kp_cli_print_json_new(cli, o);
	} else {
		fprintf(cli->out, "kernelpro %s (%s)\n", KP_VERSION, KP_GIT_REV);
	}
	return KP_EXIT_OK;
}

const struct kp_cmd kp_cmd_version = {
	.name = "version",
	.summary = "Print the version of kernelpro",
	.usage = "[--json]",
	.flags = KP_CMD_JSON,
	.max_args = 0,
	.run = run_version,
	.examples = "kernelpro version --json",
};

/* The shared tool options: opening a toolset from --tools-dir, --threshold, --thresholds and the environment. */
#include "base/setup.h"

#include "tools_cli.h"

int kp_cli_toolset_open(struct kp_cli *cli, const struct kp_args *args, struct kp_toolset **out)
{
	struct kp_toolset_opts o = {0};
	struct kp_error err = KP_ERROR_INIT;
	const struct kp_strvec *dirs = kp_arg_list(args, "tools-dir");
	const struct kp_strvec *over = kp_arg_list(args, "threshold");

	o.dirs = dirs && dirs->n ? (const char *const *)dirs->v : NULL;
	o.overrides = over && over->n ? (const char *const *)over->v : NULL;
	o.config_path = kp_arg_str(args, "thresholds");
	o.use_env = 1;
	/* Every failure here comes from what the command line named: a directory, a file, an override. */
	if (kp_toolset_open(out, &o, &err)) {
		kp_cli_error(cli, "%s", kp_error_msg(&err));
		return KP_EXIT_USAGE;
	}
	return 0;
}

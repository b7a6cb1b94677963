/* The shared tool options: opening a toolset from --tools-dir, --threshold, --thresholds and the environment. */
#include "base/setup.h"

#include "kernelpro/fs.h"
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
	/* A directory that is not there is exit 1, as a missing path is in every command (docs/cli.md). */
	for (size_t i = 0; dirs && i < dirs->n; i++)
		if (!kp_path_is_dir(dirs->v[i])) {
			kp_cli_error(cli, "tools directory '%s': %s", dirs->v[i],
				     kp_path_exists(dirs->v[i]) ? "not a directory" : "no such directory");
			return KP_EXIT_FAIL;
		}
	if (o.config_path && !kp_path_exists(o.config_path)) {
		kp_cli_error(cli, "--thresholds '%s': no such file", o.config_path);
		return KP_EXIT_FAIL;
	}
	/* The rest comes from values the command line gave: an override, a thresholds file's lines. */
	if (kp_toolset_open(out, &o, &err)) {
		kp_cli_error(cli, "%s", kp_error_msg(&err));
		return KP_EXIT_USAGE;
	}
	return 0;
}

const char *const kp_cli_tool_class_names[KP_CLI_TOOL_NCLASSES] = {"unknown", "compute", "memory", "latency",
                                                                 "mixed"};

json_t *kp_cli_tool_sources_json(unsigned sources)
{
	static const char *const names[] = {"ncu", "sass", "ptxas", "trace"};
	json_t *a = json_array();
	for (size_t i = 0; i < KP_ARRAY_SIZE(names); i++)
		if (sources & (1u << i))
			json_array_append_new(a, json_string(names[i]));
	return a;
}

/* `kernelpro eval --explain-checks`: every anti-cheat and correctness check, what it refuses and why. */
#include "base/setup.h"

#include "evalopts.h"
#include "kernelpro/json.h"

int kp_cli_explain_checks(struct kp_cli *cli)
{
	size_t n;
	const struct kp_check_info *c = kp_checks(&n);
	if (cli->json) {
		json_t *a = json_array();
		for (size_t i = 0; i < n; i++) {
			json_t *o = json_object();
			kp_json_set(o, "id", json_string(c[i].id));
			kp_json_set(o, "stage", json_string(c[i].stage == KP_CHECK_STATIC ? "static" : "dynamic"));
			kp_json_set(o, "severity", json_string(kp_check_severity_name(c[i].severity)));
			kp_json_set(o, "applies", json_string(c[i].applies == KP_APPLIES_BOTH ? "both"
							      : c[i].applies == KP_APPLIES_KERNELBENCH ? "kernelbench"
												       : "native"));
			kp_json_set(o, "title", json_string(c[i].title));
			kp_json_set(o, "explain", json_string(c[i].explain));
			json_array_append_new(a, o);
		}
		kp_cli_print_json(cli, a);
		json_decref(a);
		return KP_EXIT_OK;
	}
	for (size_t i = 0; i < n; i++) {
		const char *applies = c[i].applies == KP_APPLIES_BOTH ? "all tasks"
				      : c[i].applies == KP_APPLIES_KERNELBENCH ? "KernelBench tasks"
									       : "native tasks";
		fprintf(cli->out, "%s%s%s  (%s, %s, %s)\n  %s\n", kp_cli_color(cli, "bold"), c[i].id, kp_cli_reset(cli),
			c[i].stage == KP_CHECK_STATIC ? "static" : "dynamic", kp_check_severity_name(c[i].severity), applies,
			c[i].title);
		/* Wrap the explanation at ~96 columns, indented. */
		const char *p = c[i].explain;
		while (*p) {
			size_t len = strlen(p), cut = len;
			if (len > 94) {
				cut = 94;
				while (cut > 0 && p[cut] != ' ')
					cut--;
				if (!cut)
					cut = 94;
			}
			fprintf(cli->out, "    %.*s\n", (int)cut, p);
			p += cut;
			while (*p == ' ')
				p++;
		}
		fputc('\n', cli->out);
	}
	fprintf(cli->out, "Refusing checks make the verdict cheat_suspected, failing checks make it wrong_output; "
			  "warnings are\nrecorded in the verdict's flags. Switch one off with --allow ID.\n");
	return KP_EXIT_OK;
}

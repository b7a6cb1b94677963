/* Option parsing from the commands' declarative tables; help and usage text come from the same tables. */
#include "base/setup.h"

#include "cli.h"
#include "kernelpro/buf.h"
#include "kernelpro/str.h"

/* Options every command accepts, after its own (and --json for KP_CMD_JSON commands). */
static const struct kp_opt json_opt[] = {
	{"json", 0, KP_OPT_FLAG, NULL, "print machine-readable JSON on stdout", NULL},
	KP_OPT_TABLE_END,
};

static const struct kp_opt global_opts[] = {
	{"verbose", 'v', KP_OPT_FLAG, NULL, "say more (repeat for debug output)", NULL},
	{"quiet", 'q', KP_OPT_FLAG, NULL, "only errors", NULL},
	{"color", 0, KP_OPT_CHOICE, "auto|never|always", "colored output", NULL},
	{"help", 'h', KP_OPT_FLAG, NULL, "show this help", NULL},
	KP_OPT_TABLE_END,
};

static size_t table_len(const struct kp_opt *t)
{
	size_t n = 0;
	while (t && t[n].type != KP_OPT_END)
		n++;
	return n;
}

/* The combined table for a command: its own options, --json if flagged, then the globals. */
static size_t opt_count(const struct kp_cmd *cmd)
{
	return table_len(cmd->opts) + ((cmd->flags & KP_CMD_JSON) ? 1 : 0) + table_len(global_opts);
}

static const struct kp_opt *opt_at(const struct kp_cmd *cmd, size_t i)
{
	size_t own = table_len(cmd->opts);
	if (i < own)
		return &cmd->opts[i];
	i -= own;
	if (cmd->flags & KP_CMD_JSON) {
		if (i == 0)
			return &json_opt[0];
		i--;
	}
	return &global_opts[i];
}

static long opt_index(const struct kp_args *a, const char *name)
{
	size_t n = opt_count(a->cmd);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(opt_at(a->cmd, i)->name, name))
			return (long)i;
	return -1;
}

static long opt_index_checked(const struct kp_args *a, const char *name)
{
	long i = opt_index(a, name);
	if (i < 0)
		KP_BUG("command '%s' has no option '--%s'", a->cmd->name, name);
	return i;
}

int kp_arg_flag(const struct kp_args *a, const char *name)
{
	return a->given[opt_index_checked(a, name)] > 0;
}

int kp_arg_given(const struct kp_args *a, const char *name)
{
	return a->given[opt_index_checked(a, name)];
}

const char *kp_arg_str(const struct kp_args *a, const char *name)
{
	return a->values[opt_index_checked(a, name)];
}

long kp_arg_int(const struct kp_args *a, const char *name, long def)
{
	long v;
	const char *s = kp_arg_str(a, name);
	return s && !kp_parse_long(s, &v) ? v : def;
}

double kp_arg_num(const struct kp_args *a, const char *name, double def)
{
	double v;
	const char *s = kp_arg_str(a, name);
	return s && !kp_parse_double(s, &v) ? v : def;
}

const struct kp_strvec *kp_arg_list(const struct kp_args *a, const char *name)
{
	return &a->lists[opt_index_checked(a, name)];
}

size_t kp_arg_npos(const struct kp_args *a)
{
	return a->pos.n;
}

const char *kp_arg_pos(const struct kp_args *a, size_t i)
{
	return i < a->pos.n ? a->pos.v[i] : NULL;
}

void kp_args_release(struct kp_args *a)
{
	if (a->lists && a->cmd) {
		size_t n = opt_count(a->cmd);
		for (size_t i = 0; i < n; i++)
			kp_strvec_release(&a->lists[i]);
	}
	free(a->lists);
	free(a->values);
	free(a->given);
	kp_strvec_release(&a->pos);
	memset(a, 0, sizeof(*a));
}

static int choice_ok(const char *choices, const char *v)
{
	size_t n = strlen(v);
	const char *p = choices;
	while (p && *p) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (len == n && !strncmp(p, v, n))
			return 1;
		p = bar ? bar + 1 : NULL;
	}
	return 0;
}

static int usage_error(const struct kp_cmd *cmd, const char *prefix, FILE *err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int usage_error(const struct kp_cmd *cmd, const char *prefix, FILE *err, const char *fmt, ...)
{
	va_list ap;
	fprintf(err, "%s: ", prefix);
	va_start(ap, fmt);
	vfprintf(err, fmt, ap);
	va_end(ap);
	fputc('\n', err);
	kp_cmd_print_usage(cmd, prefix, err);
	return KP_EXIT_USAGE;
}

static int check_value(const struct kp_cmd *cmd, const char *prefix, FILE *err, const struct kp_opt *o,
		       const char *v)
{
	long l;
	double d;
	if (o->type == KP_OPT_INT && kp_parse_long(v, &l))
		return usage_error(cmd, prefix, err, "option '--%s' expects a whole number, not '%s'", o->name, v);
	if (o->type == KP_OPT_NUM && kp_parse_double(v, &d))
		return usage_error(cmd, prefix, err, "option '--%s' expects a number, not '%s'", o->name, v);
	if (o->type == KP_OPT_CHOICE && !choice_ok(o->arg, v))
		return usage_error(cmd, prefix, err, "option '--%s' expects one of %s, not '%s'", o->name, o->arg,
				   v);
	return 0;
}

int kp_args_parse(struct kp_args *a, const struct kp_cmd *cmd, int argc, char **argv, FILE *err, FILE *out)
{
	size_t n = opt_count(cmd);
	char prefix[128];
	int only_pos = 0;

	memset(a, 0, sizeof(*a));
	a->cmd = cmd;
	a->values = kp_xcalloc(n, sizeof(*a->values));
	a->given = kp_xcalloc(n, sizeof(*a->given));
	a->lists = kp_xcalloc(n, sizeof(*a->lists));
	snprintf(prefix, sizeof(prefix), "kernelpro %s", argc > 0 ? argv[0] : cmd->name);
	for (size_t i = 0; i < n; i++)
		a->values[i] = opt_at(cmd, i)->def;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const struct kp_opt *o = NULL;
		const char *val = NULL;
		size_t idx = 0;

		if (only_pos || arg[0] != '-' || !strcmp(arg, "-")) {
			kp_strvec_push(&a->pos, arg);
			if (cmd->flags & KP_CMD_STOP_AT_ARG)
				only_pos = 1;
			continue;
		}
		if (!strcmp(arg, "--")) {
			only_pos = 1;
			continue;
		}
		if (arg[1] == '-') {
			const char *name = arg + 2;
			const char *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			for (idx = 0; idx < n; idx++) {
				const struct kp_opt *c = opt_at(cmd, idx);
				if (strlen(c->name) == len && !strncmp(c->name, name, len)) {
					o = c;
					break;
				}
			}
			if (!o)
				return usage_error(cmd, prefix, err, "unknown option '--%.*s'", (int)len, name);
			if (eq)
				val = eq + 1;
		} else {
			if (arg[2] != '\0')
				return usage_error(cmd, prefix, err, "unknown option '%s'", arg);
			for (idx = 0; idx < n; idx++) {
				const struct kp_opt *c = opt_at(cmd, idx);
				if (c->short_name && c->short_name == arg[1]) {
					o = c;
					break;
				}
			}
			if (!o)
				return usage_error(cmd, prefix, err, "unknown option '%s'", arg);
		}

		if (o->type == KP_OPT_FLAG) {
			if (val)
				return usage_error(cmd, prefix, err, "option '--%s' takes no value", o->name);
			if (!strcmp(o->name, "help")) {
				kp_cmd_print_help(cmd, prefix, out);
				return -1;
			}
			a->given[idx]++;
			continue;
		}
		if (!val) {
			if (i + 1 >= argc)
				return usage_error(cmd, prefix, err, "option '--%s' needs a value (%s)", o->name,
						   o->arg ? o->arg : "VALUE");
			val = argv[++i];
		}
		if (check_value(cmd, prefix, err, o, val))
			return KP_EXIT_USAGE;
		a->values[idx] = val;
		a->given[idx]++;
		if (o->type == KP_OPT_LIST)
			kp_strvec_push(&a->lists[idx], val);
	}

	if ((int)a->pos.n < cmd->min_args)
		return usage_error(cmd, prefix, err, "missing argument%s", cmd->min_args - (int)a->pos.n > 1 ? "s" : "");
	if (cmd->max_args >= 0 && (int)a->pos.n > cmd->max_args)
		return usage_error(cmd, prefix, err, "unexpected argument '%s'", a->pos.v[cmd->max_args]);
	return 0;
}

void kp_cmd_print_usage(const struct kp_cmd *cmd, const char *prefix, FILE *fp)
{
	fprintf(fp, "usage: %s %s\n", prefix, cmd->usage ? cmd->usage : "[options]");
}

static void print_opt(const struct kp_opt *o, FILE *fp)
{
	struct kp_buf left = KP_BUF_INIT;
	if (o->short_name)
		kp_buf_addf(&left, "-%c, ", o->short_name);
	else
		kp_buf_adds(&left, "    ");
	kp_buf_addf(&left, "--%s", o->name);
	if (o->type != KP_OPT_FLAG)
		kp_buf_addf(&left, " %s", o->type == KP_OPT_CHOICE ? "WHICH" : (o->arg ? o->arg : "VALUE"));
	fprintf(fp, "  %-30s %s", left.buf, o->help ? o->help : "");
	if (o->type == KP_OPT_CHOICE)
		fprintf(fp, " (%s)", o->arg);
	if (o->type == KP_OPT_LIST)
		fprintf(fp, " (repeatable)");
	if (o->def)
		fprintf(fp, " [default: %s]", o->def);
	fputc('\n', fp);
	kp_buf_release(&left);
}

void kp_cmd_print_help(const struct kp_cmd *cmd, const char *prefix, FILE *fp)
{
	kp_cmd_print_usage(cmd, prefix, fp);
	fprintf(fp, "\n%s.\n", cmd->summary);
	if (cmd->description)
		fprintf(fp, "\n%s\n", cmd->description);
	if (cmd->flags & KP_CMD_NEEDS_GPU)
		fprintf(fp, "\nNeeds a CUDA GPU.\n");
	if (cmd->subs) {
		fprintf(fp, "\ncommands:\n");
		for (const struct kp_cmd *const *s = cmd->subs; *s; s++)
			fprintf(fp, "  %-14s %s\n", (*s)->name, (*s)->summary);
	}
	fprintf(fp, "\noptions:\n");
	for (size_t i = 0, n = opt_count(cmd); i < n; i++)
		print_opt(opt_at(cmd, i), fp);
}

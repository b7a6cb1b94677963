/* Option parsing from the commands' declarative tables; help and usage text come from the same tables. */
#include "base/setup.h"

#include <math.h>

#include "cli.h"
#include "kernelpro/buf.h"
#include "kernelpro/str.h"
#include "suggest.h"

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
	{"help-all", 0, KP_OPT_FLAG, NULL, "show every option, not only the common ones", NULL},
	KP_OPT_TABLE_END,
};

static void print_help(const struct kp_cmd *cmd, const char *prefix, FILE *fp, int all);

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

int kp_args_has(const struct kp_args *a, const char *name)
{
	return opt_index(a, name) >= 0;
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

/* The values an INT or NUM option allows: what follows ':' in its metavar ("N:1..64"), or NULL. */
static const char *opt_range(const struct kp_opt *o)
{
	const char *colon = NULL;
	if ((o->type == KP_OPT_INT || o->type == KP_OPT_NUM) && o->arg)
		colon = strchr(o->arg, ':');
	return colon ? colon + 1 : NULL;
}

/* The metavar shown in help and messages: "N" for "N:1..64". */
static int metavar_len(const struct kp_opt *o)
{
	const char *r = opt_range(o);
	return r ? (int)(r - 1 - o->arg) : (int)strlen(o->arg);
}

/* Whether d lies in range r ("LO..HI" with either end optional, or ">LO"); a malformed range is a bug. */
static int in_range(const struct kp_opt *o, const char *r, double d)
{
	const char *dots = strstr(r, "..");
	struct kp_buf lo = KP_BUF_INIT;
	double a = -INFINITY, b = INFINITY;
	int strict = r[0] == '>', ok;

	if (strict)
		kp_buf_adds(&lo, r + 1);
	else if (dots)
		kp_buf_add(&lo, r, (size_t)(dots - r));
	if ((lo.len && kp_parse_double(lo.buf, &a)) || (!strict && !dots) ||
	    (dots && dots[2] && kp_parse_double(dots + 2, &b)))
		KP_BUG("option '--%s': malformed range '%s'", o->name, r);
	kp_buf_release(&lo);
	ok = strict ? d > a : d >= a && d <= b;
	return ok;
}

/* "1..64", "at least 1", "at most 2", "more than 0": the range as a message says it. */
static void range_words(const char *r, char *out, size_t n)
{
	const char *dots = strstr(r, "..");
	if (r[0] == '>')
		snprintf(out, n, "more than %s", r + 1);
	else if (dots == r)
		snprintf(out, n, "at most %s", dots + 2);
	else if (dots && !dots[2])
		snprintf(out, n, "at least %.*s", (int)(dots - r), r);
	else
		snprintf(out, n, "%s", r);
}

static int check_value(const struct kp_cmd *cmd, const char *prefix, FILE *err, const struct kp_opt *o,
		       const char *v)
{
	const char *r = opt_range(o);
	char words[96];
	long l = 0;
	double d = 0;
	if (o->type == KP_OPT_INT && kp_parse_long(v, &l))
		return usage_error(cmd, prefix, err, "option '--%s' expects a whole number, not '%s'", o->name, v);
	if (o->type == KP_OPT_NUM && (kp_parse_double(v, &d) || !isfinite(d)))
		return usage_error(cmd, prefix, err, "option '--%s' expects a number, not '%s'", o->name, v);
	if (o->type == KP_OPT_CHOICE && !choice_ok(o->arg, v))
		return usage_error(cmd, prefix, err, "option '--%s' expects one of %s, not '%s'", o->name, o->arg,
				   v);
	if (r && !in_range(o, r, o->type == KP_OPT_INT ? (double)l : d)) {
		range_words(r, words, sizeof(words));
		return usage_error(cmd, prefix, err, "option '--%s' must be %s, not '%s'", o->name, words, v);
	}
	return 0;
}

/* Takes the option's value: the rest of the word, else the next argument. Returns the usage error, or 0. */
static int take_value(const struct kp_cmd *cmd, const char *prefix, FILE *err, const struct kp_opt *o,
		      const char *rest, int argc, char **argv, int *i, const char **val)
{
	if (rest && *rest) {
		*val = rest;
		return 0;
	}
	if (*i + 1 >= argc)
		return usage_error(cmd, prefix, err, "option '--%s' needs a value (%.*s)", o->name,
				   o->arg ? metavar_len(o) : 5, o->arg ? o->arg : "VALUE");
	*val = argv[++*i];
	return 0;
}

static long find_short(const struct kp_cmd *cmd, char c)
{
	for (size_t idx = 0, n = opt_count(cmd); idx < n; idx++)
		if (opt_at(cmd, idx)->short_name == c)
			return (long)idx;
	return -1;
}

/* Records one occurrence of option idx with its value (NULL for a flag). Returns -1 for --help, else 0. */
static int record(struct kp_args *a, const struct kp_cmd *cmd, const char *prefix, size_t idx,
		  const char *val, FILE *out)
{
	const struct kp_opt *o = opt_at(cmd, idx);
	if (o->type == KP_OPT_FLAG && (!strcmp(o->name, "help") || !strcmp(o->name, "help-all"))) {
		print_help(cmd, prefix, out, !strcmp(o->name, "help-all"));
		return -1;
	}
	a->given[idx]++;
	if (o->type == KP_OPT_FLAG)
		return 0;
	a->values[idx] = val;
	if (o->type == KP_OPT_LIST)
		kp_strvec_push(&a->lists[idx], val);
	return 0;
}

/* The option an old spelling stands for, after a warning that names the new one. */
static size_t alias_target(const struct kp_cmd *cmd, const char *prefix, const struct kp_opt *alias, FILE *err)
{
	for (size_t idx = 0, n = opt_count(cmd); idx < n; idx++) {
		const struct kp_opt *o = opt_at(cmd, idx);
		if (o->type != KP_OPT_ALIAS && !strcmp(o->name, alias->arg)) {
			fprintf(err, "%s: warning: '--%s' is now '--%s'%s%s%s; the old spelling will go\n", prefix,
				alias->name, o->name, alias->help ? " (" : "", alias->help ? alias->help : "",
				alias->help ? ")" : "");
			return idx;
		}
	}
	KP_BUG("command '%s': alias '--%s' of no option '--%s'", cmd->name, alias->name, alias->arg);
}

/* "--name", "--name=VALUE" or "--name VALUE". */
static int parse_long_opt(struct kp_args *a, const struct kp_cmd *cmd, const char *prefix, int argc,
			  char **argv, int *i, FILE *err, FILE *out)
{
	const char *name = argv[*i] + 2, *eq = strchr(name, '='), *val = NULL;
	size_t len = eq ? (size_t)(eq - name) : strlen(name), n = opt_count(cmd), idx;
	const struct kp_opt *o = NULL;
	int rc;

	for (idx = 0; idx < n; idx++)
		if (strlen(opt_at(cmd, idx)->name) == len && !strncmp(opt_at(cmd, idx)->name, name, len))
			break;
	if (idx == n) {
		struct kp_suggest sg;
		kp_suggest_init(&sg, name, len);
		for (idx = 0; idx < n; idx++)
			if (opt_at(cmd, idx)->type != KP_OPT_ALIAS)
				kp_suggest_offer(&sg, opt_at(cmd, idx)->name);
		if (sg.best)
			return usage_error(cmd, prefix, err, "unknown option '--%.*s'; did you mean '--%s'?", (int)len,
					   name, sg.best);
		return usage_error(cmd, prefix, err, "unknown option '--%.*s'", (int)len, name);
	}
	o = opt_at(cmd, idx);
	if (o->type == KP_OPT_ALIAS)
		o = opt_at(cmd, idx = alias_target(cmd, prefix, o, err));
	if (o->type == KP_OPT_FLAG) {
		if (eq)
			return usage_error(cmd, prefix, err, "option '--%s' takes no value", o->name);
	} else {
		if (eq)
			val = eq + 1;
		else if ((rc = take_value(cmd, prefix, err, o, NULL, argc, argv, i, &val)))
			return rc;
		if ((rc = check_value(cmd, prefix, err, o, val)))
			return rc;
	}
	return record(a, cmd, prefix, idx, val, out);
}

/* "-v", "-vv", "-qv" (flags bundle), "-j4" or "-j 4" (a value: the rest of the word, or the next one). */
static int parse_short_opts(struct kp_args *a, const struct kp_cmd *cmd, const char *prefix, int argc,
			    char **argv, int *i, FILE *err, FILE *out)
{
	const char *word = argv[*i];
	for (const char *p = word + 1; *p; p++) {
		long idx = find_short(cmd, *p);
		const char *val = NULL;
		int rc;
		if (idx < 0 && p == word + 1)
			return usage_error(cmd, prefix, err, "unknown option '%s'", word);
		if (idx < 0)
			return usage_error(cmd, prefix, err, "unknown option '-%c' in '%s'", *p, word);
		if (opt_at(cmd, (size_t)idx)->type != KP_OPT_FLAG) {
			const struct kp_opt *o = opt_at(cmd, (size_t)idx);
			if ((rc = take_value(cmd, prefix, err, o, p + 1, argc, argv, i, &val)) ||
			    (rc = check_value(cmd, prefix, err, o, val)))
				return rc;
			return record(a, cmd, prefix, (size_t)idx, val, out);
		}
		if ((rc = record(a, cmd, prefix, (size_t)idx, NULL, out)))
			return rc;
	}
	return 0;
}

int kp_args_parse(struct kp_args *a, const struct kp_cmd *cmd, const char *prefix, int argc, char **argv,
		  FILE *err, FILE *out)
{
	size_t n = opt_count(cmd);
	int only_pos = 0;

	memset(a, 0, sizeof(*a));
	a->cmd = cmd;
	a->values = kp_xcalloc(n, sizeof(*a->values));
	a->given = kp_xcalloc(n, sizeof(*a->given));
	a->lists = kp_xcalloc(n, sizeof(*a->lists));
	for (size_t i = 0; i < n; i++)
		a->values[i] = opt_at(cmd, i)->def;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		int rc;

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
		rc = arg[1] == '-' ? parse_long_opt(a, cmd, prefix, argc, argv, &i, err, out)
				   : parse_short_opts(a, cmd, prefix, argc, argv, &i, err, out);
		if (rc)
			return rc;
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
	if (o->type == KP_OPT_CHOICE)
		kp_buf_adds(&left, " WHICH");
	else if (o->type != KP_OPT_FLAG)
		kp_buf_addf(&left, " %.*s", o->arg ? metavar_len(o) : 5, o->arg ? o->arg : "VALUE");
	fprintf(fp, "  %-30s %s", left.buf, o->help ? o->help : "");
	if (o->type == KP_OPT_CHOICE)
		fprintf(fp, " (%s)", o->arg);
	if (opt_range(o)) {
		char words[96];
		range_words(opt_range(o), words, sizeof(words));
		fprintf(fp, " (%s)", words);
	}
	if (o->type == KP_OPT_LIST)
		fprintf(fp, " (repeatable)");
	if (o->def)
		fprintf(fp, " [default: %s]", o->def);
	fputc('\n', fp);
	kp_buf_release(&left);
}

/* Whether --help (not --help-all) lists option i: the command's brief ones, --json and the globals. */
static int in_brief(const struct kp_cmd *cmd, size_t i)
{
	if (!cmd->brief || i >= table_len(cmd->opts))
		return 1;
	for (const char *const *b = cmd->brief; *b; b++)
		if (!strcmp(*b, cmd->opts[i].name))
			return 1;
	return 0;
}

/* "  kernelpro eval ...   # why": each line of the command's examples, indented. */
static void print_examples(const char *ex, FILE *fp)
{
	fprintf(fp, "\nexamples:\n");
	while (*ex) {
		size_t n = strcspn(ex, "\n");
		fprintf(fp, "  %.*s\n", (int)n, ex);
		ex += n + (ex[n] == '\n');
	}
}

void kp_cmd_print_help(const struct kp_cmd *cmd, const char *prefix, FILE *fp)
{
	print_help(cmd, prefix, fp, 0);
}

void kp_cmd_print_help_all(const struct kp_cmd *cmd, const char *prefix, FILE *fp)
{
	print_help(cmd, prefix, fp, 1);
}

static void print_help(const struct kp_cmd *cmd, const char *prefix, FILE *fp, int all)
{
	size_t hidden = 0;
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
	for (size_t i = 0, n = opt_count(cmd); i < n; i++) {
		const struct kp_opt *o = opt_at(cmd, i);
		if (o->type == KP_OPT_ALIAS || (!cmd->brief && !strcmp(o->name, "help-all")))
			continue;
		if (all || in_brief(cmd, i))
			print_opt(o, fp);
		else
			hidden++;
	}
	if (hidden)
		fprintf(fp, "  ... and %zu more: '%s --help-all' lists every option%s%s\n", hidden, prefix,
			cmd->more ? "; " : "", cmd->more ? cmd->more : "");
	if (cmd->examples)
		print_examples(cmd->examples, fp);
}

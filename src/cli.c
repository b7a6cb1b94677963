/* The CLI driver: global options, command lookup, shared setup and teardown, error reporting. */
#include "base/setup.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include "cli.h"
#include "kernelpro/buf.h"
#include "kernelpro/hw.h"
#include "kernelpro/json.h"
#include "kernelpro/secret.h"
#include "commands.h"
#include "suggest.h"

#define KP__CMD_PTR(name) &kp_cmd_##name,
static const struct kp_cmd *const command_table[] = {KP_COMMANDS(KP__CMD_PTR) NULL};
#undef KP__CMD_PTR

const struct kp_cmd *const *kp_commands(void)
{
	return command_table;
}

const struct kp_cmd *kp_command_find(const char *name)
{
	for (const struct kp_cmd *const *c = command_table; *c; c++)
		if (!strcmp((*c)->name, name))
			return *c;
	return NULL;
}

/* "; did you mean 'optimize'?" for a mistyped command or sub-command, else "". */
static const char *did_you_mean(const char *word, const struct kp_cmd *const *cmds, int with_help, char *buf,
				size_t n)
{
	struct kp_suggest sg;
	kp_suggest_init(&sg, word, strlen(word));
	for (const struct kp_cmd *const *c = cmds; c && *c; c++)
		if (!((*c)->flags & KP_CMD_HIDDEN))
			kp_suggest_offer(&sg, (*c)->name);
	if (with_help)
		kp_suggest_offer(&sg, "help");
	if (!sg.best)
		return "";
	snprintf(buf, n, "; did you mean '%s'?", sg.best);
	return buf;
}

static void cli_vmsg(struct kp_cli *cli, const char *what, const char *style, const char *fmt, va_list ap)
{
	kp_progress_clear(&cli->progress);
	struct kp_buf msg = KP_BUF_INIT;
	fprintf(cli->err, "kernelpro: %s%s%s: ", kp_cli_color(cli, style), what, kp_cli_reset(cli));
	kp_buf_vaddf(&msg, fmt, ap);
	kp_secret_scrub_buf(&msg); /* an error quoting a child's output quotes no key */
	fputs(msg.buf, cli->err);
	kp_buf_release(&msg);
	fputc('\n', cli->err);
	fflush(cli->err);
}

void kp_cli_error(struct kp_cli *cli, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cli_vmsg(cli, "error", "bad", fmt, ap);
	va_end(ap);
}

void kp_cli_warn(struct kp_cli *cli, const char *fmt, ...)
{
	va_list ap;
	if (cli->verbosity < 0)
		return;
	va_start(ap, fmt);
	cli_vmsg(cli, "warning", "warn", fmt, ap);
	va_end(ap);
}

int kp_exit_for(int code)
{
	if (code == 0)
		return KP_EXIT_OK;
	if (code == KP_ENOTOOL || code == KP_ENODEV)
		return KP_EXIT_MISSING;
	return KP_EXIT_FAIL;
}

int kp_cli_fail(struct kp_cli *cli, const struct kp_error *err)
{
	kp_cli_error(cli, "%s", kp_error_msg(err));
	return kp_exit_for(err->code ? err->code : KP_EIO);
}

void kp_cli_print_json(struct kp_cli *cli, const json_t *v)
{
	struct kp_buf b = KP_BUF_INIT;
	kp_json_dump_buf(v, &b, 0);
	fprintf(cli->out, "%s\n", b.buf);
	kp_buf_release(&b);
}

void kp_cli_print_json_new(struct kp_cli *cli, json_t *v)
{
	kp_cli_print_json(cli, v);
	json_decref(v);
}

const char *kp_cli_color(const struct kp_cli *cli, const char *style)
{
	if (!cli->color)
		return "";
	if (!strcmp(style, "ok"))
		return "\033[32m";
	if (!strcmp(style, "warn"))
		return "\033[33m";
	if (!strcmp(style, "bad"))
		return "\033[31m";
	if (!strcmp(style, "dim"))
		return "\033[2m";
	if (!strcmp(style, "bold"))
		return "\033[1m";
	return "";
}

const char *kp_cli_reset(const struct kp_cli *cli)
{
	return cli->color ? "\033[0m" : "";
}

static int want_color(const char *mode, FILE *fp)
{
	const char *term = getenv("TERM");
	if (mode && !strcmp(mode, "always"))
		return 1;
	if (mode && !strcmp(mode, "never"))
		return 0;
	if (getenv("NO_COLOR") && *getenv("NO_COLOR"))
		return 0;
	return isatty(fileno(fp)) && term && strcmp(term, "dumb") != 0;
}

/*
 * Whether fp is a pipe whose reader has gone (`kernelpro show RUN | head -1`): a write end with no
 * reader polls as an error. The reader took what it wanted; that is no failure of ours.
 */
static int reader_gone(FILE *fp)
{
	struct pollfd p = {.fd = fileno(fp), .events = POLLOUT};
	return errno == EPIPE || (poll(&p, 1, 0) == 1 && (p.revents & POLLERR));
}

static void print_main_usage(FILE *fp)
{
	fprintf(fp, "usage: kernelpro [-v|-q] [--color=auto|never|always] [--version] [--help] COMMAND [ARGS]\n");
}

static void print_main_help(FILE *fp)
{
	print_main_usage(fp);
	fprintf(fp, "\nkernelpro makes CUDA kernels faster the way an expert does: it measures,\n"
		    "classifies the bottleneck, profiles what matters, diagnoses, and searches\n"
		    "over LLM-written versions.\n\ncommands:\n");
	for (const struct kp_cmd *const *c = command_table; *c; c++)
		if (!((*c)->flags & KP_CMD_HIDDEN))
			fprintf(fp, "  %-12s %s\n", (*c)->name, (*c)->summary);
	fprintf(fp, "\nexamples:\n"
		    "  kernelpro doctor                                      # what this machine has, and how to fix the rest\n"
		    "  kernelpro optimize examples/native/gelu --llm openai:gpt-4.1 --evals 10\n"
		    "  kernelpro bench KernelBench/level1 --llm claude-sonnet-4-5 --time 20m\n"
		    "  kernelpro eval examples/native/matmul examples/native/matmul/candidates/reg_tile.cu\n");
	fprintf(fp, "\n'kernelpro COMMAND --help' explains one command.\n"
		    "exit codes: 0 ok, 1 the job failed, 2 usage error, 3 a required tool or device is missing\n");
}

static void apply_verbosity(struct kp_cli *cli, int verbose, int quiet)
{
	if (quiet)
		cli->verbosity = -1;
	else if (verbose && verbose > cli->verbosity) /* none given after the command keeps what came before */
		cli->verbosity = verbose;
	kp_log_set_level(cli->verbosity < 0 ? KP_LOG_ERROR
			 : cli->verbosity == 0 ? KP_LOG_WARN
			 : cli->verbosity == 1 ? KP_LOG_INFO
			 : cli->verbosity == 2 ? KP_LOG_DEBUG
					       : KP_LOG_TRACE);
}

/* `kernelpro help [COMMAND [SUBCOMMAND]]`: the help `COMMAND [SUBCOMMAND] --help` prints. */
static int help_command(int argc, char **argv, FILE *out, FILE *err)
{
	const struct kp_cmd *cmd;
	char prefix[128];
	int n;

	if (argc == 0) {
		print_main_help(out);
		return KP_EXIT_OK;
	}
	cmd = kp_command_find(argv[0]);
	if (!cmd) {
		char dym[96];
		fprintf(err, "kernelpro help: unknown command '%s'%s; 'kernelpro help' lists them\n", argv[0],
			did_you_mean(argv[0], command_table, 0, dym, sizeof(dym)));
		return KP_EXIT_USAGE;
	}
	n = snprintf(prefix, sizeof(prefix), "kernelpro %s", cmd->name);
	for (int k = 1; k < argc; k++) {
		const struct kp_cmd *sub = NULL;
		for (const struct kp_cmd *const *s = cmd->subs; s && *s && !sub; s++)
			if (!strcmp((*s)->name, argv[k]))
				sub = *s;
		if (!sub) {
			char dym[96];
			fprintf(err, "kernelpro help: '%s' has no sub-command '%s'%s\n", prefix, argv[k],
				did_you_mean(argv[k], cmd->subs, 0, dym, sizeof(dym)));
			kp_cmd_print_usage(cmd, prefix, err);
			return KP_EXIT_USAGE;
		}
		cmd = sub;
		n += snprintf(prefix + n, sizeof(prefix) - (size_t)n, " %s", cmd->name);
		if (n >= (int)sizeof(prefix))
			n = (int)sizeof(prefix) - 1;
	}
	kp_cmd_print_help(cmd, prefix, out);
	return KP_EXIT_OK;
}

/*
 * A GPU model named on the command line (--gpu-model, --hw) is one of the table's, found before the
 * command runs: an unknown key is a usage error (exit 2) in every command, as an unknown choice is.
 */
static int check_gpu_model(const struct kp_args *a, const char *prefix, FILE *err)
{
	static const char *const names[] = {"gpu-model", "hw"};
	for (size_t i = 0; i < KP_ARRAY_SIZE(names); i++) {
		const char *key = kp_args_has(a, names[i]) ? kp_arg_str(a, names[i]) : NULL;
		if (key && *key && !kp_hw_spec_find(key)) {
			fprintf(err, "%s: option '--%s': unknown GPU '%s'; 'kernelpro hw show --list' lists the keys\n",
				prefix, names[i], key);
			kp_cmd_print_usage(a->cmd, prefix, err);
			return KP_EXIT_USAGE;
		}
	}
	return 0;
}

int kp_cmd_dispatch(struct kp_cli *cli, const struct kp_cmd *cmd, const char *prefix, int argc, char **argv)
{
	struct kp_args args;
	char sub_prefix[128];
	int rc;

	/* A command with sub-commands and its own run() (`kernelpro energy TASK CANDIDATE` beside
	 * `kernelpro energy calibrate`) runs itself when the first word names no sub-command. */
	if (cmd->subs) {
		const char *name = argc > 1 ? argv[1] : NULL;
		if (!name || !strcmp(name, "--help") || !strcmp(name, "-h")) {
			kp_cmd_print_help(cmd, prefix, name ? cli->out : cli->err);
			return name ? KP_EXIT_OK : KP_EXIT_USAGE;
		}
		for (const struct kp_cmd *const *s = cmd->subs; *s; s++) {
			if (!strcmp((*s)->name, name)) {
				snprintf(sub_prefix, sizeof(sub_prefix), "%s %s", prefix, name);
				return kp_cmd_dispatch(cli, *s, sub_prefix, argc - 1, argv + 1);
			}
		}
		if (!cmd->run) {
			char dym[96];
			fprintf(cli->err, "%s: unknown command '%s'%s\n", prefix, name,
				did_you_mean(name, cmd->subs, 0, dym, sizeof(dym)));
			kp_cmd_print_usage(cmd, prefix, cli->err);
			return KP_EXIT_USAGE;
		}
	}

	rc = kp_args_parse(&args, cmd, prefix, argc, argv, cli->err, cli->out);
	if (rc == -1) {
		kp_args_release(&args);
		return KP_EXIT_OK;
	}
	if (!rc)
		rc = check_gpu_model(&args, prefix, cli->err);
	if (rc) {
		kp_args_release(&args);
		return rc;
	}
	if (kp_arg_given(&args, "color"))
		cli->color = want_color(kp_arg_str(&args, "color"), cli->out);
	apply_verbosity(cli, kp_arg_given(&args, "verbose"), kp_arg_flag(&args, "quiet"));
	cli->json = (cmd->flags & KP_CMD_JSON) ? kp_arg_flag(&args, "json") : 0;
	rc = cmd->run(cli, &args);
	kp_args_release(&args);
	return rc;
}

int kp_cli_main(int argc, char **argv, FILE *out, FILE *err, volatile sig_atomic_t *stop)
{
	struct kp_cli cli;
	const char *color_mode = "auto";
	const struct kp_cmd *cmd;
	int verbose = 0, quiet = 0, i, rc;

	memset(&cli, 0, sizeof(cli));
	cli.out = out;
	cli.err = err;
	cli.argv0 = argc > 0 ? argv[0] : "kernelpro";
	cli.stop = stop;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		if (a[1] == 'v' && a[strspn(a + 1, "v") + 1] == '\0')
			verbose += (int)strlen(a + 1); /* -v, -vv, -vvv */
		else if (!strcmp(a, "--verbose"))
			verbose++;
		else if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
			quiet = 1;
		else if (!strncmp(a, "--color=", 8)) {
			color_mode = a + 8;
			if (strcmp(color_mode, "auto") && strcmp(color_mode, "never") && strcmp(color_mode, "always")) {
				fprintf(err, "kernelpro: option '--color' expects one of auto|never|always, not '%s'\n",
					color_mode);
				print_main_usage(err);
				return KP_EXIT_USAGE;
			}
		} else if (!strcmp(a, "--color") && i + 1 < argc) {
			color_mode = argv[++i];
		} else if (!strcmp(a, "--version")) {
			fprintf(out, "kernelpro %s (%s)\n", KP_VERSION, KP_GIT_REV);
			return KP_EXIT_OK;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			print_main_help(out);
			return KP_EXIT_OK;
		} else {
			static const char *const globals[] = {"--verbose", "--quiet", "--color", "--version", "--help"};
			struct kp_suggest sg;
			kp_suggest_init(&sg, a, strcspn(a, "="));
			for (size_t k = 0; k < KP_ARRAY_SIZE(globals); k++)
				kp_suggest_offer(&sg, globals[k]);
			if (!sg.best && kp_command_find(a + strspn(a, "-")))
				fprintf(err, "kernelpro: unknown option '%s'; did you mean the command '%s'?\n", a,
					a + strspn(a, "-"));
			else if (sg.best)
				fprintf(err, "kernelpro: unknown option '%s'; did you mean '%s'?\n", a, sg.best);
			else
				fprintf(err, "kernelpro: unknown option '%s'\n", a);
			print_main_usage(err);
			return KP_EXIT_USAGE;
		}
	}
	cli.color = want_color(color_mode, out);
	kp_progress_init(&cli.progress, err, 1);
	apply_verbosity(&cli, verbose, quiet);
	kp_log_set_sink(kp_log_stderr_sink, err);
	kp_progress_set_global(&cli.progress);

	if (i >= argc) {
		fprintf(err, "kernelpro: no command given\n");
		print_main_usage(err);
		return KP_EXIT_USAGE;
	}
	if (!strcmp(argv[i], "help"))
		return help_command(argc - i - 1, argv + i + 1, out, err);
	cmd = kp_command_find(argv[i]);
	if (!cmd) {
		char dym[96];
		fprintf(err, "kernelpro: unknown command '%s'%s\n", argv[i],
			did_you_mean(argv[i], command_table, 1, dym, sizeof(dym)));
		print_main_usage(err);
		return KP_EXIT_USAGE;
	}
	{
		char prefix[64];
		snprintf(prefix, sizeof(prefix), "kernelpro %s", cmd->name);
		rc = kp_cmd_dispatch(&cli, cmd, prefix, argc - i, argv + i);
	}
	kp_progress_set_global(NULL);
	kp_log_set_sink(NULL, NULL);
	if ((fflush(out) != 0 || ferror(out)) && !reader_gone(out)) {
		fprintf(err, "kernelpro: error: cannot write output: %s\n", strerror(errno));
		if (rc == 0)
			rc = KP_EXIT_FAIL;
	}
	return rc;
}

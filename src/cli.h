/*
 * The kernelpro command line: command descriptors, option tables and the
 * shared state main() hands to every command.
 *
 * Adding a command:
 *   1. write src/cmd_<name>.c defining `const struct kp_cmd kp_cmd_<name>`
 *      with its option table (help text comes from it);
 *   2. add X(<name>) to KP_COMMANDS in src/commands.h;
 *   3. document it in docs/cli.md and add a test under tests/integration/.
 */
#ifndef KP_CLI_H
#define KP_CLI_H

#include <signal.h>
#include <stdio.h>

#include <jansson.h>

#include "kernelpro/error.h"
#include "kernelpro/log.h"
#include "kernelpro/strvec.h"

/* Exit codes, the same for every command. */
enum kp_exit {
	KP_EXIT_OK = 0,      /* the job succeeded */
	KP_EXIT_FAIL = 1,    /* the job failed */
	KP_EXIT_USAGE = 2,   /* the command line was wrong */
	KP_EXIT_MISSING = 3, /* a required tool or device is missing */
};

enum kp_opt_type {
	KP_OPT_END = 0,
	KP_OPT_FLAG,   /* --name */
	KP_OPT_STR,    /* --name VALUE */
	KP_OPT_INT,    /* --name N (checked integer) */
	KP_OPT_NUM,    /* --name X (checked number) */
	KP_OPT_CHOICE, /* --name VALUE, VALUE one of `arg` ("a|b|c") */
	KP_OPT_LIST,   /* --name VALUE, repeatable, collected in order */
	KP_OPT_ALIAS,  /* an old spelling: --name is read as --`arg` with a warning; not in help */
};

struct kp_opt {
	const char *name;  /* long name without dashes */
	char short_name;   /* 0: none */
	enum kp_opt_type type;
	/*
	 * The metavar for help ("FILE"); for KP_OPT_CHOICE the choices ("a|b|c"). For KP_OPT_INT
	 * and KP_OPT_NUM the metavar may name the values allowed after a colon: "N:1..64",
	 * "N:0.." (either end left out) or "SECONDS:>0" (more than). A value outside them (or a
	 * NUM that is not finite) is a usage error, exit 2, before the command runs.
	 */
	const char *arg;
	const char *help;  /* one line; the parser adds "(repeatable)", choices, range and default */
	const char *def;   /* default value (also shown in help); NULL: none */
};

#define KP_OPT_TABLE_END {NULL, 0, KP_OPT_END, NULL, NULL, NULL}

/*
 * A GPU model from the table (hw show, ask, profile, analyze, diagnose): --gpu-model KEY. --gpu is a
 * GPU index in optimize, eval, tune and bench; here the old spelling --gpu KEY still works, warned.
 */
#define KP_GPU_MODEL_OPT(help)                                   \
	{"gpu-model", 0, KP_OPT_STR, "KEY", help, NULL},             \
	{"gpu", 0, KP_OPT_ALIAS, "gpu-model", "--gpu is a GPU index in optimize, eval, tune and bench", NULL}

enum kp_cmd_flags {
	KP_CMD_NEEDS_GPU = 1 << 0,  /* documented; the command checks for the GPU itself */
	KP_CMD_NEEDS_NET = 1 << 1,
	KP_CMD_JSON = 1 << 2,       /* gets a --json option */
	KP_CMD_STOP_AT_ARG = 1 << 3,/* options end at the first positional (PROGRAM ARGS...) */
	KP_CMD_HIDDEN = 1 << 4,     /* not listed in help */
};

struct kp_cli;
struct kp_args;

struct kp_cmd {
	const char *name;
	const char *summary;     /* one line for the command list */
	const char *usage;       /* after "kernelpro NAME ": "[options] TASK CANDIDATE" */
	const char *description; /* optional paragraph for `kernelpro NAME --help` */
	const char *examples;    /* example command lines, one a line ("kernelpro eval TASK C.cu   # why") */
	/*
	 * The options `--help` shows (NULL-terminated names; --json and the global ones always
	 * show); NULL: all. `--help-all` shows every one; `more` says where the rest are explained.
	 */
	const char *const *brief;
	const char *more;
	unsigned flags;
	const struct kp_opt *opts; /* ends with KP_OPT_TABLE_END; may be NULL */
	int min_args, max_args;  /* positional arguments; max -1: unlimited */
	const struct kp_cmd *const *subs; /* sub-commands (NULL-terminated) or NULL */
	int (*run)(struct kp_cli *cli, const struct kp_args *args);
};

/* Shared state for one invocation. */
struct kp_cli {
	FILE *out;           /* results (stdout) */
	FILE *err;           /* diagnostics (stderr) */
	int verbosity;       /* -1 quiet, 0 normal, 1+ verbose */
	int color;           /* use ANSI colors on `out` */
	int json;            /* --json given to the command */
	const char *argv0;
	struct kp_progress progress;
	/*
	 * Set (nonzero) by the first SIGINT, SIGTERM or SIGHUP (src/main.c); NULL when nothing
	 * handles signals (tests). Children stop on their own (kp_child_set_cancel); a command
	 * passes the flag to what else it runs: kp_llm_set_cancel_flag, the search loop's stop.
	 */
	volatile sig_atomic_t *stop;
};

/* Parsed arguments of one command. */
struct kp_args {
	const struct kp_cmd *cmd;
	const char **values;        /* one per option; NULL when not given and no default */
	int *given;                 /* one per option: how many times given */
	struct kp_strvec *lists;    /* one per option, for KP_OPT_LIST */
	struct kp_strvec pos;       /* positional arguments */
	const char *const *cmd_path;/* unused by commands */
};

/* Option access by long name. Asking for a name the table lacks is a bug (aborts). */
int kp_arg_flag(const struct kp_args *a, const char *name);
/* Whether the command's table has option `name` at all (the others abort on a name it lacks). */
int kp_args_has(const struct kp_args *a, const char *name);
int kp_arg_given(const struct kp_args *a, const char *name);
const char *kp_arg_str(const struct kp_args *a, const char *name);
long kp_arg_int(const struct kp_args *a, const char *name, long def);
double kp_arg_num(const struct kp_args *a, const char *name, double def);
const struct kp_strvec *kp_arg_list(const struct kp_args *a, const char *name);
size_t kp_arg_npos(const struct kp_args *a);
const char *kp_arg_pos(const struct kp_args *a, size_t i);

/*
 * Parses argv (argv[0] is the command name) against cmd's table. `prefix` is
 * how the command is called ("kernelpro hw calibrate"), for messages and
 * usage. Short flags bundle ("-vv", "-qn"); a short option taking a value
 * takes the rest of its word or the next one ("-j4", "-j 4"). On a usage
 * error writes one line saying what was wrong and the usage line to `err`
 * and returns KP_EXIT_USAGE; `--help` prints help and returns -1 (exit 0).
 */
int kp_args_parse(struct kp_args *a, const struct kp_cmd *cmd, const char *prefix, int argc, char **argv,
		  FILE *err, FILE *out);
void kp_args_release(struct kp_args *a);

/* --help: the brief options (cmd->brief) and examples; _all: --help-all, every option. */
void kp_cmd_print_help(const struct kp_cmd *cmd, const char *prefix, FILE *fp);
void kp_cmd_print_help_all(const struct kp_cmd *cmd, const char *prefix, FILE *fp);
void kp_cmd_print_usage(const struct kp_cmd *cmd, const char *prefix, FILE *fp);

/* Runs cmd (or its sub-command) with argv; returns the exit code. */
int kp_cmd_dispatch(struct kp_cli *cli, const struct kp_cmd *cmd, const char *prefix, int argc, char **argv);

/* The command table. */
const struct kp_cmd *const *kp_commands(void);
const struct kp_cmd *kp_command_find(const char *name);

/* Reporting from commands: "kernelpro: error: ..." on cli->err. */
void kp_cli_error(struct kp_cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kp_cli_warn(struct kp_cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints err's message and maps its code to an exit code (tool/device missing -> 3, else 1). */
int kp_cli_fail(struct kp_cli *cli, const struct kp_error *err);
int kp_exit_for(int code);

/*
 * Prints one JSON document (sorted keys, 2-space indent) and a newline on cli->out.
 * kp_cli_print_json borrows `v`; kp_cli_print_json_new also drops the caller's reference
 * (jansson's _new convention).
 */
void kp_cli_print_json(struct kp_cli *cli, const json_t *v);
void kp_cli_print_json_new(struct kp_cli *cli, json_t *v);

/* ANSI color around a string when cli->color; `style` is one of "ok", "warn", "bad", "dim", "bold". */
const char *kp_cli_color(const struct kp_cli *cli, const char *style);
const char *kp_cli_reset(const struct kp_cli *cli);

/* Entry point used by main() and by tests: runs one whole command line. stop: see kp_cli (may be NULL). */
int kp_cli_main(int argc, char **argv, FILE *out, FILE *err, volatile sig_atomic_t *stop);

#endif

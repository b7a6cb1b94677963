/* kernelpro: entry point. Signals are handled here; the rest is kp_cli_main(), which tests drive too. */
#include "base/setup.h"

#include <signal.h>

#include "cli.h"
#include "kernelpro/child.h"
#include "kernelpro/secret.h"

/*
 * Set by the first SIGINT, SIGTERM, SIGHUP or SIGUSR1 (Slurm's warning before a time limit): what
 * runs stops (child processes get SIGTERM, then SIGKILL after a second; LLM requests are dropped; a
 * search commits and ends 'stopped'; bench starts no new task).
 */
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	if (stop_signal) {
		/* The second: end now, taking every child's process group along (no GPU stays held). */
		kp_child_kill_all();
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	stop_signal = sig;
}

static void handle_stop_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR1};
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < KP_ARRAY_SIZE(sigs); i++)
		sigaddset(&sa.sa_mask, sigs[i]); /* one at a time: the second sees the first's flag */
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < KP_ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
	kp_child_set_cancel(&stop_signal);
}

int main(int argc, char **argv)
{
	/* API keys out of our environment (and /proc/PID/environ) before anything else runs. */
	kp_secret_hold_env();
	/* Writes to a closed pipe become EPIPE errors: the command ends as it would have (a reader that
	 * stopped reading, `| head -1`, is no failure); other write errors are reported (src/cli.c). */
	signal(SIGPIPE, SIG_IGN);
	handle_stop_signals();
	return kp_cli_main(argc, argv, stdout, stderr, &stop_signal);
}

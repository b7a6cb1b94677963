/* kernelpro: entry point. Everything happens in kp_cli_main() so tests can drive it too. */
#include "base/setup.h"

#include <signal.h>

#include "cli.h"

int main(int argc, char **argv)
{
	/* Writes to a closed pipe become EPIPE errors we report, not a silent death. */
	signal(SIGPIPE, SIG_IGN);
	return kp_cli_main(argc, argv, stdout, stderr);
}

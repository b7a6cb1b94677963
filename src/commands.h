/* The command table: one X(name) per src/cmd_<name>.c, in the order help lists them. */
#ifndef KP_COMMANDS_H
#define KP_COMMANDS_H

#include "cli.h"

#define KP_COMMANDS(X) \
	X(optimize)    \
	X(bench)       \
	X(runs)        \
	X(show)        \
	X(report)      \
	X(compare)     \
	X(eval)        \
	X(baseline)    \
	X(tune)        \
	X(ask)         \
	X(energy)      \
	X(doctor)      \
	X(profile)     \
	X(analyze)     \
	X(diagnose)    \
	X(tools)       \
	X(codesearch)  \
	X(hw)          \
	X(version)

#define KP__DECLARE_CMD(name) extern const struct kp_cmd kp_cmd_##name;
KP_COMMANDS(KP__DECLARE_CMD)
#undef KP__DECLARE_CMD

#endif

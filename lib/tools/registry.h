/* The built-in tool table and the Stage-1 class → tools policy (lib/tools/registry.c). Internal. */
#ifndef KP_TOOLS_REGISTRY_H
#define KP_TOOLS_REGISTRY_H

#include <stddef.h>

/* KP_CLASS_BIT set of the classes that select built-in i proactively (docs/internals/design.md, "Tools"). */
unsigned kp_builtin_tool_classes(size_t i);

#endif

/* Between kp_child's spawn (child.c) and its keeper (child_keep.c). */
#ifndef KP_BASE_CHILD_INT_H
#define KP_BASE_CHILD_INT_H

#include <sys/types.h>

/*
 * In the child just forked from kernelpro, its descriptors 0-2 in place: forks the program, and
 * returns in the program (signals unblocked, ready to exec) while this process stays behind as
 * the keeper of the program's tree until the program ends, then exits as it did. Writes an errno
 * to report_fd when it cannot. Off Linux, returns at once (no keeper).
 */
void kp__child_keep(pid_t parent, int report_fd);

#endif

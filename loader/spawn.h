/* SPDX-License-Identifier: GPL-2.0 */
/* Starting `record -- CMD` stopped, so it is traced from its first instruction. */
#ifndef IOTRACE_SPAWN_H
#define IOTRACE_SPAWN_H

#include <sys/types.h>

struct spawn {
	pid_t pid;
	int err_fd; /* the child writes its exec errno here; EOF means exec worked */
};

/* Forks a child that stops itself before exec.  0 or -errno. */
int spawn__start(struct spawn *s, char **argv);
/* Lets the stopped child exec.  0 when the exec succeeded, else the exec's
 * -errno (the child has exited and is reaped). */
int spawn__release(struct spawn *s);
/* Kills and reaps a child that was never released. */
void spawn__abort(struct spawn *s);

#endif

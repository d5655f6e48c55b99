/* SPDX-License-Identifier: GPL-2.0 */
/* A small set of pids: the recorder's targets and the processes still alive. */
#ifndef IOTRACE_PIDSET_H
#define IOTRACE_PIDSET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct pidset {
	pid_t *pids;
	size_t n;
	size_t cap;
};

/* Adds pid unless present.  0 or -ENOMEM. */
int pidset__add(struct pidset *s, pid_t pid);
void pidset__del(struct pidset *s, pid_t pid);
bool pidset__has(const struct pidset *s, pid_t pid);
/* Frees the storage; the set is empty and reusable after. */
void pidset__free(struct pidset *s);

#endif

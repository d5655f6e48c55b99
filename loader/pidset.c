// SPDX-License-Identifier: GPL-2.0
/* Linear: a recording follows tens of processes, rarely thousands. */
#include <errno.h>
#include <stdlib.h>

#include "loader/pidset.h"

bool pidset__has(const struct pidset *s, pid_t pid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->pids[i] == pid)
			return true;
	return false;
}

int pidset__add(struct pidset *s, pid_t pid)
{
	if (pidset__has(s, pid))
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		pid_t *p = realloc(s->pids, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->pids = p;
		s->cap = cap;
	}
	s->pids[s->n++] = pid;
	return 0;
}

void pidset__del(struct pidset *s, pid_t pid)
{
	for (size_t i = 0; i < s->n; i++) {
		if (s->pids[i] == pid) {
			s->pids[i] = s->pids[--s->n];
			return;
		}
	}
}

void pidset__free(struct pidset *s)
{
	free(s->pids);
	s->pids = NULL;
	s->n = s->cap = 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The tables the state pass keeps: processes with their fd slots, and
 * resources (files, pipes, sockets) with the calls that used them.  Below
 * both the state pass and the path table, which use them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/state.h"

struct st_proc *state__proc(struct analysis *an, uint64_t key)
{
	struct an_state *st = an->state;
	uint32_t idx;
	struct st_proc *p;
	uint32_t ai;

	if (st->last_proc != AN_NONE && st->last_key == key)
		return an_vec__at(&st->procs, st->last_proc);
	idx = htab__get(&st->proc_idx, key);
	if (idx != AN_NONE) {
		st->last_key = key;
		st->last_proc = idx;
		return an_vec__at(&st->procs, idx);
	}
	p = an_vec__push(&st->procs);
	if (!p || htab__set(&st->proc_idx, key, st->procs.n - 1))
		return NULL;
	p->key = key;
	p->cwd = AN_NONE;
	ai = htab__get(&an->pid_idx, key);
	if (ai != AN_NONE)
		p->cwd = ((struct an_proc *)an_vec__at(&an->procs, ai))->cwd;
	return p;
}

struct fdslot *state__fd(struct st_proc *p, int fd, bool grow)
{
	if (fd < 0 || fd >= FD_LIMIT)
		return NULL;
	if ((uint32_t)fd >= p->nfd) {
		uint32_t n = p->nfd ? p->nfd : 64;
		struct fdslot *s;

		if (!grow)
			return NULL;
		while (n <= (uint32_t)fd)
			n *= 2;
		s = realloc(p->fd, n * sizeof(*s));
		if (!s)
			return NULL;
		memset(s + p->nfd, 0, (n - p->nfd) * sizeof(*s));
		p->fd = s;
		p->nfd = n;
	}
	return &p->fd[fd];
}

uint32_t state__res_new(struct analysis *an, uint32_t creator)
{
	struct an_state *st = an->state;
	struct res *r = an_vec__push(&st->res);

	if (!r)
		return AN_NONE;
	r->creator = r->last = creator;
	return st->res.n - 1;
}

struct res *state__res(struct analysis *an, uint32_t idx)
{
	struct an_state *st = an->state;

	return idx < st->res.n ? an_vec__at(&st->res, idx) : NULL;
}

/* A use: after the creation (stage, once per thread) and after the last use (seq). */
int state__use(struct analysis *an, uint32_t ri, uint32_t ev, enum an_rule kind)
{
	struct res *r = state__res(an, ri);
	uint32_t tidx = an->ev[ev].tidx, i;
	int err = 0;

	if (!r)
		return 0;
	for (i = 0; i < r->nusers && r->users[i].tidx != tidx; i++)
		;
	if (i == r->nusers) {
		struct res_user *u = realloc(r->users, (i + 1) * sizeof(*u));

		if (!u)
			return -ENOMEM;
		r->users = u;
		r->nusers++;
		u[i].tidx = tidx;
		err = an__edge(an, r->creator, ev, kind, 0);
	}
	r->users[i].ev = ev;
	if (!err)
		err = an__edge(an, r->last, ev, AN_RULE_SEQ, 0);
	r->last = ev;
	return err;
}

/* A use that changes what the resource is for every thread (a socket's
 * connect): the other threads' next uses come after it, as after a creation. */
int state__restage(struct analysis *an, uint32_t ri, uint32_t ev)
{
	int err = state__use(an, ri, ev, AN_RULE_STAGE);
	struct res *r = state__res(an, ri);

	if (!err && r) {
		r->creator = ev;
		r->nusers = 0;
	}
	return err;
}

/* A deletion: after the creation and after every thread's last use. */
int state__delete(struct analysis *an, uint32_t ri, uint32_t ev)
{
	struct res *r = state__res(an, ri);
	int err;

	if (!r)
		return 0;
	err = an__edge(an, r->creator, ev, AN_RULE_STAGE, 0);
	for (uint32_t i = 0; !err && i < r->nusers; i++)
		err = an__edge(an, r->users[i].ev, ev, AN_RULE_STAGE, 0);
	if (!err)
		err = an__edge(an, r->last, ev, AN_RULE_SEQ, 0);
	r->last = ev;
	return err;
}

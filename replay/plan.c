// SPDX-License-Identifier: GPL-2.0
/*
 * The plan object: its tables of threads, processes and call names, grown as
 * the annotated trace is read (parse.c, event.c, track.c), and freed whole.
 * Below everything else of replay/.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/replay.h"

uint32_t plan__call_idx(struct rp_plan *p, const char *name)
{
	char **v;

	for (uint32_t i = 0; i < p->ncalls; i++)
		if (!strcmp(p->calls[i], name))
			return i;
	v = realloc(p->calls, (p->ncalls + 1) * sizeof(*v));
	if (!v)
		return RP_NONE;
	p->calls = v;
	v[p->ncalls] = strdup(name);
	return v[p->ncalls] ? p->ncalls++ : RP_NONE;
}

int plan__grow(void **v, size_t size, size_t n, size_t cap)
{
	/* a multiple of 64: aligned_alloc wants the size to be one */
	size_t bytes = (cap * size + 63) & ~(size_t)63;
	void *nv = aligned_alloc(64, bytes ? bytes : 64);

	if (!nv)
		return -ENOMEM;
	if (n)
		memcpy(nv, *v, n * size);
	free(*v);
	*v = nv;
	return 0;
}

static bool on_host(uint16_t have, uint16_t want)
{
	return want == RP_ANY_HOST || have == want;
}

uint32_t plan__proc(struct rp_plan *p, uint16_t host, int32_t pid)
{
	struct rp_proc *v;

	for (uint32_t i = 0; i < p->npr; i++)
		if (p->pr[i].pid == pid && on_host(p->pr[i].host, host))
			return i;
	v = realloc(p->pr, (p->npr + 1) * sizeof(*v));
	if (!v)
		return RP_NONE;
	p->pr = v;
	memset(&v[p->npr], 0, sizeof(*v));
	v[p->npr].pid = pid;
	v[p->npr].host = host == RP_ANY_HOST ? 0 : host;
	return p->npr++;
}

struct rp_thread *plan__thread(struct rp_plan *p, uint16_t host, int32_t tid, int32_t pid)
{
	static uint32_t last;
	struct rp_thread *v;

	/* events come in runs of one thread: try the last hit first */
	if (last < p->nth && p->th[last].tid == tid && on_host(p->th[last].host, host))
		return &p->th[last];
	for (uint32_t i = 0; i < p->nth; i++)
		if (p->th[i].tid == tid && on_host(p->th[i].host, host))
			return &p->th[last = i];
	if (pid < 0)
		return NULL;
	if (plan__grow((void **)&p->th, sizeof(*p->th), p->nth, p->nth + 1))
		return NULL;
	v = p->th;
	memset(&v[p->nth], 0, sizeof(*v));
	v[p->nth].tid = tid;
	v[p->nth].pid = pid;
	v[p->nth].gate = RP_NONE;
	v[p->nth].host = host == RP_ANY_HOST ? 0 : host;
	v[p->nth].pidx = plan__proc(p, host, pid);
	return v[p->nth].pidx == RP_NONE ? NULL : &v[last = p->nth++];
}

void plan__free(struct rp_plan *p)
{
	for (uint32_t i = 0; i < p->nops; i++) {
		free(p->ops[i].deps);
		free(p->ops[i].touch);
		free((char *)p->ops[i].path);
		free((char *)p->ops[i].path2);
	}
	for (uint32_t t = 0; t < p->nth; t++) {
		free(p->th[t].ops);
		iobuf__free(p->th[t].buf, p->th[t].bufsz);
		free(p->th[t].skipped);
	}
	for (uint32_t i = 0; i < p->npr; i++) {
		for (uint32_t k = 0; k < p->pr[i].ninh; k++)
			free(p->pr[i].inh[k].path);
		free(p->pr[i].inh);
		free(p->pr[i].cwd);
		free(p->pr[i].fd);
		free(p->pr[i].fdfl);
		free(p->pr[i].slot_fd);
		free(p->pr[i].slot_gone);
	}
	for (uint32_t i = 0; i < p->nfiles; i++) {
		free(p->files[i].path);
		free(p->files[i].target);
	}
	for (uint32_t i = 0; i < p->ncalls; i++)
		free(p->calls[i]);
	for (uint32_t i = 0; i < p->nhosts; i++)
		free(p->hosts[i]);
	free(p->hosts);
	free(p->launch);
	free(p->conns);
	free(p->ops);
	free(p->th);
	free(p->pr);
	free(p->files);
	free(p->calls);
	free(p->maps);
	free(p->ports);
	free(p->peers);
	free(p->mapfiles);
	free(p->inl);
	free(p->inc);
	memset(p, 0, sizeof(*p));
}

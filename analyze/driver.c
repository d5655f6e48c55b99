// SPDX-License-Identifier: GPL-2.0
/* The driver: builds an analysis by running the passes in order over the model. */
#include <errno.h>
#include <stdlib.h>

#include "analyze/an.h"
#include "lib/log.h"

static void init_vecs(struct analysis *an)
{
	an->threads.esz = sizeof(struct an_thread);
	an->procs.esz = sizeof(struct an_proc);
	an->side.esz = sizeof(struct an_side);
	an->edges.esz = sizeof(struct an_edge);
	an->deps.esz = sizeof(struct an_edge);
	an->files.esz = sizeof(struct an_file);
	an->snaps.esz = sizeof(struct an_snap);
	an->hosts.esz = sizeof(struct an_host);
	an->pages.esz = sizeof(struct an_page);
	an->preempts.esz = sizeof(struct an_preempt);
}

/* The passes after the load, the same for one trace and for a job. */
static int passes(struct analysis *an)
{
	int err = an__state(an);

	if (!err && an->opts.infer)
		err = an__data(an);
	if (!err && an->opts.infer)
		err = an__sched(an);
	/* the barrier rule takes the waits the scheduler left unexplained */
	if (!err && an->opts.infer)
		err = an__spin(an) ?: an__barrier(an);
	if (!err)
		err = an__reduce(an, an->opts.infer);
	return err;
}

static int run(struct analysis *an, const char *path, const void *buf, size_t len)
{
	return an__load(an, path, buf, len) ?: passes(an);
}

/* Deps kept whose source ran on another host than the call they order. */
static void count_xhost(struct analysis *an)
{
	for (size_t i = 0; i < an->deps.n; i++) {
		const struct an_edge *d = an_vec__at(&an->deps, i);

		an->edges_xhost += an__host_of(an, d->from) != an__host_of(an, d->to);
	}
}

struct analysis *analysis__new_multi(const char *const *paths, uint32_t n,
				     const struct an_opts *opts)
{
	struct analysis *an = calloc(1, sizeof(*an));
	int err;

	if (!an)
		return NULL;
	an->opts = *opts;
	an->multi = true;
	init_vecs(an);
	err = an__hosts_load(an, paths, n) ?: an__index(an) ?: an__xhost_index(an) ?: passes(an);
	if (!err)
		count_xhost(an);
	if (err) {
		if (err == -ENOMEM)
			err("analyze: out of memory");
		analysis__free(an);
		errno = -err;
		return NULL;
	}
	return an;
}

struct analysis *analysis__new(const char *path, const void *buf, size_t len,
			       const struct an_opts *opts)
{
	struct analysis *an = calloc(1, sizeof(*an));
	int err;

	if (!an)
		return NULL;
	an->opts = *opts;
	init_vecs(an);
	err = run(an, path, buf, len);
	if (err) {
		if (err == -ENOMEM)
			err("analyze: out of memory");
		analysis__free(an);
		errno = -err;
		return NULL;
	}
	return an;
}

void analysis__free(struct analysis *an)
{
	if (!an)
		return;
	for (size_t i = 0; i < an->threads.n; i++) {
		free(an__thread(an, i)->ev);
		free(an__thread(an, i)->gap_ts);
	}
	an_vec__free(&an->threads);
	an_vec__free(&an->procs);
	an_vec__free(&an->side);
	an_vec__free(&an->edges);
	an_vec__free(&an->deps);
	an_vec__free(&an->files);
	an_vec__free(&an->snaps);
	an_vec__free(&an->hosts);
	an_vec__free(&an->inputs);
	an__xhost_free(an);
	an_vec__free(&an->pages);
	an_vec__free(&an->preempts);
	free(an->outside_ns);
	htab__free(&an->tid_idx);
	htab__free(&an->pid_idx);
	htab__free(&an->file_idx);
	strtab__free(&an->strs);
	free(an->dep_off);
	free(an->evflags);
	free(an->ev);
	free(an->arena);
	free(an);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Plan passes over the whole trace: deps that would deadlock against thread
 * order, mmap slots, and the parent directories the sandbox needs that the
 * header does not list (parents of files the trace creates).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>

#include "lib/htab.h"
#include "lib/log.h"
#include "lib/path.h"
#include "replay/graph.h"
#include "replay/replay.h"

/* A rendezvous (plan_rendezvous): dep D waits for its op to be reached. */
static bool dep_is_arrival(const struct rp_plan *p, uint32_t d)
{
	return d & RP_DEP_START && p->ops[d & ~RP_DEP_START].arrive_waited;
}

/* Where dep D of an op is released: a rendezvous once the waiting thread's
 * previous op is done. */
static uint32_t dep_source(const struct rp_plan *p, const uint32_t *prev, uint32_t d)
{
	uint32_t j = d & ~RP_DEP_START;

	return dep_is_arrival(p, d) ? prev[j] : j;
}

/*
 * Kahn over deps + thread order; deps among ops left unsorted are cut, or
 * with ONLY_ARRIVE only the rendezvous among them: on a graph that was
 * acyclic without them, every cycle has one.
 */
uint32_t graph__break_cycles(struct rp_plan *p, bool only_arrive)
{
	uint32_t *indeg = calloc(p->nops, sizeof(*indeg)), *q = calloc(p->nops, sizeof(*q));
	uint32_t *next = malloc(p->nops * sizeof(*next)), *off = calloc(p->nops + 1, sizeof(*off));
	uint32_t *prev = malloc(p->nops * sizeof(*prev));
	uint32_t *out = NULL, head = 0, tail = 0, cut = 0;

	if (!indeg || !q || !next || !off || !prev)
		goto out;
	for (uint32_t t = 0; t < p->nth; t++)
		for (uint32_t k = 0; k < p->th[t].nops; k++) {
			next[p->th[t].ops[k]] =
				k + 1 < p->th[t].nops ? p->th[t].ops[k + 1] : RP_NONE;
			/* a rendezvous is never on a thread's first op */
			prev[p->th[t].ops[k]] = k ? p->th[t].ops[k - 1] : p->th[t].ops[k];
			indeg[p->th[t].ops[k]] = k > 0;
		}
	for (uint32_t i = 0; i < p->nops; i++)
		for (uint32_t k = 0; k < p->ops[i].ndeps; k++) {
			off[dep_source(p, prev, p->ops[i].deps[k]) + 1]++;
			indeg[i]++;
		}
	for (uint32_t i = 0; i < p->nops; i++)
		off[i + 1] += off[i];
	out = malloc((off[p->nops] + 1) * sizeof(*out));
	if (!out)
		goto out;
	for (uint32_t i = 0; i < p->nops; i++)
		for (uint32_t k = 0; k < p->ops[i].ndeps; k++)
			out[off[dep_source(p, prev, p->ops[i].deps[k])]++] = i;
	/* off[j] now ends j's edges; the start is off[j - 1] (0 for j = 0) */
	for (uint32_t i = 0; i < p->nops; i++)
		if (!indeg[i])
			q[tail++] = i;
	while (head < tail) {
		uint32_t j = q[head++];

		for (uint32_t e = j ? off[j - 1] : 0; e < off[j]; e++)
			if (!--indeg[out[e]])
				q[tail++] = out[e];
		if (next[j] != RP_NONE && !--indeg[next[j]])
			q[tail++] = next[j];
	}
	if (tail == p->nops)
		goto out;
	/* indeg > 0 marks the ops left in cycles: cut their deps on each other */
	for (uint32_t i = 0; i < p->nops; i++) {
		struct rp_op *op = &p->ops[i];
		uint32_t n = 0;

		for (uint32_t k = 0; k < op->ndeps; k++) {
			uint32_t d = op->deps[k];

			if (indeg[i] && indeg[dep_source(p, prev, d)] &&
			    (!only_arrive || dep_is_arrival(p, d)))
				cut++;
			else
				op->deps[n++] = d;
		}
		op->ndeps = n;
	}
out:
	free(indeg);
	free(q);
	free(next);
	free(prev);
	free(off);
	free(out);
	return cut;
}

struct live_map {
	uint32_t pidx, slot;
	uint64_t start, len;
	uint64_t off; /* file offset of start */
	uint64_t ino;
	uint32_t dev;
	bool shared_write; /* MAP_SHARED and PROT_WRITE: a fault there is a write */
};

/* The (dev, ino) the loader noted for mmap op i; mapfiles are in op order. */
static const struct rp_mapfile *mapfile_of(const struct rp_plan *p, uint32_t i, uint32_t *cur)
{
	while (*cur < p->nmapfiles && p->mapfiles[*cur].op < i)
		(*cur)++;
	return *cur < p->nmapfiles && p->mapfiles[*cur].op == i ? &p->mapfiles[*cur] : NULL;
}

/* Each touch of op: the live mapping of its process that holds its first page. */
static void touches_resolve(struct rp_op *op, const struct live_map *live, uint32_t n)
{
	for (uint32_t k = 0; k < op->ntouch; k++) {
		struct rp_touch *t = &op->touch[k];
		uint64_t at = t->index * 4096;

		for (uint32_t i = n; i-- > 0;) {
			const struct live_map *m = &live[i];

			if (m->pidx != op->pidx || m->ino != t->ino || m->dev != t->dev ||
			    at < m->off || at >= m->off + m->len)
				continue;
			t->slot = m->slot;
			t->off = at - m->off;
			if (t->off + (uint64_t)t->npages * 4096 > m->len)
				t->npages = (m->len - t->off + 4095) / 4096;
			t->write = t->dirty || (t->write && m->shared_write);
			break;
		}
	}
}

static struct live_map *map_find(struct live_map *v, uint32_t n, uint32_t pidx, uint64_t a)
{
	for (uint32_t i = n; i-- > 0;)
		if (v[i].pidx == pidx && a >= v[i].start && a < v[i].start + v[i].len)
			return &v[i];
	return NULL;
}

/* A mapping's length as the kernel maps it, whole pages. */
static uint64_t map_pages(uint64_t len)
{
	return (len + 4095) & ~4095ull;
}

/* File mappings get slots; munmap/msync find theirs by the recorded address. */
int graph__mmaps(struct rp_plan *p)
{
	struct live_map *live = NULL, *m;
	uint32_t n = 0, mf = 0;

	for (uint32_t i = 0; i < p->nops; i++) {
		struct rp_op *op = &p->ops[i];
		const struct rp_mapfile *f;

		touches_resolve(op, live, n);
		if (op->kind == RK_MMAP && op->ret >= 0) {
			m = realloc(live, (n + 1) * sizeof(*m));
			if (!m)
				return free(live), -ENOMEM;
			live = m;
			f = mapfile_of(p, i, &mf);
			live[n++] = (struct live_map){
				op->pidx,	p->nmaps,
				op->ret,	op->a[0],
				op->a[1],	f ? f->ino : 0,
				f ? f->dev : 0, (op->a[3] & MAP_SHARED) && (op->a[2] & PROT_WRITE)
			};
			op->fd2 = p->nmaps++;
		} else if (op->kind == RK_MUNMAP || op->kind == RK_MSYNC) {
			m = map_find(live, n, op->pidx, op->a[3]);
			if (!m) {
				op->kind = RK_IGNORE; /* anonymous memory */
				continue;
			}
			op->fd2 = m->slot;
			op->a[2] = op->a[3] - m->start;
			/* never past the replay's own mapping: what follows it
			 * there is someone else's memory */
			if ((uint64_t)op->a[0] > map_pages(m->len) - op->a[2])
				op->a[0] = map_pages(m->len) - op->a[2];
			/* a[1]: the whole mapping goes (no later call finds it) */
			if (op->kind == RK_MUNMAP)
				op->a[1] = op->a[2] == 0 && (uint64_t)op->a[0] >= m->len;
			if (op->kind == RK_MUNMAP && op->a[1])
				*m = live[--n];
		}
	}
	free(live);
	p->maps = calloc(p->nmaps + 1, sizeof(*p->maps));
	return p->maps ? 0 : -ENOMEM;
}

static int file_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rp_file *)a)->path, ((const struct rp_file *)b)->path);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct strs {
	char **v;
	uint32_t n, cap;
};

static int strs_add(struct strs *s, const char *str, size_t len)
{
	if (s->n == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 64;
		char **v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n] = strndup(str, len);
	return s->v[s->n++] ? 0 : -ENOMEM;
}

static int strs_add_norm(struct strs *s, const char *path)
{
	int err = strs_add(s, path, strlen(path));

	if (!err)
		path__normalize(s->v[s->n - 1]);
	return err;
}

static bool strs_has(const struct strs *s, const char *str, size_t len)
{
	char buf[4096];
	char *key = buf;

	if (len >= sizeof(buf))
		return false;
	memcpy(buf, str, len);
	buf[len] = '\0';
	return s->n && bsearch(&key, s->v, s->n, sizeof(*s->v), str_cmp);
}

/* Ancestors of PATH up to the first one the trace itself creates. */
static int plan_parents(struct strs *need, const struct strs *made, const char *orig)
{
	char path[4096];
	const char *s;
	int err = 0;

	if (!orig || orig[0] != '/' || strlen(orig) >= sizeof(path))
		return 0;
	strcpy(path, orig);
	path__normalize(path);
	s = strrchr(path, '/');
	if (path__outside_fs(path))
		return 0;
	for (; s > path && !err; s--) {
		if (*s != '/')
			continue;
		if (strs_has(made, path, s - path))
			break;
		err = strs_add(need, path, s - path);
	}
	return err;
}

static int plan_made_dirs(struct rp_plan *p, struct strs *made)
{
	int err = 0;

	for (uint32_t i = 0; i < p->nops && !err; i++) {
		const struct rp_op *op = &p->ops[i];

		if (op->ret < 0 || !op->path)
			continue;
		if (op->kind == RK_MKDIR || op->kind == RK_SYMLINK)
			err = strs_add_norm(made, op->path);
		else if (op->kind == RK_RENAME && op->path2)
			err = strs_add_norm(made, op->path2);
	}
	if (made->n)
		qsort(made->v, made->n, sizeof(*made->v), str_cmp);
	return err;
}

static int plan_add_dirs(struct rp_plan *p, struct strs *need)
{
	struct rp_file *v = realloc(p->files, (p->nfiles + need->n + 1) * sizeof(*v));
	uint32_t n0 = p->nfiles;
	const char *prev = "";

	if (!v)
		return -ENOMEM;
	p->files = v;
	if (need->n)
		qsort(need->v, need->n, sizeof(*need->v), str_cmp);
	for (uint32_t i = 0; i < need->n; i++) {
		struct rp_file key = { .path = need->v[i] };

		if (!strcmp(need->v[i], prev))
			continue;
		prev = need->v[i];
		if (n0 && bsearch(&key, v, n0, sizeof(*v), file_cmp))
			continue;
		v[p->nfiles++] = (struct rp_file){ .path = need->v[i], .type = 'd' };
		need->v[i] = NULL;
	}
	if (p->nfiles)
		qsort(v, p->nfiles, sizeof(*v), file_cmp);
	return 0;
}

int graph__expect_dirs(struct rp_plan *p)
{
	struct strs made = { 0 }, need = { 0 };
	int err = plan_made_dirs(p, &made);

	for (uint32_t i = 0; i < p->nops && !err; i++) {
		const struct rp_op *op = &p->ops[i];

		if (op->ret < 0 || op->kind <= RK_EXIT)
			continue;
		err = plan_parents(&need, &made, op->path);
		if (!err && op->kind != RK_SYMLINK)
			err = plan_parents(&need, &made, op->path2);
	}
	/* the header lists parents, but a crafted or older one may not */
	for (uint32_t i = 0; i < p->nfiles && !err; i++)
		err = plan_parents(&need, &made, p->files[i].path);
	if (p->nfiles)
		qsort(p->files, p->nfiles, sizeof(*p->files), file_cmp);
	if (!err)
		err = plan_add_dirs(p, &need);
	for (uint32_t i = 0; i < made.n; i++)
		free(made.v[i]);
	for (uint32_t i = 0; i < need.n; i++)
		free(need.v[i]);
	free(made.v);
	free(need.v);
	return err;
}

const struct rp_file *graph__file(const struct rp_plan *p, const char *path)
{
	struct rp_file key = { .path = (char *)path };

	return p->nfiles ? bsearch(&key, p->files, p->nfiles, sizeof(*p->files), file_cmp) : NULL;
}

unsigned int graph__root_of(const struct rp_plan *p, const char *path)
{
	char buf[PATH_MAX];
	const struct rp_file *f;

	if (!path || path[0] != '/' || strlen(path) >= sizeof(buf))
		return 0;
	strcpy(buf, path);
	path__normalize(buf);
	f = graph__file(p, buf);
	return f ? f->root : 0;
}

/* The file of the initial state that symlink L's chain ends at, or NULL:
 * its links' texts joined and cleaned lexically, as the recorder did. */
static const struct rp_file *graph_chain_end(const struct rp_plan *p, const struct rp_file *l)
{
	char buf[PATH_MAX];

	for (int hops = 0; l && l->type == 'l' && l->target && hops < 40; hops++) {
		const char *slash = strrchr(l->path, '/');
		int n = l->target[0] == '/' ? snprintf(buf, sizeof(buf), "%s", l->target) :
					      snprintf(buf, sizeof(buf), "%.*s/%s",
						       (int)(slash - l->path), l->path, l->target);

		if (n < 0 || (size_t)n >= sizeof(buf))
			return NULL;
		path__normalize(buf);
		l = graph__file(p, buf);
	}
	return l && l->type == 'f' ? l : NULL;
}

static const char *name_made(const struct rp_op *op);

#define DIR_MADE_IN 0xff /* the trace makes a name in the directory */

/* The header's directory that PATH is directly in, or NULL. */
static const struct rp_file *graph_parent(const struct rp_plan *p, const char *path)
{
	char buf[PATH_MAX];
	char *slash;

	if (!path || path[0] != '/' || strlen(path) >= sizeof(buf))
		return NULL;
	strcpy(buf, path);
	path__normalize(buf);
	slash = strrchr(buf, '/');
	*(slash == buf ? slash + 1 : slash) = '\0';
	return graph__file(p, buf);
}

/* IN[i] for directory p->files[i]: the dev root its files are in (the last
 * seen), or DIR_MADE_IN when the trace makes a name in it. */
static void graph_dir_contents(const struct rp_plan *p, uint8_t *in)
{
	for (uint32_t i = 0; i < p->nfiles; i++) {
		const struct rp_file *d =
			p->files[i].root ? graph_parent(p, p->files[i].path) : NULL;

		if (d)
			in[d - p->files] = p->files[i].root;
	}
	for (uint32_t i = 0; i < p->nops; i++) {
		const struct rp_op *op = &p->ops[i];
		const struct rp_file *d = graph_parent(
			p, op->kind == RK_SYMLINK && op->ret >= 0 ? op->path : name_made(op));

		if (d)
			in[d - p->files] = DIR_MADE_IN;
	}
}

/*
 * An open of a directory the trace makes nothing in, whose files are on a
 * mapped device, opens it in that device's root: a getdents then lists
 * those files, as the application's did (Open MPI lists its plugin
 * directories), where in --root it found the directory empty.
 */
static void graph_dir_opens(struct rp_plan *p, const struct rp_opts *o)
{
	uint8_t *in = calloc(p->nfiles + 1, 1);

	if (!in)
		return; /* the opens stay in --root: short listings, no failure */
	graph_dir_contents(p, in);
	for (uint32_t i = 0; i < p->nops; i++) {
		struct rp_op *op = &p->ops[i];
		char buf[PATH_MAX];
		const struct rp_file *f = NULL;
		uint8_t k;

		if (op->kind != RK_OPEN || op->ret < 0 || !op->path || op->path[0] != '/' ||
		    strlen(op->path) >= sizeof(buf))
			continue;
		strcpy(buf, op->path);
		path__normalize(buf);
		f = graph__file(p, buf);
		k = f && f->type == 'd' && f->dev ? in[f - p->files] : 0;
		if (k && k != DIR_MADE_IN && k <= o->ndevroot && o->devroot[k - 1].dev == f->dev)
			op->root = k;
	}
	free(in);
}

/*
 * --dev-root: a regular file of the initial state that the trace saw on a
 * mapped device lives in that device's root, and the calls that name it
 * resolve there; so do the symlinks whose chains end at it, which lead
 * nowhere in another root.  Directories, other symlinks and whatever the
 * trace creates stay in --root: a created file has no recorded device, and
 * a directory is needed in --root for what the trace makes inside it.  But
 * an open of a directory whose listing is all on a mapped device is made
 * there (graph_dir_opens); prepare makes the directories in both roots.
 */
void graph__roots(struct rp_plan *p, const struct rp_opts *o)
{
	for (uint32_t i = 0; i < p->nfiles; i++) {
		struct rp_file *f = &p->files[i];

		for (uint32_t k = 0; f->type == 'f' && f->dev && k < o->ndevroot; k++)
			if (o->devroot[k].dev == f->dev)
				f->root = k + 1;
	}
	for (uint32_t i = 0; o->ndevroot && i < p->nfiles; i++) {
		const struct rp_file *end = graph_chain_end(p, &p->files[i]);

		if (p->files[i].type == 'l' && end)
			p->files[i].root = end->root;
	}
	for (uint32_t i = 0; o->ndevroot && i < p->nops; i++) {
		struct rp_op *op = &p->ops[i];

		op->root = graph__root_of(p, op->path);
		op->root2 = op->kind == RK_SYMLINK ? 0 : graph__root_of(p, op->path2);
	}
	if (o->ndevroot)
		graph_dir_opens(p, o);
}

/* The name a successful call creates, or NULL. */
static const char *name_made(const struct rp_op *op)
{
	if (op->ret < 0)
		return NULL;
	if (op->kind == RK_OPEN && (op->a[0] & O_CREAT))
		return op->path;
	if (op->kind == RK_MKDIR)
		return op->path;
	if (op->kind == RK_RENAME || op->kind == RK_LINK)
		return op->path2;
	return NULL;
}

struct misses {
	uint32_t *v; /* ops that found the name missing since it was last made */
	uint32_t n;
};

static int miss_add(struct misses *m, uint32_t op)
{
	uint32_t *v = realloc(m->v, (m->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	m->v = v;
	v[m->n++] = op;
	return 0;
}

/* OP made the name: after every other thread's lookup that missed it. */
static int miss_made(struct rp_plan *p, struct rp_op *op, struct misses *m)
{
	int err = 0;

	for (uint32_t k = 0; k < m->n && !err; k++) {
		uint32_t *v;

		if (p->ops[m->v[k]].tidx == op->tidx)
			continue;
		v = realloc(op->deps, (op->ndeps + 1) * sizeof(*v));
		if (!v)
			err = -ENOMEM;
		else
			(op->deps = v)[op->ndeps++] = m->v[k];
	}
	m->n = 0;
	return err;
}

/*
 * PostgreSQL's backends open a relation's free-space map, find it missing,
 * and one of them creates it later: the trace orders the failed opens
 * first, but has no edge for them (nothing was written that they read), so
 * a causal replay may create the file first, and the opens then succeed.
 */
/* The misses of PATH, the table grown for a name seen the first time. */
static struct misses *miss_of(struct strtab *names, struct misses **m, uint32_t *nm,
			      const char *path)
{
	uint32_t id = strtab__intern(names, path);
	struct misses *v;

	if (id == UINT32_MAX)
		return NULL;
	if (id >= *nm) {
		v = realloc(*m, (id + 1) * sizeof(*v));
		if (!v)
			return NULL;
		*m = v;
		memset(&v[*nm], 0, (id + 1 - *nm) * sizeof(*v));
		*nm = id + 1;
	}
	return &(*m)[id];
}

int graph__name_misses(struct rp_plan *p)
{
	struct strtab names = { 0 };
	struct misses *m = NULL, *x;
	uint32_t nm = 0;
	int err = 0;

	for (uint32_t i = 0; i < p->nops && !err; i++) {
		struct rp_op *op = &p->ops[i];
		const char *made = name_made(op);

		if (op->ret == -ENOENT && op->path) {
			x = miss_of(&names, &m, &nm, op->path);
			err = x ? miss_add(x, i) : -ENOMEM;
		} else if (made) {
			x = miss_of(&names, &m, &nm, made);
			err = x ? miss_made(p, op, x) : -ENOMEM;
		}
	}
	for (uint32_t k = 0; k < nm; k++)
		free(m[k].v);
	free(m);
	strtab__free(&names);
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * From raw edges to the deps of each event: drop edges that cross a loss gap
 * or run backwards in time, keep per target only the latest source of each
 * thread, then walk the events in a topological order with a vector clock per
 * thread and drop every edge the clock already implies.  A lock's handover
 * is kept as an edge but implies nothing (lock_edge).
 */
#include <errno.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "analyze/an.h"

struct walk {
	uint32_t nthr;
	uint32_t *cur;		 /* nthr x nthr: running clock of each thread (pos + 1) */
	uint32_t *in_off;	 /* edges into event i: edges[in_off[i] .. in_off[i + 1]) */
	uint32_t *out_off, *out; /* edge indices out of event i */
	uint32_t *pending;	 /* incoming edges whose source is not walked yet */
	uint64_t *snap;		 /* clock of a source event, offset into pool, or UINT64_MAX */
	uint32_t *pool;
	size_t npool, cappool;
	uint8_t *drop;	/* per edge */
	uint8_t *lock;	/* per edge: a lock's handover, which implies nothing (lock_edge) */
	uint32_t *head; /* per thread: next position to walk */
};

/* A gap whose first record after it lies in [a, b]: records were lost between. */
static bool gap_between(const struct an_thread *t, uint64_t a, uint64_t b)
{
	for (uint32_t g = 0; g < t->ngaps; g++)
		if (t->gap_ts[g] >= a && t->gap_ts[g] <= b)
			return true;
	return false;
}

static bool keep_edge(struct analysis *an, const struct an_edge *e)
{
	const struct an_event *f = &an->ev[e->from], *t = &an->ev[e->to];
	uint64_t t_end = an__end(an, e->to);

	if (f->ts > t_end) {
		an->edges_time++;
		return false;
	}
	/*
	 * Lost records just before the source could be the real cause (a lost
	 * write shifts every byte count after it), so a gap ending at the
	 * source counts; so does one in the target before it began.
	 */
	if (gap_between(an__thread(an, f->tidx), f->ts, t_end) ||
	    gap_between(an__thread(an, t->tidx), f->ts + 1, t->ts)) {
		an->edges_gap++;
		return false;
	}
	return true;
}

static const struct analysis *cmp_an;

static int cmp_edge(const void *a, const void *b)
{
	const struct an_edge *x = a, *y = b;
	uint32_t tx = cmp_an->ev[x->from].tidx, ty = cmp_an->ev[y->from].tidx;

	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (tx != ty)
		return tx < ty ? -1 : 1;
	return x->from > y->from ? -1 : (x->from < y->from); /* latest source first */
}

/* Filter, sort, and keep the latest source per (target, source thread). */
static void prefilter(struct analysis *an)
{
	struct an_edge *e = an->edges.v;
	size_t n = 0;

	for (size_t i = 0; i < an->edges.n; i++)
		if (keep_edge(an, &e[i]))
			e[n++] = e[i];
	cmp_an = an;
	if (n)
		qsort(e, n, sizeof(*e), cmp_edge);
	an->edges.n = 0;
	for (size_t i = 0; i < n; i++) {
		if (an->edges.n) {
			struct an_edge *p = &e[an->edges.n - 1];

			if (p->to == e[i].to && an->ev[p->from].tidx == an->ev[e[i].from].tidx) {
				an->edges_reduced++;
				continue;
			}
		}
		e[an->edges.n++] = e[i];
	}
}

/*
 * A lock's handover: a FUTEX_WAIT that the holder's unlock (a FUTEX_WAKE of
 * one) ended.  It is a collision, not an order: which thread takes a lock
 * first is the moment's, and a replay may let the waiter go first when the
 * recorded holder has not reached the lock yet (docs/replay.md, Locks).  So
 * it implies no other edge: whatever the waiter's thread needs from the
 * holder's past is kept as an edge of its own, not left to the handover.
 */
static bool lock_edge(const struct analysis *an, const struct an_edge *e)
{
	const struct iot_syscall *w, *x;

	if (e->kind != AN_RULE_WAKEUP)
		return false;
	w = an__rec(an, e->to);
	x = an__rec(an, e->from);
	return w->nr == SYS_futex && (w->args[1] & FUTEX_CMD_MASK) == FUTEX_WAIT && w->ret == 0 &&
	       x->nr == SYS_futex && (x->args[1] & FUTEX_CMD_MASK) == FUTEX_WAKE &&
	       (int)x->args[2] == 1 && x->ret >= 1;
}

static int walk_init(struct analysis *an, struct walk *w)
{
	const struct an_edge *e = an->edges.v;
	uint32_t n = an->nev;

	w->nthr = an->threads.n;
	w->cur = calloc((size_t)w->nthr * w->nthr + 1, sizeof(*w->cur));
	w->in_off = calloc(n + 2, sizeof(*w->in_off));
	w->out_off = calloc(n + 2, sizeof(*w->out_off));
	w->out = malloc((an->edges.n + 1) * sizeof(*w->out));
	w->pending = calloc(n + 1, sizeof(*w->pending));
	w->snap = malloc((n + 1) * sizeof(*w->snap));
	w->drop = calloc(an->edges.n + 1, 1);
	w->lock = calloc(an->edges.n + 1, 1);
	w->head = calloc(w->nthr + 1, sizeof(*w->head));
	if (!w->cur || !w->in_off || !w->out_off || !w->out || !w->pending || !w->snap ||
	    !w->drop || !w->lock || !w->head)
		return -ENOMEM;
	memset(w->snap, 0xff, (n + 1) * sizeof(*w->snap));
	for (size_t i = 0; i < an->edges.n; i++) {
		w->lock[i] = lock_edge(an, &e[i]);
		w->in_off[e[i].to + 1]++;
		w->out_off[e[i].from + 1]++;
		w->pending[e[i].to]++;
	}
	for (uint32_t i = 0; i < n; i++) {
		w->in_off[i + 1] += w->in_off[i];
		w->out_off[i + 1] += w->out_off[i];
	}
	return 0;
}

/* out[]: edge indices grouped by source, in the order of in_off's counting. */
static int walk_fill_out(struct analysis *an, struct walk *w)
{
	const struct an_edge *e = an->edges.v;
	uint32_t *fill = calloc(an->nev + 1, sizeof(*fill));

	if (!fill)
		return -ENOMEM;
	for (size_t i = 0; i < an->edges.n; i++)
		w->out[w->out_off[e[i].from] + fill[e[i].from]++] = i;
	free(fill);
	return 0;
}

static void walk_free(struct walk *w)
{
	free(w->cur);
	free(w->in_off);
	free(w->out_off);
	free(w->out);
	free(w->pending);
	free(w->snap);
	free(w->pool);
	free(w->drop);
	free(w->lock);
	free(w->head);
}

static const uint32_t *clock_of(const struct walk *w, uint32_t ev)
{
	return w->snap[ev] == UINT64_MAX ? NULL : w->pool + w->snap[ev];
}

/* Is edge k (s -> e) implied by the thread's own past or by another kept edge? */
static bool implied(struct analysis *an, struct walk *w, const uint32_t *cur, uint32_t k,
		    uint32_t lo, uint32_t hi)
{
	const struct an_edge *e = an->edges.v;
	uint32_t st = an->ev[e[k].from].tidx, sp = an->ev[e[k].from].pos + 1;

	if (cur[st] >= sp)
		return true;
	for (uint32_t j = lo; j < hi; j++) {
		const uint32_t *c = clock_of(w, e[j].from);

		if (j != k && !w->drop[j] && !w->lock[j] && c && c[st] >= sp)
			return true;
	}
	return false;
}

static int save_clock(struct walk *w, uint32_t ev, const uint32_t *cur)
{
	if (w->npool + w->nthr > w->cappool) {
		size_t cap = w->cappool ? w->cappool * 2 : 4096;
		uint32_t *p;

		while (cap < w->npool + w->nthr)
			cap *= 2;
		p = realloc(w->pool, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		w->pool = p;
		w->cappool = cap;
	}
	memcpy(w->pool + w->npool, cur, w->nthr * sizeof(*cur));
	w->snap[ev] = w->npool;
	w->npool += w->nthr;
	return 0;
}

static int visit(struct analysis *an, struct walk *w, uint32_t ev)
{
	const struct an_edge *e = an->edges.v;
	uint32_t u = an->ev[ev].tidx, lo = w->in_off[ev], hi = w->in_off[ev + 1];
	uint32_t *cur = w->cur + (size_t)u * w->nthr;

	for (uint32_t k = lo; k < hi; k++) {
		if (w->drop[k] || !implied(an, w, cur, k, lo, hi))
			continue;
		w->drop[k] = 1;
		an->edges_reduced++;
	}
	for (uint32_t k = lo; k < hi; k++) {
		const uint32_t *c = clock_of(w, e[k].from);

		if (w->drop[k] || w->lock[k] || !c)
			continue;
		for (uint32_t t = 0; t < w->nthr; t++)
			if (c[t] > cur[t])
				cur[t] = c[t];
	}
	cur[u] = an->ev[ev].pos + 1;
	if (w->out_off[ev] == w->out_off[ev + 1])
		return 0;
	for (uint32_t k = w->out_off[ev]; k < w->out_off[ev + 1]; k++)
		w->pending[e[w->out[k]].to]--;
	return save_clock(w, ev, cur);
}

static bool walked(const struct analysis *an, const struct walk *w, uint32_t ev)
{
	return an->ev[ev].pos < w->head[an->ev[ev].tidx];
}

/* No thread can move: a cycle.  Free the earliest stuck call by dropping its unmet edges. */
static uint32_t break_cycle(struct analysis *an, struct walk *w)
{
	uint32_t best = AN_NONE, bt = AN_NONE;

	for (uint32_t t = 0; t < w->nthr; t++) {
		const struct an_thread *th = an__thread(an, t);

		if (w->head[t] < th->nev &&
		    (best == AN_NONE || an->ev[th->ev[w->head[t]]].ts < an->ev[best].ts)) {
			best = th->ev[w->head[t]];
			bt = t;
		}
	}
	if (best == AN_NONE)
		return AN_NONE;
	for (uint32_t k = w->in_off[best]; k < w->in_off[best + 1]; k++) {
		if (w->drop[k] || walked(an, w, ((struct an_edge *)an->edges.v)[k].from))
			continue;
		w->drop[k] = 1;
		w->pending[best]--;
		an->edges_time++;
	}
	return bt;
}

static int run_thread(struct analysis *an, struct walk *w, uint32_t t, uint32_t *stack,
		      uint32_t *nstack, uint8_t *queued)
{
	const struct an_thread *th = an__thread(an, t);
	const struct an_edge *e = an->edges.v;

	queued[t] = 0;
	while (w->head[t] < th->nev && !w->pending[th->ev[w->head[t]]]) {
		uint32_t ev = th->ev[w->head[t]];
		int err = visit(an, w, ev);

		if (err)
			return err;
		w->head[t]++;
		for (uint32_t k = w->out_off[ev]; k < w->out_off[ev + 1]; k++) {
			uint32_t to = e[w->out[k]].to, tt = an->ev[to].tidx;

			if (!w->pending[to] && !queued[tt] && an->ev[to].pos == w->head[tt]) {
				queued[tt] = 1;
				stack[(*nstack)++] = tt;
			}
		}
	}
	return 0;
}

static int topo_walk(struct analysis *an, struct walk *w)
{
	uint32_t *stack = malloc((w->nthr + 1) * sizeof(*stack)), n = 0, done = 0;
	uint8_t *queued = calloc(w->nthr + 1, 1);
	int err = 0;

	if (!stack || !queued) {
		err = -ENOMEM;
		goto out;
	}
	for (uint32_t t = 0; t < w->nthr; t++) {
		queued[t] = 1;
		stack[n++] = t;
	}
	while (!err) {
		while (!err && n)
			err = run_thread(an, w, stack[--n], stack, &n, queued);
		for (done = 0; done < w->nthr; done++)
			if (w->head[done] < an__thread(an, done)->nev)
				break;
		if (err || done == w->nthr)
			break;
		stack[n++] = break_cycle(an, w);
		queued[stack[n - 1]] = 1;
	}
out:
	free(stack);
	free(queued);
	return err;
}

/* Kept edges become deps, grouped by target. */
static int build_deps(struct analysis *an, const struct walk *w)
{
	const struct an_edge *e = an->edges.v;

	an->dep_off = calloc(an->nev + 2, sizeof(*an->dep_off));
	if (!an->dep_off)
		return -ENOMEM;
	for (size_t k = 0; w && k < an->edges.n; k++) {
		struct an_edge *d;

		if (w->drop[k])
			continue;
		d = an_vec__push(&an->deps);
		if (!d)
			return -ENOMEM;
		*d = e[k];
		an->dep_off[e[k].to + 1]++;
		an->edge_count[e[k].kind]++;
	}
	for (uint32_t i = 0; i < an->nev; i++)
		an->dep_off[i + 1] += an->dep_off[i];
	return 0;
}

int an__reduce(struct analysis *an, bool cross_thread)
{
	struct walk w = { 0 };
	int err;

	if (!cross_thread || !an->edges.n)
		return build_deps(an, NULL);
	prefilter(an);
	err = walk_init(an, &w);
	if (!err)
		err = walk_fill_out(an, &w);
	if (!err)
		err = topo_walk(an, &w);
	if (!err)
		err = build_deps(an, &w);
	walk_free(&w);
	an_vec__free(&an->edges);
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The clock offset estimator (clockfit.h).  For hosts a and b with offsets
 * oa and ob, an edge from a to b says recv_end + ob >= send_begin + oa, so
 * ob - oa >= send_begin - recv_end: a lower bound.  An edge from b to a gives
 * an upper bound on the same difference.  Hosts are aligned outward from
 * host 0, along two-sided bounds first, then one-sided, then realtime alone;
 * then each is held within the bounds of all the others.
 */
#include <errno.h>
#include <stdlib.h>

#include "analyze/clockfit.h"

#define NO_BOUND INT64_MIN

struct fit {
	uint32_t n;
	int64_t *lo; /* lo[a * n + b]: the largest lower bound on ob - oa, or NO_BOUND */
};

static int64_t *lo_at(const struct fit *f, uint32_t a, uint32_t b)
{
	return &f->lo[(size_t)a * f->n + b];
}

static void fit__add(struct fit *f, const struct cf_obs *o)
{
	int64_t *lo;

	if (o->from >= f->n || o->to >= f->n || o->from == o->to)
		return;
	lo = lo_at(f, o->from, o->to);
	if (o->send_begin - o->recv_end > *lo)
		*lo = o->send_begin - o->recv_end;
}

/* The realtime estimate of ob - oa, or 0 when either host has none. */
static int64_t rt_diff(const struct cf_host *a, const struct cf_host *b)
{
	if (!a->have_rt || !b->have_rt)
		return 0;
	/* the same instant reads rt_offset + mono on every host */
	return b->rt_offset - a->rt_offset;
}

/* Aligns b against the aligned host a at the quality asked for; true when done. */
static bool align(const struct fit *f, struct cf_host *h, uint32_t a, uint32_t b, enum cf_src want)
{
	int64_t lo = *lo_at(f, a, b), up = *lo_at(f, b, a);
	int64_t hi = up == NO_BOUND ? 0 : -up, d = rt_diff(&h[a], &h[b]);
	bool has_lo = lo != NO_BOUND, has_hi = up != NO_BOUND;

	if (want == CF_EDGES && has_lo && has_hi) {
		d = lo + (hi - lo) / 2;
		h[b].residual = (hi - lo) / 2;
	} else if (want == CF_ONE_SIDED && (has_lo || has_hi)) {
		if (has_lo && d < lo)
			d = lo;
		if (has_hi && d > hi)
			d = hi;
		h[b].residual = -1;
	} else if (want == CF_REALTIME && h[a].have_rt && h[b].have_rt) {
		h[b].residual = -1;
	} else if (want == CF_NONE) {
		h[b].residual = -1;
	} else {
		return false;
	}
	h[b].offset = h[a].offset + d;
	h[b].src = want;
	h[b].via = a;
	return true;
}

/* One sweep at one quality: every unaligned host next to an aligned one,
 * appended to SEQ (*NSEQ of them) as it is. */
static bool sweep(const struct fit *f, struct cf_host *h, bool *done, enum cf_src want,
		  uint32_t *seq, uint32_t *nseq)
{
	bool any = false;

	for (uint32_t b = 0; b < f->n; b++)
		for (uint32_t a = 0; !done[b] && a < f->n; a++)
			if (done[a] && align(f, h, a, b, want)) {
				any = done[b] = true;
				seq[(*nseq)++] = b;
			}
	return any;
}

static bool bounded(const struct cf_host *h)
{
	return h->src == CF_REF || h->src == CF_EDGES || h->src == CF_ONE_SIDED;
}

/*
 * Host b within the bounds of every bounded host placed before it, not just
 * of the one it was aligned against: with three hosts in a ring (MPI ranks)
 * the edges between two leaves could otherwise run backwards in time, and
 * the merge would drop them. The midpoint of all the bounds, or the
 * estimate held within them when they are one-sided; left alone when they
 * do not meet.
 */
static void place(const struct fit *f, struct cf_host *h, const uint32_t *seq, uint32_t i)
{
	uint32_t b = seq[i];
	int64_t lo = INT64_MIN, hi = INT64_MAX;

	for (uint32_t k = 0; k < i; k++) {
		uint32_t a = seq[k];
		int64_t l = *lo_at(f, a, b), u = *lo_at(f, b, a);

		if (!bounded(&h[a]))
			continue;
		if (l != NO_BOUND && h[a].offset + l > lo)
			lo = h[a].offset + l;
		if (u != NO_BOUND && h[a].offset - u < hi)
			hi = h[a].offset - u;
	}
	if (lo > hi)
		return;
	if (lo != INT64_MIN && hi != INT64_MAX) {
		h[b].offset = lo + (hi - lo) / 2;
		h[b].residual = (hi - lo) / 2;
	} else if (h[b].offset < lo) {
		h[b].offset = lo;
	} else if (h[b].offset > hi) {
		h[b].offset = hi;
	}
}

static bool contradiction(const struct fit *f, uint32_t *bad_a, uint32_t *bad_b)
{
	for (uint32_t a = 0; a < f->n; a++)
		for (uint32_t b = a + 1; b < f->n; b++) {
			int64_t lo = *lo_at(f, a, b), up = *lo_at(f, b, a);

			if (lo != NO_BOUND && up != NO_BOUND && lo > -up) {
				*bad_a = a;
				*bad_b = b;
				return true;
			}
		}
	return false;
}

int clockfit__solve(const struct cf_obs *obs, size_t n_obs, struct cf_host *hosts, uint32_t n,
		    uint32_t *bad_a, uint32_t *bad_b)
{
	static const enum cf_src order[] = { CF_EDGES, CF_ONE_SIDED, CF_REALTIME, CF_NONE };
	struct fit f = { .n = n };
	uint32_t *seq = NULL, nseq = 1;
	bool *done;
	int err = 0;

	if (!n)
		return 0;
	f.lo = malloc((size_t)n * n * sizeof(*f.lo));
	done = calloc(n, sizeof(*done));
	seq = calloc(n, sizeof(*seq));
	if (!f.lo || !done || !seq) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < (size_t)n * n; i++)
		f.lo[i] = NO_BOUND;
	for (size_t i = 0; i < n_obs; i++)
		fit__add(&f, &obs[i]);
	if (contradiction(&f, bad_a, bad_b)) {
		err = -EDOM;
		goto out;
	}
	hosts[0] = (struct cf_host){ .have_rt = hosts[0].have_rt,
				     .rt_offset = hosts[0].rt_offset,
				     .src = CF_REF };
	done[0] = true;
	/* the best quality first, everywhere it reaches, before any worse one */
	for (size_t q = 0; q < sizeof(order) / sizeof(order[0]); q++)
		while (sweep(&f, hosts, done, order[q], seq, &nseq))
			q = 0;
	for (uint32_t i = 1; i < nseq; i++)
		if (hosts[seq[i]].src == CF_EDGES || hosts[seq[i]].src == CF_ONE_SIDED)
			place(&f, hosts, seq, i);
out:
	free(seq);
	free(f.lo);
	free(done);
	return err;
}

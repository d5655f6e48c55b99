// SPDX-License-Identifier: GPL-2.0
/*
 * The clock offset estimator (clockfit.h).  For hosts a and b with offsets
 * oa and ob, an edge from a to b says recv_end + ob >= send_begin + oa, so
 * ob - oa >= send_begin - recv_end: a lower bound.  An edge from b to a gives
 * an upper bound on the same difference.  Hosts are aligned outward from
 * host 0, along two-sided bounds first, then one-sided, then realtime alone.
 * With three or more hosts bounded two-sided, the bounds may form cycles
 * (a-b, b-c and c-a): the offsets are then refined to agree best with the
 * midpoints of every pair's bounds, not only of the tree's (refine()), and
 * each is then held within the bounds of all the others (place()).
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
 * Host b within the bounds of every bounded host placed before it: the
 * midpoints a fit agrees with best can still leave a receive ending before
 * its send began (a wide pair's midpoint outweighing a tight pair's bound),
 * and the merge would drop that edge. An offset outside the bounds moves to
 * their midpoint, or to the bound when they are one-sided; left alone when
 * the bounds do not meet.
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
	if (lo > hi || (h[b].offset >= lo && h[b].offset <= hi))
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

/* Pair a-b's two-sided bounds on ob - oa: their midpoint and half-width. */
static bool pair_mid(const struct fit *f, uint32_t a, uint32_t b, int64_t *mid, int64_t *half)
{
	int64_t lo = *lo_at(f, a, b), up = *lo_at(f, b, a);

	if (lo == NO_BOUND || up == NO_BOUND)
		return false;
	*half = (-up - lo) / 2;
	*mid = lo + *half;
	return true;
}

static double dabs(double v)
{
	return v < 0 ? -v : v;
}

/* Solves a x = r for x (k unknowns, a row-major), by Gaussian elimination
 * with partial pivoting; false when singular. */
static bool gauss(double *a, double *r, double *x, uint32_t k)
{
	for (uint32_t c = 0; c < k; c++) {
		uint32_t piv = c;

		for (uint32_t i = c + 1; i < k; i++)
			if (dabs(a[i * k + c]) > dabs(a[piv * k + c]))
				piv = i;
		if (dabs(a[piv * k + c]) < 1e-12)
			return false;
		for (uint32_t j = 0; piv != c && j < k; j++) {
			double t = a[c * k + j];

			a[c * k + j] = a[piv * k + j];
			a[piv * k + j] = t;
		}
		if (piv != c) {
			double t = r[c];

			r[c] = r[piv];
			r[piv] = t;
		}
		for (uint32_t i = c + 1; i < k; i++) {
			double m = a[i * k + c] / a[c * k + c];

			for (uint32_t j = c; j < k; j++)
				a[i * k + j] -= m * a[c * k + j];
			r[i] -= m * r[c];
		}
	}
	for (uint32_t c = k; c-- > 0;) {
		double v = r[c];

		for (uint32_t j = c + 1; j < k; j++)
			v -= a[c * k + j] * x[j];
		x[c] = v / a[c * k + c];
	}
	return true;
}

/* The weighted normal equations of the corrections to the tree's offsets,
 * host 0 (index 0 of the hosts aligned by edges) held at 0: each pair pulls
 * ob - oa towards its midpoint, the tighter its bounds the harder. */
static void refine_system(const struct fit *f, const struct cf_host *h, const uint32_t *idx,
			  double *a, double *r)
{
	uint32_t k = f->n;

	for (uint32_t x = 0; x < f->n; x++)
		for (uint32_t y = x + 1; y < f->n; y++) {
			int64_t mid, half;
			double w, d;

			if (idx[x] == UINT32_MAX || idx[y] == UINT32_MAX ||
			    !pair_mid(f, x, y, &mid, &half))
				continue;
			w = 1.0 / (1.0 + ((double)half / 1000.0) * ((double)half / 1000.0));
			d = (double)(mid - (h[y].offset - h[x].offset));
			if (idx[x]) {
				a[(idx[x] - 1) * k + idx[x] - 1] += w;
				r[idx[x] - 1] -= w * d;
			}
			if (idx[y]) {
				a[(idx[y] - 1) * k + idx[y] - 1] += w;
				r[idx[y] - 1] += w * d;
			}
			if (idx[x] && idx[y]) {
				a[(idx[x] - 1) * k + idx[y] - 1] -= w;
				a[(idx[y] - 1) * k + idx[x] - 1] -= w;
			}
		}
}

/* A host's residual: over its pairs, the tightest of how far its offset may
 * be from the truth, if the truth is within the pair's bounds. */
static void refine_residuals(const struct fit *f, struct cf_host *h, const uint32_t *idx)
{
	for (uint32_t y = 1; y < f->n; y++) {
		int64_t best = INT64_MAX;

		for (uint32_t x = 0; idx[y] != UINT32_MAX && x < f->n; x++) {
			uint32_t lo = x < y ? x : y, hi = x < y ? y : x;
			int64_t mid, half, e;

			if (x == y || idx[x] == UINT32_MAX || !pair_mid(f, lo, hi, &mid, &half))
				continue;
			e = h[hi].offset - h[lo].offset - mid;
			e = (e < 0 ? -e : e) + half;
			if (e < best) {
				best = e;
				h[y].via = x;
			}
		}
		if (best != INT64_MAX)
			h[y].residual = best;
	}
}

/*
 * Least squares over every two-sided pair among the hosts aligned by edges,
 * instead of the spanning tree's pairs alone: with a cycle of bounds, each
 * pair's midpoint has a say.  Solved for corrections to the tree's offsets,
 * which are small, so that doubles keep nanoseconds however far apart the
 * clocks are.  The result may leave a pair's bounds when the bounds of a
 * cycle disagree; the residual then says how far.
 */
static int refine(const struct fit *f, struct cf_host *h)
{
	uint32_t *idx = malloc(f->n * sizeof(*idx)), k = 0;
	double *a = calloc((size_t)f->n * f->n, sizeof(*a));
	double *r = calloc(f->n, sizeof(*r)), *x = calloc(f->n, sizeof(*x));
	int err = idx && a && r && x ? 0 : -ENOMEM;

	for (uint32_t i = 0; !err && i < f->n; i++)
		idx[i] = h[i].src == CF_REF || h[i].src == CF_EDGES ? k++ : UINT32_MAX;
	/* k - 1 unknowns in a system laid out f->n wide */
	if (!err && k > 2) {
		refine_system(f, h, idx, a, r);
		for (uint32_t i = 0; i + 1 < k; i++)
			for (uint32_t j = 0; j + 1 < k; j++)
				a[i * (k - 1) + j] = a[i * f->n + j];
		if (gauss(a, r, x, k - 1)) {
			for (uint32_t i = 1; i < f->n; i++)
				if (idx[i] != UINT32_MAX && idx[i])
					h[i].offset += (int64_t)(x[idx[i] - 1] +
								 (x[idx[i] - 1] < 0 ? -0.5 : 0.5));
			refine_residuals(f, h, idx);
		}
	}
	free(idx);
	free(a);
	free(r);
	free(x);
	return err;
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
	err = refine(&f, hosts);
	for (uint32_t i = 1; !err && i < nseq; i++)
		if (hosts[seq[i]].src == CF_EDGES || hosts[seq[i]].src == CF_ONE_SIDED)
			place(&f, hosts, seq, i);
out:
	free(seq);
	free(f.lo);
	free(done);
	return err;
}

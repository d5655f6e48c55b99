// SPDX-License-Identifier: GPL-2.0
/*
 * Barrier edges: a collective that an untraced coordinator completes.
 *
 * Each host of an MPI job sends its daemon (orted, the PMIx server: a
 * process outside the job's traces) a fence request, and blocks until the
 * daemon answers; the daemons answer every host once the last host's request
 * is in.  No traced byte goes from one host to another, so the data rule
 * sees nothing, and each host's wait is one the trace cannot explain.  Its
 * shape in time gives it away: every host waited for an answer on a
 * connection to an outside peer, right after sending on it; every host had
 * sent before any answer came; and the answers came to all hosts within a
 * window.  So each host's wait follows every other host's request, and a
 * replay where the hosts arrive in another order waits for the last of
 * them, as the application did, instead of the recorded time.  The waits
 * are those in progress when the last request came in, one on every host
 * of the job: with a host missing, or with two such waits, nothing says
 * which waits are the collective's.  A host that asked its daemon something
 * else while the others waited, and had its answer before it asked for the
 * fence, is not in it however near that answer came to theirs.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>

#include "analyze/an.h"
#include "lib/record.h"

/*
 * The answers of one collective reach the hosts within this of each other.
 * The daemons relay the answer, one to another and each to its own hosts:
 * where they share the CPUs with the job and its recorders, the last host
 * heard milliseconds after the first.
 */
#define BARRIER_WINDOW_NS 20000000ull
/* The request is at most this many calls before the wait. */
#define BARRIER_LOOKBACK 16

struct cand {
	uint32_t wait, req, host;
	uint16_t nr;		  /* the wait's call */
	uint64_t arrive, release; /* the request's end, the answer's wakeup */
	bool taken;		  /* by a collective */
};

/* The socket inode of the call's fd, when it is a socket outside the job's
 * matched connections; 0 otherwise. */
static uint64_t outside_sock(const struct analysis *an, uint32_t id)
{
	const struct iot_fd *f;
	struct sc_view v;

	if (sc_view__parse(&an__rec(an, id)->hdr, &v) || !(f = sc_view__fd(&v, 0)) ||
	    f->ftype != IOT_FT_SOCK || an__xhost_owns(an, id))
		return 0;
	return f->ino;
}

static bool is_recv(uint16_t nr)
{
	return nr == SYS_read || nr == SYS_readv || nr == SYS_recvfrom || nr == SYS_recvmsg;
}

static bool is_send(uint16_t nr)
{
	return nr == SYS_write || nr == SYS_writev || nr == SYS_sendto || nr == SYS_sendmsg;
}

/*
 * When the answer came: the last wakeup of the waiting thread inside its wait
 * (a job's scheduler records are in one time order), or the wait's end.  A
 * rank its daemon's answer woke may then wait for a CPU, milliseconds where
 * its ranks and recorders share two: the wakeup is when the answer came.
 * Looked for back from the wait's end, where it is.
 */
static uint64_t answered(const struct analysis *an, const struct an_thread *th, uint32_t w)
{
	const struct an_side *s = an->side.v;
	uint64_t from = an->ev[w].ts, end = an__end(an, w);
	size_t lo = 0, hi = an->side.n;

	while (lo < hi) { /* the first record after the end */
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].ts <= end)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0 && s[lo].ts >= from)
		if (s[lo].type == IOT_REC_WAKEUP && s[lo].trace == th->trace &&
		    s[lo].tid == th->tid)
			return s[lo].ts;
	return end;
}

/* The wait at position k of thread t, when it is one: its request. */
static bool candidate(const struct analysis *an, uint32_t t, uint32_t k, struct cand *c)
{
	const struct an_thread *th = an__thread(an, t);
	uint32_t w = th->ev[k], r = w, stop = k > BARRIER_LOOKBACK ? k - BARRIER_LOOKBACK : 0;
	uint64_t ino;

	if (!(an->evflags[w] & EVF_BLOCKED_UNX))
		return false;
	/* the answer: the wait itself, a blocking receive, or the receive after it */
	if (!is_recv(an__rec(an, r)->nr) && k + 1 < th->nev)
		r = th->ev[k + 1];
	if (!is_recv(an__rec(an, r)->nr) || an__rec(an, r)->ret <= 0 ||
	    !(ino = outside_sock(an, r)))
		return false;
	while (k-- > stop) {
		uint32_t id = th->ev[k];
		uint16_t nr = an__rec(an, id)->nr;

		if (!is_send(nr) && !is_recv(nr))
			continue;
		if (outside_sock(an, id) != ino)
			continue;
		if (is_recv(nr) || an__rec(an, id)->ret <= 0)
			return false; /* an answer came before: no request outstanding */
		*c = (struct cand){ .wait = w,
				    .req = id,
				    .host = th->host,
				    .nr = an__rec(an, w)->nr,
				    .arrive = an__end(an, id),
				    .release = answered(an, th, w) };
		return true;
	}
	return false;
}

static int by_release(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	return x->release < y->release ? -1 : x->release > y->release;
}

/* The first candidate answered at or after t. */
static size_t answered_from(const struct cand *c, size_t n, uint64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c[mid].release < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The collective that x's request came last to, its members in m (one a
 * host): on every host, the one wait in progress when that request was in
 * (asked before it, answered after), the same call as x's (one collective
 * is the same code on every host), their answers within the window of each
 * other.  None when a host has no such wait, or two (which was the
 * collective's?), or one a collective whose last request came later took:
 * a host that asked its daemon something else in the meantime, and had its
 * answer, while the others waited, is no member.  Nor are the ranks'
 * handshakes with their own daemons, though they may overlap: one rank's
 * main thread blocked in recvfrom for its answer while the others'
 * progress threads waited in epoll_wait for theirs.
 */
static bool collective(struct cand *c, size_t n, const struct cand *x, uint32_t nhosts,
		       struct cand **m)
{
	uint64_t t = x->arrive, lo, hi;
	uint32_t got = 0;

	if (x->release <= t)
		return false;
	lo = x->release > t + BARRIER_WINDOW_NS ? x->release - BARRIER_WINDOW_NS : t + 1;
	hi = x->release + BARRIER_WINDOW_NS;
	for (uint32_t h = 0; h < nhosts; h++)
		m[h] = NULL;
	for (size_t j = answered_from(c, n, lo); j < n && c[j].release <= hi; j++) {
		if (c[j].arrive > t || c[j].nr != x->nr)
			continue;
		if (c[j].host >= nhosts || m[c[j].host] || c[j].taken)
			return false;
		m[c[j].host] = &c[j];
		got++;
	}
	if (got != nhosts)
		return false;
	lo = UINT64_MAX;
	hi = 0;
	for (uint32_t h = 0; h < nhosts; h++) {
		lo = m[h]->release < lo ? m[h]->release : lo;
		hi = m[h]->release > hi ? m[h]->release : hi;
	}
	return hi - lo <= BARRIER_WINDOW_NS;
}

static int barrier_edges(struct analysis *an, struct cand **m, uint32_t nhosts)
{
	for (uint32_t a = 0; a < nhosts; a++) {
		for (uint32_t b = 0; b < nhosts; b++) {
			int err;

			if (b != a &&
			    (err = an__edge(an, m[b]->req, m[a]->wait, AN_RULE_BARRIER, 0)))
				return err;
		}
		m[a]->taken = true;
		/* explained now */
		an->evflags[m[a]->wait] &= ~EVF_BLOCKED_UNX;
		an->blocked_unexplained--;
	}
	return 0;
}

/* A candidate, by when its request was in */
struct req_order {
	uint64_t arrive;
	size_t i;
};

/* Latest first */
static int by_arrive_desc(const void *a, const void *b)
{
	const struct req_order *x = a, *y = b;

	return x->arrive > y->arrive ? -1 : x->arrive < y->arrive;
}

int an__barrier(struct analysis *an)
{
	uint32_t nhosts = an->hosts.n;
	struct req_order *order = NULL;
	struct cand *c, **m;
	size_t n = 0;
	int err = 0;

	if (!an->multi || nhosts < 2 || !(an->opts.rules & (1u << AN_RULE_BARRIER)))
		return 0;
	c = malloc((an->blocked_unexplained + 1) * sizeof(*c));
	m = calloc(nhosts, sizeof(*m));
	if (!c || !m)
		goto nomem;
	for (uint32_t t = 0; t < an->threads.n; t++)
		for (uint32_t k = 0; k < an__thread(an, t)->nev && n <= an->blocked_unexplained;
		     k++)
			n += candidate(an, t, k, &c[n]);
	qsort(c, n, sizeof(*c), by_release);
	order = malloc((n + 1) * sizeof(*order));
	if (!order)
		goto nomem;
	for (size_t i = 0; i < n; i++)
		order[i] = (struct req_order){ .arrive = c[i].arrive, .i = i };
	/* the collective a later request came last to first: see collective() */
	qsort(order, n, sizeof(*order), by_arrive_desc);
	for (size_t k = 0; !err && k < n; k++)
		if (!c[order[k].i].taken && collective(c, n, &c[order[k].i], nhosts, m))
			err = barrier_edges(an, m, nhosts);
	free(order);
	free(c);
	free(m);
	return err;
nomem:
	free(c);
	free(m);
	return -ENOMEM;
}

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
 * connection to an outside peer, right after sending on it; the answers
 * came to all hosts within a short window; and every host had sent before
 * any answer came.  So each host's wait follows every other host's request,
 * and a replay where the hosts arrive in another order waits for the last
 * of them, as the application did, instead of the recorded time.  Only when
 * every host of the job takes part, one wait each: with a host missing or
 * twice in the window, nothing says which waits are the collective's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>

#include "analyze/an.h"
#include "lib/record.h"

/* The answers of one collective reach the hosts within this of each other. */
#define BARRIER_WINDOW_NS 2000000ull
/* The request is at most this many calls before the wait. */
#define BARRIER_LOOKBACK 16

struct cand {
	uint32_t wait, req, host;
	uint64_t arrive, release; /* the request's end, the answer's wakeup */
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

/* The candidates from i that form one collective: how many, or 0. */
static size_t collective(const struct cand *c, size_t n, size_t i, uint32_t nhosts, uint8_t *seen)
{
	uint64_t last_arrive = 0;
	size_t j;

	for (uint32_t h = 0; h < nhosts; h++)
		seen[h] = 0;
	for (j = i; j < n && c[j].release - c[i].release <= BARRIER_WINDOW_NS; j++) {
		if (c[j].host >= nhosts || seen[c[j].host]++)
			return 0; /* a host twice: which wait is the collective's? */
		if (c[j].arrive > last_arrive)
			last_arrive = c[j].arrive;
	}
	/* every host, and every request in before the first answer */
	if (j - i != nhosts || last_arrive >= c[i].release)
		return 0;
	return j - i;
}

static int barrier_edges(struct analysis *an, const struct cand *c, size_t n)
{
	for (size_t a = 0; a < n; a++) {
		for (size_t b = 0; b < n; b++) {
			int err;

			if (b != a && (err = an__edge(an, c[b].req, c[a].wait, AN_RULE_BARRIER, 0)))
				return err;
		}
		/* explained now */
		an->evflags[c[a].wait] &= ~EVF_BLOCKED_UNX;
		an->blocked_unexplained--;
	}
	return 0;
}

int an__barrier(struct analysis *an)
{
	uint32_t nhosts = an->hosts.n;
	struct cand *c;
	uint8_t *seen;
	size_t n = 0;
	int err = 0;

	if (!an->multi || nhosts < 2 || !(an->opts.rules & (1u << AN_RULE_BARRIER)))
		return 0;
	c = malloc((an->blocked_unexplained + 1) * sizeof(*c));
	seen = calloc(nhosts, 1);
	if (!c || !seen) {
		free(c);
		free(seen);
		return -ENOMEM;
	}
	for (uint32_t t = 0; t < an->threads.n; t++)
		for (uint32_t k = 0; k < an__thread(an, t)->nev && n <= an->blocked_unexplained;
		     k++)
			n += candidate(an, t, k, &c[n]);
	qsort(c, n, sizeof(*c), by_release);
	for (size_t i = 0; !err && i < n;) {
		size_t m = collective(c, n, i, nhosts, seen);

		err = m ? barrier_edges(an, &c[i], m) : 0;
		i += m ? m : 1;
	}
	free(c);
	free(seen);
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * TCP connections across the hosts of a job.  Each socket end is known by
 * its input and inode, its 4-tuple from the first call that carried one (so
 * a connection open at the attach is matched too); two ends on different
 * hosts whose tuples mirror each other are one connection.  Every send and
 * receive names the bytes it covered by the kernel's sequence numbers, the
 * same on both ends, so the send that wrote bytes [x, y) precedes each
 * receive that took any of them, whatever the clocks say; those pairs give
 * the clock offsets (clockfit.c) before the events are put in time order.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <jansson.h>

#include "analyze/an.h"
#include "analyze/clockfit.h"
#include "analyze/xhost.h"
#include "lib/log.h"
#include "lib/record.h"
#include "lib/syscalls.h"

struct xend { /* one end of a TCP connection */
	uint8_t laddr[16], raddr[16];
	uint16_t lport, rport;
	uint32_t netns, input, host;
	uint32_t conn, next; /* matched connection; next end of the same tuple hash */
	uint64_t ino;
	uint64_t first, last; /* its calls' span, own clock */
	bool client, server;  /* a connect, an accept seen on it */
};

struct xio {	      /* a send or a receive of a TCP end */
	uint64_t rec; /* arena offset: outlives the sort of the events */
	uint64_t ts, end;
	uint32_t xend, conn; /* conn: AN_NONE off any matched connection */
	uint32_t lo, hi;     /* sequence numbers [lo, hi) */
	uint64_t s0;	     /* stream offset of lo */
	uint8_t send, dir;
};

struct xpair {
	uint64_t from, to; /* arena offsets of the send and the receive */
	uint32_t bytes;
};

static struct xhost *xh(const struct analysis *an)
{
	return an->xhost;
}

static uint64_t tuple_hash(const uint8_t *la, uint16_t lp, const uint8_t *ra, uint16_t rp)
{
	uint8_t k[36];

	memcpy(k, la, 16);
	memcpy(k + 16, ra, 16);
	memcpy(k + 32, &lp, 2);
	memcpy(k + 34, &rp, 2);
	return hash64(k, sizeof(k));
}

static bool is_tcp(const struct iot_sock *s)
{
	return (s->family == AF_INET || s->family == AF_INET6) && s->type == SOCK_STREAM;
}

static uint32_t end_get(struct analysis *an, const struct iot_sock *s, uint32_t input,
			uint32_t host)
{
	struct xhost *x = xh(an);
	uint64_t key = hash64((uint64_t[2]){ input, s->ino }, 16);
	uint32_t i = htab__get(&x->end_idx, key);
	struct xend *e;

	if (i != AN_NONE)
		return i;
	e = an_vec__push(&x->ends);
	if (!e || htab__set(&x->end_idx, key, x->ends.n - 1))
		return AN_NONE;
	*e = (struct xend){
		.input = input, .host = host, .ino = s->ino, .conn = AN_NONE, .first = UINT64_MAX
	};
	return x->ends.n - 1;
}

/* The bytes a call moved, [tcp_seq - ret, tcp_seq) after it, when the record says. */
static int io_add(struct analysis *an, uint32_t id, const struct sc_view *v, uint32_t ei)
{
	uint32_t lo, hi;
	struct xio *io;
	bool sent;

	if (!sc_view__tcp_range(v, &lo, &hi, &sent) || hi - lo > UINT32_MAX / 2)
		return 0;
	io = an_vec__push(&xh(an)->ios);
	if (!io)
		return -ENOMEM;
	*io = (struct xio){ .rec = an->ev[id].rec,
			    .ts = an->ev[id].ts,
			    .end = an__end(an, id),
			    .xend = ei,
			    .conn = AN_NONE,
			    .lo = lo,
			    .hi = hi,
			    .send = sent };
	return 0;
}

static int note_call(struct analysis *an, uint32_t id)
{
	const struct iot_syscall *sc = an__rec(an, id);
	const struct an_thread *t = an__thread(an, an->ev[id].tidx);
	const struct iot_sock *s;
	struct sc_view v;
	struct xend *e;
	uint32_t ei;

	if (!(sc->flags & IOT_SCF_SOCK) || sc_view__parse(&sc->hdr, &v) || !(s = v.sock) ||
	    !is_tcp(s) || !s->ino)
		return 0;
	ei = end_get(an, s, t->trace, t->host);
	if (ei == AN_NONE || htab__set(&xh(an)->rec_end, an->ev[id].rec, ei))
		return -ENOMEM;
	e = an_vec__at(&xh(an)->ends, ei);
	if (!e->rport && s->rport) {
		memcpy(e->laddr, s->laddr, 16);
		memcpy(e->raddr, s->raddr, 16);
		e->lport = s->lport;
		e->rport = s->rport;
		e->netns = s->netns;
	}
	e->first = an->ev[id].ts < e->first ? an->ev[id].ts : e->first;
	e->last = an__end(an, id) > e->last ? an__end(an, id) : e->last;
	e->client |= sc->nr == SYS_connect;
	e->server |= (sc->nr == SYS_accept || sc->nr == SYS_accept4) && sc->ret >= 0;
	return io_add(an, id, &v, ei);
}

static bool loopback(const uint8_t *a)
{
	static const uint8_t v6[16] = { [15] = 1 };

	return a[0] == 127 || !memcmp(a, v6, 16);
}

/* Two ends can be one connection: tuples mirrored, on two hosts, and a loopback
 * connection never leaves its kernel and namespace. */
static bool can_pair(const struct analysis *an, const struct xend *a, const struct xend *b)
{
	const struct an_input *ia = an_vec__at(&an->inputs, a->input);
	const struct an_input *ib = an_vec__at(&an->inputs, b->input);

	if (a->host == b->host || b->conn != AN_NONE || a->lport != b->rport ||
	    a->rport != b->lport || memcmp(a->laddr, b->raddr, 16) ||
	    memcmp(a->raddr, b->laddr, 16))
		return false;
	if (!loopback(a->laddr))
		return true;
	return a->netns == b->netns && ia->boot_id == ib->boot_id;
}

/* How far apart two ends' calls were, by the realtime clocks where both inputs have
 * them (before the edges align anything): a tuple used again later is another connection. */
static uint64_t span_gap(const struct analysis *an, const struct xend *a, const struct xend *b)
{
	const struct an_input *ia = an_vec__at(&an->inputs, a->input);
	const struct an_input *ib = an_vec__at(&an->inputs, b->input);
	bool rt = ia->have_rt && ib->have_rt;
	int64_t a0 = (int64_t)a->first + (rt ? ia->rt_offset : 0);
	int64_t a1 = (int64_t)a->last + (rt ? ia->rt_offset : 0);
	int64_t b0 = (int64_t)b->first + (rt ? ib->rt_offset : 0);
	int64_t b1 = (int64_t)b->last + (rt ? ib->rt_offset : 0);

	if (a0 > b1)
		return a0 - b1;
	return b0 > a1 ? b0 - a1 : 0;
}

/* Of the ends with the mirrored tuple, the one whose calls were nearest in time. */
static uint32_t best_peer(const struct analysis *an, const struct htab *by_tuple,
			  const struct xend *e)
{
	uint32_t j = htab__get(by_tuple, tuple_hash(e->raddr, e->rport, e->laddr, e->lport));
	uint32_t best = AN_NONE;
	uint64_t gap = UINT64_MAX;

	for (; j != AN_NONE; j = ((struct xend *)an_vec__at(&xh(an)->ends, j))->next) {
		const struct xend *b = an_vec__at(&xh(an)->ends, j);

		if (can_pair(an, e, b) && span_gap(an, e, b) < gap) {
			gap = span_gap(an, e, b);
			best = j;
		}
	}
	return best;
}

static int conn_add(struct analysis *an, uint32_t a, uint32_t b)
{
	struct xhost *x = xh(an);
	struct xend *ea = an_vec__at(&x->ends, a), *eb = an_vec__at(&x->ends, b);
	struct xconn *c = an_vec__push(&x->conns);
	bool a_client;

	if (!c)
		return -ENOMEM;
	/* the end that connected, or the one that was not accepted, or the ephemeral port */
	a_client =
		ea->client || eb->server || (!ea->server && !eb->client && ea->lport > eb->lport);
	c->end[0] = a_client ? a : b;
	c->end[1] = a_client ? b : a;
	ea->conn = eb->conn = x->conns.n - 1;
	return 0;
}

/* The other end is on the same host: the single-host data pass has it. */
static bool local_peer(const struct analysis *an, const struct htab *by_tuple, const struct xend *e)
{
	uint32_t j = htab__get(by_tuple, tuple_hash(e->raddr, e->rport, e->laddr, e->lport));

	for (; j != AN_NONE; j = ((struct xend *)an_vec__at(&xh(an)->ends, j))->next) {
		const struct xend *b = an_vec__at(&xh(an)->ends, j);

		if (b->host == e->host && b->lport == e->rport && b->rport == e->lport)
			return true;
	}
	return false;
}

static int match_ends(struct analysis *an)
{
	struct xhost *x = xh(an);
	struct htab by_tuple = { 0 };
	int err = 0;

	for (uint32_t i = 0; !err && i < x->ends.n; i++) {
		struct xend *e = an_vec__at(&x->ends, i);
		uint64_t k = tuple_hash(e->laddr, e->lport, e->raddr, e->rport);

		if (!e->rport)
			continue;
		e->next = htab__get(&by_tuple, k);
		err = htab__set(&by_tuple, k, i);
	}
	for (uint32_t i = 0; !err && i < x->ends.n; i++) {
		struct xend *e = an_vec__at(&x->ends, i);
		uint32_t j;

		if (!e->rport || e->conn != AN_NONE)
			continue;
		j = best_peer(an, &by_tuple, e);
		if (j != AN_NONE)
			err = conn_add(an, i, j);
		else if (!local_peer(an, &by_tuple, e))
			x->external++;
	}
	htab__free(&by_tuple);
	return err;
}

/* Which way an io's bytes went: 0 client to server, 1 back; AN_NONE off any connection. */
static uint32_t io_dir(const struct analysis *an, const struct xio *io, struct xconn **c)
{
	const struct xend *e = an_vec__at(&xh(an)->ends, io->xend);
	bool client;

	if (e->conn == AN_NONE)
		return AN_NONE;
	*c = an_vec__at(&xh(an)->conns, e->conn);
	client = (*c)->end[0] == io->xend;
	return client == !!io->send ? 0 : 1;
}

/* Stream byte 0 of each direction: the earliest sequence number either end saw. */
static void streams(struct analysis *an)
{
	struct xhost *x = xh(an);
	struct xconn *c;

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < x->ios.n; i++) {
			struct xio *io = an_vec__at(&x->ios, i);
			uint32_t d = io_dir(an, io, &c);

			if (d == AN_NONE)
				continue;
			io->dir = d;
			io->conn = c - (struct xconn *)x->conns.v;
			if (!pass && (!c->have_base[d] || (int32_t)(io->lo - c->base[d]) < 0)) {
				c->base[d] = io->lo;
				c->have_base[d] = true;
			}
			if (!pass) /* 32-bit sequence space: a stream past 4 GiB wraps */
				continue;
			io->s0 = (uint32_t)(io->lo - c->base[d]);
			if (io->s0 + (uint32_t)(io->hi - io->lo) > c->bytes[d])
				c->bytes[d] = io->s0 + (uint32_t)(io->hi - io->lo);
		}
}

static int cmp_io(const void *a, const void *b)
{
	const struct xio *x = *(struct xio *const *)a, *y = *(struct xio *const *)b;

	if (x->conn != y->conn) /* by connection, then direction, then sends first */
		return x->conn < y->conn ? -1 : 1;
	if (x->dir != y->dir)
		return x->dir < y->dir ? -1 : 1;
	if (x->send != y->send)
		return x->send > y->send ? -1 : 1;
	return x->s0 < y->s0 ? -1 : x->s0 > y->s0;
}

static int pair_add(struct analysis *an, const struct xio *s, const struct xio *r, uint64_t bytes,
		    struct an_vec *obs)
{
	struct xpair *p = an_vec__push(&xh(an)->pairs);
	const struct xend *se = an_vec__at(&xh(an)->ends, s->xend);
	const struct xend *re = an_vec__at(&xh(an)->ends, r->xend);
	struct cf_obs *o;

	if (!p)
		return -ENOMEM;
	*p = (struct xpair){ .from = s->rec, .to = r->rec, .bytes = bytes };
	if (se->input == re->input) /* one kernel, one clock: nothing to learn */
		return 0;
	o = an_vec__push(obs);
	if (!o)
		return -ENOMEM;
	*o = (struct cf_obs){ .from = se->input,
			      .to = re->input,
			      .send_begin = (int64_t)s->ts,
			      .recv_end = (int64_t)r->end };
	return 0;
}

/* The sends and then the receives of one direction of one connection, each by stream
 * offset: every send precedes each receive that took any of its bytes. */
static int pair_run(struct analysis *an, struct xio **io, size_t n, struct an_vec *obs)
{
	size_t ns = 0, p = 0;
	int err = 0;

	while (ns < n && io[ns]->send)
		ns++;
	for (size_t r = ns; !err && r < n; r++) {
		uint64_t r0 = io[r]->s0, r1 = r0 + (uint32_t)(io[r]->hi - io[r]->lo);

		while (p < ns && io[p]->s0 + (uint32_t)(io[p]->hi - io[p]->lo) <= r0)
			p++;
		for (size_t k = p; !err && k < ns && io[k]->s0 < r1; k++) {
			uint64_t s0 = io[k]->s0, s1 = s0 + (uint32_t)(io[k]->hi - io[k]->lo);

			err = pair_add(an, io[k], io[r], (s1 < r1 ? s1 : r1) - (s0 > r0 ? s0 : r0),
				       obs);
		}
	}
	return err;
}

static int pairs(struct analysis *an, struct an_vec *obs)
{
	struct xhost *x = xh(an);
	struct xio **io = malloc((x->ios.n + 1) * sizeof(*io));
	size_t n = 0, i = 0;
	int err = 0;

	if (!io)
		return -ENOMEM;
	for (size_t k = 0; k < x->ios.n; k++)
		if (((struct xio *)an_vec__at(&x->ios, k))->conn != AN_NONE)
			io[n++] = an_vec__at(&x->ios, k);
	qsort(io, n, sizeof(*io), cmp_io);
	while (!err && i < n) {
		size_t j = i;

		while (j < n && io[j]->conn == io[i]->conn && io[j]->dir == io[i]->dir)
			j++;
		err = pair_run(an, io + i, j - i, obs);
		i = j;
	}
	free(io);
	return err;
}

static const char *input_name(const struct analysis *an, uint32_t k)
{
	const struct an_input *in = an_vec__at(&an->inputs, k);

	return strtab__str(&an->strs, ((struct an_host *)an_vec__at(&an->hosts, in->host))->name);
}

static void clock_say(const struct analysis *an, uint32_t k, const struct cf_host *h)
{
	const char *name = input_name(an, k), *via = input_name(an, h->via);

	if (h->src == CF_ONE_SIDED)
		warn("analyze: the clock of %s is bounded by %s's from one side only (data "
		     "went one way): placed by the CLOCK records within that bound",
		     name, via);
	else if (h->src == CF_REALTIME)
		warn("analyze: no cross-host edge to align the clock of %s by: placed by the "
		     "CLOCK records' realtime pairs",
		     name);
	else if (h->src == CF_NONE)
		warn("analyze: the clock of %s cannot be aligned: no cross-host edge and no "
		     "CLOCK record; its times are taken as they are",
		     name);
}

/* Each input's clock offset from the pairs of inputs that exchanged bytes. */
static int fit_clocks(struct analysis *an, const struct an_vec *obs)
{
	uint32_t n = an->inputs.n, a = 0, b = 0;
	struct cf_host *h = calloc(n + 1, sizeof(*h));
	int err;

	if (!h)
		return -ENOMEM;
	for (uint32_t k = 0; k < n; k++) {
		const struct an_input *in = an_vec__at(&an->inputs, k);

		h[k] = (struct cf_host){ .have_rt = in->have_rt, .rt_offset = in->rt_offset };
	}
	err = clockfit__solve(obs->v, obs->n, h, n, &a, &b);
	if (err == -EDOM)
		err("analyze: the clocks of %s and %s cannot be aligned: each has a receive that "
		    "ended before the send that fed it began, whatever the offset",
		    input_name(an, a), input_name(an, b));
	for (uint32_t k = 0; !err && k < n; k++) {
		struct an_input *in = an_vec__at(&an->inputs, k);

		in->offset = h[k].offset;
		in->residual = h[k].residual;
		in->clock_src = h[k].src;
		clock_say(an, k, &h[k]);
	}
	free(h);
	return err == -EDOM ? -EINVAL : err;
}

int an__xhost_match(struct analysis *an)
{
	struct xhost *x = calloc(1, sizeof(*x));
	struct an_vec obs = { .esz = sizeof(struct cf_obs) };
	int err = 0;

	if (!x)
		return -ENOMEM;
	x->ends.esz = sizeof(struct xend);
	x->ios.esz = sizeof(struct xio);
	x->conns.esz = sizeof(struct xconn);
	x->pairs.esz = sizeof(struct xpair);
	an->xhost = x;
	for (uint32_t i = 0; !err && i < an->nev; i++)
		err = note_call(an, i);
	err = err ?: match_ends(an);
	if (!err)
		streams(an);
	err = err ?: pairs(an, &obs) ?: fit_clocks(an, &obs);
	an_vec__free(&obs);
	return err;
}

/* Arena offsets to event ids, now the events are in their final order. */
int an__xhost_index(struct analysis *an)
{
	struct xhost *x = xh(an);

	for (size_t i = 0; i < x->ios.n; i++)
		if (htab__set(&x->rec_io, ((struct xio *)an_vec__at(&x->ios, i))->rec, i))
			return -ENOMEM;
	x->ev_conn = malloc((an->nev + 1) * sizeof(*x->ev_conn));
	x->ev_io = malloc((an->nev + 1) * sizeof(*x->ev_io));
	if (!x->ev_conn || !x->ev_io)
		return -ENOMEM;
	for (uint32_t i = 0; i < an->nev; i++) {
		uint32_t e = htab__get(&x->rec_end, an->ev[i].rec);

		x->ev_conn[i] =
			e == AN_NONE ? AN_NONE : ((struct xend *)an_vec__at(&x->ends, e))->conn;
		x->ev_io[i] =
			x->ev_conn[i] == AN_NONE ? AN_NONE : htab__get(&x->rec_io, an->ev[i].rec);
	}
	return 0;
}

static uint32_t ev_of(const struct analysis *an, const struct htab *ids, uint64_t rec)
{
	uint32_t io = htab__get(&xh(an)->rec_io, rec);

	return io == AN_NONE ? AN_NONE : htab__get(ids, io);
}

/* The other end of the TCP end of event ID, on another host, or AN_NONE. */
static uint32_t other_end(const struct analysis *an, uint32_t id)
{
	uint32_t ei = htab__get(&xh(an)->rec_end, an->ev[id].rec);
	const struct xend *e, *o;
	const struct xconn *c;
	uint32_t oi;

	if (ei == AN_NONE || (e = an_vec__at(&xh(an)->ends, ei))->conn == AN_NONE)
		return AN_NONE;
	c = an_vec__at(&xh(an)->conns, e->conn);
	oi = c->end[0] == ei ? c->end[1] : c->end[0];
	o = an_vec__at(&xh(an)->ends, oi);
	return o->host == e->host ? AN_NONE : oi;
}

/*
 * A receive of the stream's end (0 bytes) comes after the other host's
 * shutdown of its sending side: the data edge of no bytes, without which a
 * replay could read before the shutdown and find nothing yet (EAGAIN).
 */
static int eof_edges(struct analysis *an)
{
	struct htab shut = { 0 }; /* end -> its first shutdown that stopped sends */
	int err = 0;

	for (uint32_t i = 0; !err && i < an->nev; i++) {
		const struct iot_syscall *sc = an__rec(an, i);
		uint32_t ei = htab__get(&xh(an)->rec_end, an->ev[i].rec);

		if (sc->nr == SYS_shutdown && sc->ret == 0 && sc->args[1] != SHUT_RD &&
		    ei != AN_NONE && htab__get(&shut, ei) == AN_NONE)
			err = htab__set(&shut, ei, i);
	}
	for (uint32_t i = 0; !err && i < an->nev; i++) {
		const struct iot_syscall *sc = an__rec(an, i);
		const struct syscall_info *si = syscall__by_nr(sc->nr);
		uint32_t oi, from;

		if (!si || si->cls != SC_READ || sc->ret != 0 ||
		    (oi = other_end(an, i)) == AN_NONE || (from = htab__get(&shut, oi)) == AN_NONE)
			continue;
		err = an__edge(an, from, i, AN_RULE_DATA, 0);
	}
	htab__free(&shut);
	return err;
}

int an__xhost_edges(struct analysis *an)
{
	struct xhost *x = xh(an);
	struct htab ids = { 0 }; /* io -> event id */
	int err = 0;

	if (!x)
		return 0;
	for (uint32_t i = 0; !err && i < an->nev; i++)
		if (x->ev_io[i] != AN_NONE)
			err = htab__set(&ids, x->ev_io[i], i);
	for (size_t i = 0; !err && i < x->pairs.n; i++) {
		const struct xpair *p = an_vec__at(&x->pairs, i);

		err = an__edge(an, ev_of(an, &ids, p->from), ev_of(an, &ids, p->to), AN_RULE_DATA,
			       p->bytes);
	}
	htab__free(&ids);
	return err ?: eof_edges(an);
}

bool an__xhost_owns(const struct analysis *an, uint32_t id)
{
	return xh(an) && xh(an)->ev_conn && xh(an)->ev_conn[id] != AN_NONE;
}

uint32_t xhost__conn_of(const struct analysis *an, uint32_t id, uint64_t *s0, uint64_t *s1)
{
	const struct xio *io;

	if (!an__xhost_owns(an, id))
		return AN_NONE;
	*s0 = *s1 = 0;
	if (xh(an)->ev_io[id] != AN_NONE) {
		io = an_vec__at(&xh(an)->ios, xh(an)->ev_io[id]);
		*s0 = io->s0;
		*s1 = io->s0 + (uint32_t)(io->hi - io->lo);
	}
	return xh(an)->ev_conn[id];
}

void xhost__end(const struct analysis *an, uint32_t c, int which, uint32_t *host, char *addr,
		size_t addrlen, uint16_t *port)
{
	const struct xconn *cn = an_vec__at(&xh(an)->conns, c);
	const struct xend *e = an_vec__at(&xh(an)->ends, cn->end[which]);
	static const uint8_t zero[12];

	*host = e->host;
	*port = e->lport;
	inet_ntop(memcmp(e->laddr + 4, zero, 12) ? AF_INET6 : AF_INET, e->laddr, addr, addrlen);
}

void an__xhost_free(struct analysis *an)
{
	struct xhost *x = xh(an);

	if (!x)
		return;
	an_vec__free(&x->ends);
	an_vec__free(&x->ios);
	an_vec__free(&x->conns);
	an_vec__free(&x->pairs);
	htab__free(&x->end_idx);
	htab__free(&x->rec_end);
	htab__free(&x->rec_io);
	free(x->ev_conn);
	free(x->ev_io);
	free(x);
	an->xhost = NULL;
}

/* The network namespaces the sockets of host were in, and its recorder's. */
json_t *xhost__netns_json(const struct analysis *an, uint32_t host, uint64_t own)
{
	json_t *a = json_array(), *seen = json_object();
	char k[24];

	if (own) {
		snprintf(k, sizeof(k), "%" PRIu64, own);
		json_object_set_new(seen, k, json_true());
		json_array_append_new(a, json_integer(own));
	}
	for (size_t i = 0; xh(an) && i < xh(an)->ends.n; i++) {
		const struct xend *e = an_vec__at(&xh(an)->ends, i);

		snprintf(k, sizeof(k), "%u", e->netns);
		if (e->host != host || !e->netns || json_object_get(seen, k))
			continue;
		json_object_set_new(seen, k, json_true());
		json_array_append_new(a, json_integer(e->netns));
	}
	json_decref(seen);
	return a;
}

static json_t *end_json(const struct analysis *an, uint32_t c, int which)
{
	char addr[INET6_ADDRSTRLEN] = "";
	uint32_t host;
	uint16_t port;

	xhost__end(an, c, which, &host, addr, sizeof(addr), &port);
	return json_pack("{s:s, s:s, s:i}", "host", an__host_name(an, host), "addr", addr, "port",
			 port);
}

json_t *xhost__conns_json(const struct analysis *an)
{
	json_t *a = json_array();

	for (size_t c = 0; xh(an) && c < xh(an)->conns.n; c++) {
		const struct xconn *cn = an_vec__at(&xh(an)->conns, c);

		json_array_append_new(a, json_pack("{s:I, s:s, s:o, s:o, s:I, s:I}", "id",
						   (json_int_t)c, "proto", "tcp", "client",
						   end_json(an, c, 0), "server", end_json(an, c, 1),
						   "bytes_c2s", (json_int_t)cn->bytes[0],
						   "bytes_s2c", (json_int_t)cn->bytes[1]));
	}
	return a;
}

void an__xhost_counters(const struct analysis *an, json_t *stats)
{
	json_object_set_new(stats, "edges_xhost", json_integer(an->edges_xhost));
	json_object_set_new(stats, "edges_xhost_dropped", json_integer(an->edges_xhost_dropped));
	json_object_set_new(stats, "tcp_ends_external",
			    json_integer(xh(an) ? xh(an)->external : 0));
}

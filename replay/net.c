// SPDX-License-Identifier: GPL-2.0
/*
 * Connections, in trace order: a connect whose port some traced socket was
 * listening on is replayed against that socket's replay port (and waits for
 * its listen); any other connect, and an accept whose client is not traced,
 * gets a peer the replayer plays itself (peer.c), and so does a TCP
 * connection the process had before the trace.  A peer belongs to the
 * connection, known by its socket's inode, not to an fd: the postmaster
 * accepts and closes, the forked backend reads, and every read finds it.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/htab.h"
#include "lib/log.h"
#include "replay/replay.h"
#include "replay/run.h"

struct sock_ref {
	uint32_t pidx;
	int32_t fd;
	int32_t listen; /* listener slot bound to this fd, or -1 */
};

struct net_pass {
	struct sock_ref *refs;
	uint32_t nrefs;
	uint32_t *listen_op;   /* per listener slot: its listen op, RP_NONE before */
	int64_t *listen_port;  /* per listener slot: recorded port */
	int64_t *client_ports; /* recorded local ports of traced connects */
	uint32_t nclients;
	/* connection (socket inode, or process and slot when the trace has
	 * none) -> its external peer + 1, or 0 for a connection both of whose
	 * ends are traced */
	struct htab conn;
};

static struct sock_ref *ref_get(struct net_pass *n, uint32_t pidx, int32_t fd, bool make)
{
	struct sock_ref *v;

	for (uint32_t i = 0; i < n->nrefs; i++)
		if (n->refs[i].pidx == pidx && n->refs[i].fd == fd)
			return &n->refs[i];
	if (!make)
		return NULL;
	v = realloc(n->refs, (n->nrefs + 1) * sizeof(*v));
	if (!v)
		return NULL;
	n->refs = v;
	v[n->nrefs] = (struct sock_ref){ pidx, fd, -1 };
	return &v[n->nrefs++];
}

static uint64_t conn_key(const struct rp_op *op, int32_t slot)
{
	if (op->sino)
		return op->sino;
	return 1ull << 63 | (uint64_t)op->pidx << 32 | (uint32_t)slot;
}

/* The peer of connection KEY: >= 0, -1 traced at both ends, -2 unknown. */
static int32_t conn_get(const struct htab *m, uint64_t key)
{
	uint32_t v = htab__get(m, key);

	return v == UINT32_MAX ? -2 : (int32_t)v - 1;
}

static int conn_put(struct htab *m, uint64_t key, int32_t peer)
{
	return htab__set(m, key, (uint32_t)(peer + 1));
}

static int net_dep(struct rp_op *op, uint32_t dep)
{
	uint32_t *v = realloc(op->deps, (op->ndeps + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	op->deps = v;
	v[op->ndeps++] = dep;
	return 0;
}

static int net_new_peer(struct rp_plan *p, bool incoming, int family, int32_t listen)
{
	struct rp_peer *v = realloc(p->peers, (p->npeers + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	p->peers = v;
	v[p->npeers] = (struct rp_peer){ .incoming = incoming,
					 .family = family,
					 .listen = listen,
					 .lfd = -1,
					 .fd = -1,
					 .app = -1,
					 .last = RP_NONE,
					 .reader = RP_NONE };
	return p->npeers++;
}

static int net_bind(struct rp_plan *p, struct net_pass *n, struct rp_op *op)
{
	struct sock_ref *r = ref_get(n, op->pidx, op->fd, true);
	uint32_t *lo = realloc(n->listen_op, (p->nlisten + 1) * sizeof(*lo));
	int64_t *lp = realloc(n->listen_port, (p->nlisten + 1) * sizeof(*lp));

	if (lo)
		n->listen_op = lo;
	if (lp)
		n->listen_port = lp;
	if (!r || !lo || !lp)
		return -ENOMEM;
	r->listen = p->nlisten;
	lo[p->nlisten] = RP_NONE;
	lp[p->nlisten] = op->a[1];
	op->a[3] = p->nlisten++;
	return 0;
}

/* Multi-host: the host of the server of the connection OP is on, or
 * RP_NONE when the file does not say. */
static uint32_t net_conn_server(const struct rp_plan *p, const struct rp_op *op)
{
	for (uint32_t k = 0; op->conn >= 0 && k < p->nconns; k++)
		if (p->conns[k].id == op->conn)
			return p->conns[k].server;
	return RP_NONE;
}

/* The process whose listener from before the trace has slot L, or -1. */
static int32_t net_inherited_pidx(const struct rp_plan *p, uint32_t l)
{
	for (uint32_t k = 0; k < p->ninl; k++)
		if (p->inl[k].slot == l)
			return (int32_t)p->inl[k].pidx;
	return -1;
}

static uint32_t net_proc_host(const struct rp_plan *p, uint32_t pidx)
{
	for (uint32_t t = 0; t < p->nth; t++)
		if (p->th[t].pidx == pidx)
			return p->th[t].host;
	return RP_NONE;
}

static uint32_t net_slot_host(const struct rp_plan *p, const struct net_pass *n, uint32_t l,
			      int32_t pidx)
{
	if (pidx >= 0)
		return net_proc_host(p, pidx);
	return p->th[p->ops[n->listen_op[l]].tidx].host;
}

/* The latest listener on the connect's port (on HOST unless RP_NONE), of
 * its family if ANY is false (one from before the trace, of any); or -1. */
static int32_t net_listener(const struct rp_plan *p, const struct net_pass *n,
			    const struct rp_op *op, uint32_t host, bool any)
{
	for (uint32_t l = p->nlisten; l-- > 0;) {
		int32_t pidx = net_inherited_pidx(p, l);

		if ((n->listen_op[l] == RP_NONE && pidx < 0) || n->listen_port[l] != op->a[1])
			continue;
		if (host != RP_NONE && net_slot_host(p, n, l, pidx) != host)
			continue;
		if (any || n->listen_op[l] == RP_NONE || p->ops[n->listen_op[l]].sfam == op->sfam)
			return l;
	}
	return -1;
}

/* Connects to a port a traced socket listens on stay inside the replay;
 * across hosts, on the host the file says the connection's server is. A
 * server listening on one port twice, IPv4 and IPv6 (Open MPI does), takes
 * a client of its family on that family's listener. */
static int net_connect(struct rp_plan *p, struct net_pass *n, struct rp_op *op)
{
	uint32_t host = net_conn_server(p, op);
	int32_t l = net_listener(p, n, op, host, false);
	int peer;

	op->a[2] = op->a[3] = -1;
	if (l < 0)
		l = net_listener(p, n, op, host, true);
	if (l >= 0) {
		op->a[3] = l;
		/* a listener from before the trace listens from the start */
		if (net_inherited_pidx(p, l) >= 0)
			return 0;
		/* the listener must be listening before the connect is issued */
		return p->ops[n->listen_op[l]].tidx == op->tidx ? 0 : net_dep(op, n->listen_op[l]);
	}
	/* connecting again to see a non-blocking connect's end: the same peer */
	peer = conn_get(&n->conn, conn_key(op, op->fd));
	if (peer >= 0) {
		op->a[2] = op->peer = peer;
		return 0;
	}
	peer = net_new_peer(p, false, op->a[0], -1);
	if (peer < 0 || conn_put(&n->conn, conn_key(op, op->fd), peer))
		return -ENOMEM;
	op->a[2] = op->peer = peer;
	return 0;
}

static bool net_traced_client(const struct net_pass *n, int64_t port)
{
	for (uint32_t i = 0; i < n->nclients; i++)
		if (n->client_ports[i] == port)
			return true;
	return false;
}

static bool net_inherited_socket(const struct rp_plan *p, uint32_t pidx, int32_t fd)
{
	const struct rp_proc *pr = &p->pr[pidx];

	for (uint32_t k = 0; k < pr->ninh; k++)
		if (pr->inh[k].slot == fd && !strcmp(pr->inh[k].type, "socket"))
			return true;
	return false;
}

/*
 * An accept on a socket the process had before the trace (a server attached
 * to with -p): its listener was never created in the trace, so it gets a
 * listener slot of its own, made on loopback before the replay starts.
 */
static struct sock_ref *net_inherited_listener(struct rp_plan *p, struct net_pass *n,
					       const struct rp_op *op)
{
	struct rp_inlisten *v;
	struct sock_ref *r;
	uint32_t *lo;
	int64_t *lp;

	if (op->pidx >= p->npr || !net_inherited_socket(p, op->pidx, op->fd))
		return NULL;
	r = ref_get(n, op->pidx, op->fd, true);
	lo = realloc(n->listen_op, (p->nlisten + 1) * sizeof(*lo));
	if (lo)
		n->listen_op = lo;
	lp = realloc(n->listen_port, (p->nlisten + 1) * sizeof(*lp));
	if (lp)
		n->listen_port = lp;
	v = realloc(p->inl, (p->ninl + 1) * sizeof(*v));
	if (v)
		p->inl = v;
	if (!r || !lo || !lp || !v)
		return NULL;
	lo[p->nlisten] = RP_NONE;
	lp[p->nlisten] = op->a[2];
	v[p->ninl++] = (struct rp_inlisten){ .pidx = op->pidx, .fd = op->fd, .slot = p->nlisten };
	r->listen = p->nlisten++;
	return r;
}

/* An accepted connection from a client outside the trace gets a peer. */
static int net_accept(struct rp_plan *p, struct net_pass *n, struct rp_op *op)
{
	struct sock_ref *l = ref_get(n, op->pidx, op->fd, false);
	uint64_t key = conn_key(op, op->fd2);
	int peer;

	if ((!l || l->listen < 0) && !(l = net_inherited_listener(p, n, op)))
		return 0;
	if (net_traced_client(n, op->a[1]))
		return conn_put(&n->conn, key, -1);
	peer = net_new_peer(p, true, 0, l->listen);
	if (peer < 0 || conn_put(&n->conn, key, peer))
		return -ENOMEM;
	op->peer = peer;
	return 0;
}

static bool net_conn_io(enum rp_kind k)
{
	return k == RK_RECV || k == RK_READ || k == RK_READV || k == RK_SEND || k == RK_WRITE ||
	       k == RK_WRITEV || k == RK_SHUTDOWN || k == RK_SENDFILE;
}

/*
 * A connection the process had before the trace (accepted before an
 * attach): the replayer makes a loopback pair for it before the replay and
 * plays its client.  A child forked in the trace gets it with its fd table.
 * read and write do not say what a socket is: one no call showed to be
 * anything but TCP is taken for a stream, which is what a read of it sees.
 */
static int net_attached(struct rp_plan *p, struct net_pass *n, struct rp_op *op)
{
	struct rp_inconn *v;
	int peer;

	if (op->sfam == RP_SFAM_OTHER || op->pidx >= p->npr ||
	    !net_inherited_socket(p, op->pidx, op->fd))
		return -2;
	peer = net_new_peer(p, true, op->sfam ? op->sfam : AF_INET, -1);
	v = realloc(p->inc, (p->ninc + 1) * sizeof(*v));
	if (peer < 0 || !v || conn_put(&n->conn, conn_key(op, op->fd), peer))
		return -ENOMEM;
	p->inc = v;
	p->peers[peer].attached = true;
	v[p->ninc++] = (struct rp_inconn){ .peer = peer, .pidx = op->pidx, .slot = op->fd };
	return peer;
}

/* A call on a connection: reads learn their connection's peer. */
static int net_conn_op(struct rp_plan *p, struct net_pass *n, struct rp_op *op)
{
	int32_t peer;

	if (op->fd < 0 || !net_conn_io(op->kind))
		return 0;
	peer = conn_get(&n->conn, conn_key(op, op->fd));
	/* without an inode (a trace written by hand) only this process's own
	 * connects and accepts are known */
	if (peer == -2 && op->sino)
		peer = net_attached(p, n, op);
	if (peer == -ENOMEM)
		return peer;
	if (peer >= 0 &&
	    (op__reads_stream(op->kind) || op->ret == -EPIPE || op->ret == -ECONNRESET))
		op->peer = peer;
	return 0;
}

/* One thread's windows from a held wait to its next held call; seen[peer] ==
 * mark + window number when the window has read that peer already. */
static uint32_t net_prefeed_thread(struct rp_plan *p, const struct rp_thread *th, uint32_t *seen,
				   uint32_t mark)
{
	struct rp_op *w = NULL;
	uint32_t *tail = NULL, n = 0;

	for (uint32_t k = 0; k < th->nops; k++) {
		uint32_t i = th->ops[k];
		struct rp_op *op = &p->ops[i];

		if (op->hold && !(op->peer >= 0 && op__reads_stream(op->kind))) {
			w = op;
			tail = &op->prefeed;
			mark += p->nth; /* a fresh window: marks unique per thread */
			continue;
		}
		if (!w || op->peer < 0 || !op__reads_stream(op->kind) || seen[op->peer] == mark)
			continue;
		seen[op->peer] = mark;
		if (op->ret <= 0 || p->peers[op->peer].reader != op->tidx)
			continue;
		*tail = i;
		tail = &op->prefeed_next;
		n++;
	}
	return n;
}

/*
 * A server's held wait (epoll_wait, poll) is where its client took its time
 * to send the next request, and the read after it consumed the request.
 * The peer sends it from the replay thread just before that read: a
 * loopback send, with its softirq, that the application never made and
 * that no hold absorbs, since the read is timed from the wait's end.  In
 * natural timing the hold sends it instead (peer__prefeed), as the client
 * did during the wait.  Only the first read of a connection between the
 * held wait and the thread's next one, as a later read would find two
 * requests merged, and only of a connection one thread reads: another
 * thread's read in between would take the bytes.  A read held itself (a
 * recv that may block) is fed so too: the hold absorbs its feed only when the
 * recv waited long in the trace, and nginx's took microseconds.
 */
static int net_prefeeds(struct rp_plan *p)
{
	uint32_t *seen = calloc(p->npeers, sizeof(*seen)), n = 0;

	if (!seen)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->nops; i++) {
		const struct rp_op *op = &p->ops[i];
		uint32_t *r = op->peer >= 0 ? &p->peers[op->peer].reader : NULL;

		if (r && op__reads_stream(op->kind))
			*r = *r == RP_NONE || *r == op->tidx ? op->tidx : RP_PEER_READERS;
	}
	for (uint32_t t = 0; t < p->nth; t++)
		n += net_prefeed_thread(p, &p->th[t], seen, t + 1);
	dbg("%u reads of outside peers' connections fed in the held wait before them", n);
	free(seen);
	return 0;
}

static int net_one(struct rp_plan *p, struct net_pass *n, struct rp_op *op)
{
	struct sock_ref *r;

	if (op->ret < 0 && !(op->kind == RK_CONNECT && op->ret == -EINPROGRESS)) {
		/* a connect that failed (a client retrying until its server
		 * listens) has neither listener nor peer: it fails again,
		 * neither held until a listen nor connected to a peer */
		if (op->kind == RK_CONNECT)
			op->a[2] = op->a[3] = -1;
		return net_conn_io(op->kind) ? net_conn_op(p, n, op) : 0;
	}
	switch (op->kind) {
	case RK_BIND:
		return net_bind(p, n, op);
	case RK_LISTEN:
		r = ref_get(n, op->pidx, op->fd, false);
		if (r && r->listen >= 0) {
			op->a[3] = r->listen;
			n->listen_op[r->listen] = op - p->ops;
		}
		return 0;
	case RK_CONNECT:
		return net_connect(p, n, op);
	case RK_ACCEPT:
		return net_accept(p, n, op);
	case RK_CLOSE:
		/* a listener's number may be reused; a connection is known by
		 * its inode, whichever process closes which of its fds */
		r = ref_get(n, op->pidx, op->fd, false);
		if (r)
			*r = n->refs[--n->nrefs];
		return 0;
	default:
		return net_conn_op(p, n, op);
	}
}

/* Local ports of every traced connect: an accept may come first in the
 * trace (it blocks until the connect), so they are gathered beforehand. */
static int net_clients(struct rp_plan *p, struct net_pass *n)
{
	for (uint32_t i = 0; i < p->nops; i++) {
		const struct rp_op *op = &p->ops[i];
		int64_t *v;

		/* unix sockets, datagrams: never given a peer of our own */
		if (op->sino && op->sfam == RP_SFAM_OTHER && op->kind != RK_ACCEPT &&
		    conn_put(&n->conn, op->sino, -1))
			return -ENOMEM;
		/* a listener from before the trace: connects earlier in the
		 * trace than its first accept find it too */
		if (op->kind == RK_ACCEPT && op->ret >= 0 && !ref_get(n, op->pidx, op->fd, false) &&
		    net_inherited_socket(p, op->pidx, op->fd) && !net_inherited_listener(p, n, op))
			return -ENOMEM;
		if (op->kind != RK_CONNECT || (op->ret < 0 && op->ret != -EINPROGRESS))
			continue;
		v = realloc(n->client_ports, (n->nclients + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		n->client_ports = v;
		v[n->nclients++] = op->a[2];
	}
	return 0;
}

/*
 * Multi-host: a client connects once the accept before its own on that
 * listener has taken its connection, when that accept's client was on
 * another host. Over the network a later client may connect first: the
 * earlier accept would take its connection, and each host's bytes would go
 * to the other's peer. (The accept itself waits for its connection to
 * arrive, mhost__incoming(); one host's clients connect in its own order.)
 */
static int net_accept_order(struct rp_plan *p)
{
	struct htab connect = { 0 }, last = { 0 }; /* conn -> its connect; listener -> accept */
	int err = 0;

	for (uint32_t i = 0; i < p->nops && !err; i++) {
		const struct rp_op *op = &p->ops[i];

		if (op->kind == RK_CONNECT && op->conn >= 0 &&
		    (op->ret >= 0 || op->ret == -EINPROGRESS))
			err = htab__set(&connect, (uint64_t)op->conn, i);
	}
	for (uint32_t i = 0; i < p->nops && !err; i++) {
		struct rp_op *op = &p->ops[i];
		uint64_t lsn = (uint64_t)op->pidx << 32 | (uint32_t)op->fd;
		uint32_t c, prev, pc; /* this accept's connect; the accept and connect before */

		if (op->kind != RK_ACCEPT || op->ret < 0 || op->conn < 0)
			continue;
		c = htab__get(&connect, (uint64_t)op->conn);
		prev = htab__get(&last, lsn);
		err = htab__set(&last, lsn, i);
		if (err || c == UINT32_MAX || prev == UINT32_MAX ||
		    p->th[p->ops[c].tidx].host == p->th[op->tidx].host)
			continue;
		pc = htab__get(&connect, (uint64_t)p->ops[prev].conn);
		if (pc != UINT32_MAX && p->th[p->ops[pc].tidx].host != p->th[p->ops[c].tidx].host)
			err = net_dep(&p->ops[c], prev);
	}
	htab__free(&connect);
	htab__free(&last);
	return err;
}

int net__plan(struct rp_plan *p)
{
	struct net_pass n = { 0 };
	int err = net_clients(p, &n);

	for (uint32_t i = 0; i < p->nops && !err; i++)
		err = net_one(p, &n, &p->ops[i]);
	free(n.refs);
	free(n.listen_op);
	free(n.listen_port);
	free(n.client_ports);
	htab__free(&n.conn);
	if (!err && p->nhosts > 1)
		err = net_accept_order(p);
	if (!err)
		err = net_prefeeds(p);
	if (err)
		return err;
	p->ports = calloc(p->nlisten + 1, sizeof(*p->ports));
	return p->ports ? 0 : -ENOMEM;
}

/* A listener for one from before the trace: on loopback, or, across hosts,
 * on every address, where other hosts' replayed clients reach it too. */
static int net_listen_inherited(struct rp_plan *p, const struct rp_inlisten *l)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *a = (struct sockaddr_in *)&ss;
	socklen_t len = loopback__addr(&ss, AF_INET, 0);
	/* blocking: the replayed accept waits for its peer, as the
	 * application's waited in epoll for its client */
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (mhost__active())
		a->sin_addr.s_addr = htonl(INADDR_ANY);
	/* room for the window of peers that wait in it (peer.c) */
	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len) || listen(fd, SOMAXCONN)) {
		int err = -errno;

		if (fd >= 0)
			close(fd);
		return err;
	}
	atomic_store(&p->ports[l->slot], loopback__port(fd));
	if ((uint32_t)l->fd < p->pr[l->pidx].nslot)
		atomic_store(&p->pr[l->pidx].fd[l->fd], fd);
	return 0;
}

static bool net_proc_remote(const struct rp_plan *p, uint32_t pidx)
{
	for (uint32_t t = 0; t < p->nth; t++)
		if (p->th[t].pidx == pidx)
			return p->th[t].remote;
	return false;
}

int net__open_inherited(struct rp_plan *p)
{
	int err = 0;

	/* another host's listeners are its rank's (mhost__barrier) */
	for (uint32_t i = 0; i < p->ninl && !err; i++)
		if (!net_proc_remote(p, p->inl[i].pidx))
			err = net_listen_inherited(p, &p->inl[i]);
	return err;
}

int net__connect_inherited(struct rp_plan *p)
{
	int err = 0;

	for (uint32_t i = 0; i < p->ninl && !err; i++)
		if (!net_proc_remote(p, p->inl[i].pidx))
			err = peer__connect_in(p, p->inl[i].slot, AF_INET,
					       atomic_load(&p->ports[p->inl[i].slot]), SOMAXCONN);
	return err;
}

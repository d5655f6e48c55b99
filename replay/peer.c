// SPDX-License-Identifier: GPL-2.0
/*
 * The replayer as the far end of connections whose peer was not traced.  For
 * a connect it listens on loopback and accepts; for an accept it connects
 * once the application's listener listens, a window of clients at a time in
 * the trace's accept order; for a connection open before the trace it makes
 * a loopback pair.  One thread drains what the application sends, and a
 * connection the application has closed and the trace has no more calls on
 * is closed on our side too, so a trace of tens of thousands of connections
 * holds only as many descriptors as were open at once.  What the application
 * reads is sent as many bytes as that read got in the trace, and only once
 * the reads before it on the connection are done: a peer that sent further
 * ahead would merge requests the application read one at a time, and one
 * that waited would leave a read of a keep-alive connection hanging.  The
 * client sends them, from the drain thread, as soon as it has drained what
 * the application answered the read before; else the hold before the read
 * sends them, or the replay thread just before the read.  The trace's end of
 * stream and reset are played at the read that saw them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"
#include "replay/replay.h"
#include "replay/run.h"

#define PEER_STOP ~0ull
/* How long a read waits for bytes already sent on loopback to arrive, ms. */
#define PEER_ARRIVE_MS 1000
/*
 * Played clients connected and not yet accepted, per listener, or fewer
 * (peer_window): the next one connects as the application accepts one.
 * All at once, they would overflow the backlog (the kernel drops the
 * connections past it, and the client retries a second later) and take a
 * descriptor each.
 */
#define PEER_WINDOW 64
#define PEER_PORTS  65536
/* What the drain thread takes from one connection at a time, bytes. */
#define PEER_DRAIN_MAX (4 << 16)

/*
 * A listener's played clients, in the trace's accept order.  At most WINDOW
 * of them are connected and not accepted.  Our end of a connection closes
 * when the drain thread sees the application's close; one that falls behind
 * must not let the replay run out of descriptors, so once REAP_AT of ours
 * are open, the connect looks for the closed ones itself (peer_reap).
 */
struct peer_listener {
	int family, port; /* where it listens in the replay, once it does */
	uint32_t *peers, n, next;
	uint32_t oldest;	   /* peers[] before it are over and closed */
	uint32_t *redial, nredial; /* to connect before the next (peer__accepted) */
	uint32_t window, reap_at;
	uint32_t pending, open; /* connected and not accepted; connected */
	bool starved;		/* a connect found no descriptor: retried at a close */
};

static struct {
	struct rp_plan *p;
	int ep, stop;
	pthread_t th;
	bool running;
	pthread_mutex_t lock;		/* peers' fd, lport: accepts may swap them */
	_Atomic uint64_t fed_ahead;	/* reads fed in the hold before them */
	_Atomic uint64_t fed_by_client; /* reads fed by the drain thread */
	struct peer_listener *lst;	/* by listener slot */
	int32_t *fd_peer;		/* our end's fd -> peer + 1 (0: none) */
	int nfd_peer;
	char buf[65536]; /* the drain thread's */
	char reap[4096]; /* peer_reap's, under lock */
} pe = { .ep = -1, .stop = -1, .lock = PTHREAD_MUTEX_INITIALIZER };

/* An incoming peer's local port -> peer + 1 (0: none), under pe.lock. */
static int32_t port_peer[PEER_PORTS];

/* Under pe.lock: peer I's fd and local port name it. */
static void peer_index(const struct rp_peer *pr, uint32_t i)
{
	if (pr->fd >= 0 && pr->fd < pe.nfd_peer)
		pe.fd_peer[pr->fd] = i + 1;
	if (pr->lport > 0 && pr->lport < PEER_PORTS)
		port_peer[pr->lport] = i + 1;
}

/* The drain thread watches the fd itself: accepts may move it between peers. */
static int peer_watch(int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = (uint32_t)fd };

	if (mhost__active())
		loopback__nodelay(fd);
	return epoll_ctl(pe.ep, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

static int peer_listen(struct rp_peer *pr)
{
	struct sockaddr_storage ss;
	int family = pr->family == AF_INET6 ? AF_INET6 : AF_INET;
	socklen_t len = loopback__addr(&ss, family, 0);

	pr->lfd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (pr->lfd < 0 || bind(pr->lfd, (struct sockaddr *)&ss, len) || listen(pr->lfd, 4))
		return -errno;
	pr->port = loopback__port(pr->lfd);
	return pr->port > 0 ? 0 : -EADDRNOTAVAIL;
}

static int peer_attached(struct rp_plan *p);

/* Each peer's reads in trace order, for the drain thread to feed, when one
 * thread makes them (net.c's reader). */
static int peer_plan_reads(struct rp_plan *p)
{
	for (uint32_t k = 0; k < p->nops; k++) {
		const struct rp_op *op = &p->ops[k];

		if (op->peer >= 0 && op__reads_stream(op->kind) &&
		    p->peers[op->peer].reader < RP_PEER_READERS)
			p->peers[op->peer].nreads++;
	}
	for (uint32_t i = 0; i < p->npeers; i++) {
		struct rp_peer *pr = &p->peers[i];

		if (pr->nreads && !(pr->reads = malloc(pr->nreads * sizeof(*pr->reads))))
			return -ENOMEM;
		pr->nreads = 0;
	}
	for (uint32_t k = 0; k < p->nops; k++) {
		const struct rp_op *op = &p->ops[k];
		struct rp_peer *pr = op->peer >= 0 ? &p->peers[op->peer] : NULL;

		if (pr && pr->reads && op__reads_stream(op->kind))
			pr->reads[pr->nreads++] = k;
	}
	return 0;
}

/* Each listener's played clients in accept order, and each peer's last op. */
static int peer_plan(struct rp_plan *p)
{
	struct rlimit rl;

	pe.lst = calloc(p->nlisten ? p->nlisten : 1, sizeof(*pe.lst));
	if (!pe.lst)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->npeers; i++) {
		const struct rp_peer *pr = &p->peers[i];
		struct peer_listener *l;
		uint32_t *v;

		if (!pr->incoming || pr->attached || pr->listen >= p->nlisten)
			continue;
		l = &pe.lst[pr->listen];
		v = realloc(l->peers, (l->n + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->peers = v;
		v[l->n++] = i;
	}
	for (uint32_t k = 0; k < p->nops; k++)
		if (p->ops[k].peer >= 0)
			p->peers[p->ops[k].peer].last = k;
	if (peer_plan_reads(p))
		return -ENOMEM;
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	pe.nfd_peer = rl.rlim_cur < (1u << 20) ? (int)rl.rlim_cur : 1 << 20;
	pe.fd_peer = calloc(pe.nfd_peer, sizeof(*pe.fd_peer));
	return pe.fd_peer ? 0 : -ENOMEM;
}

int peer__setup(struct rp_plan *p)
{
	int err;

	pe.p = p;
	pe.ep = epoll_create1(EPOLL_CLOEXEC);
	if (pe.ep < 0)
		return -errno;
	err = peer_plan(p);
	for (uint32_t i = 0; i < p->npeers && !err; i++)
		if (!p->peers[i].incoming)
			err = peer_listen(&p->peers[i]);
	for (uint32_t i = 0; i < p->npeers && !err; i++)
		peer_index(&p->peers[i], i);
	if (!err)
		err = peer_attached(p);
	dbg("%u connections with a peer outside the trace, %u of them open before it", p->npeers,
	    p->ninc);
	if (err)
		err("replay: cannot listen on loopback for a peer outside the trace: %s",
		    strerror(-err));
	return err;
}

static int peer_local_port(int fd, bool peer)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if ((peer ? getpeername : getsockname)(fd, (struct sockaddr *)&ss, &len))
		return -1;
	return ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port) :
					  ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/*
 * A non-blocking connection to loopback PORT, or -errno.  Bound first, so
 * its port is its own: a connect alone may take a port another of our
 * clients has towards another listener, and the port names the peer
 * (port_peer).  The last quarter of the descriptors is left to the
 * application: -EMFILE as if there were none.
 */
static int peer_socket_to(int family, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback__addr(&ss, family, 0);
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), err;

	if (fd < 0)
		return -errno;
	/* the lowest free descriptor is this high: the rest are the
	 * application's (its accepts, its files) */
	if (fd >= pe.nfd_peer - pe.nfd_peer / 4) {
		close(fd);
		return -EMFILE;
	}
	if (bind(fd, (struct sockaddr *)&ss, len))
		goto fail;
	len = loopback__addr(&ss, family, port);
	if (connect(fd, (struct sockaddr *)&ss, len) && errno != EINPROGRESS)
		goto fail;
	return fd;
fail:
	err = -errno;
	close(fd);
	return err;
}

/* Under pe.lock: peer I of listener L connects to it. */
static int peer_dial(struct rp_plan *p, uint32_t i, struct peer_listener *l)
{
	struct rp_peer *pr = &p->peers[i];
	int fd = peer_socket_to(l->family, l->port), err;

	if (fd < 0)
		return fd;
	err = peer_watch(fd);
	if (err) {
		close(fd);
		return err;
	}
	pr->family = l->family;
	pr->fd = fd;
	pr->lport = peer_local_port(fd, false);
	peer_index(pr, i);
	l->pending++;
	l->open++;
	return 0;
}

static void peer_close(struct rp_peer *pr);

/* Under pe.lock: whether the application has closed its end of PR's
 * connection, read without waiting for the drain thread. */
static bool peer_hungup(struct rp_peer *pr)
{
	ssize_t r;

	if (!pr->eof) {
		while ((r = recv(pr->fd, pe.reap, sizeof(pe.reap), MSG_DONTWAIT)) > 0)
			;
		pr->eof = r == 0;
	}
	return pr->eof;
}

/*
 * Under pe.lock: L's connections that are over close, and the next look
 * comes after a window more of ours have opened: as often as that, the scan
 * of the ones still open costs a few calls per connect, however many a
 * server holds for long.
 */
static void peer_reap(struct rp_plan *p, struct peer_listener *l)
{
	for (uint32_t j = l->oldest; j < l->next; j++) {
		struct rp_peer *pr = &p->peers[l->peers[j]];

		if (pr->fd >= 0 && pr->accepted && pr->over && peer_hungup(pr))
			peer_close(pr);
	}
	while (l->oldest < l->next && p->peers[l->peers[l->oldest]].fd < 0 &&
	       p->peers[l->peers[l->oldest]].accepted)
		l->oldest++;
	l->reap_at = l->open + l->window;
}

/*
 * Under pe.lock: L's next clients that are not connected yet connect, as
 * many as its window allows.  One that finds no descriptor waits for the
 * next of ours to close; the accept that takes it waits meanwhile.
 */
static int peer_next(struct rp_plan *p, struct peer_listener *l)
{
	static bool told;

	while (l->port > 0 && (l->nredial || l->next < l->n) && l->pending < l->window) {
		uint32_t i = l->nredial ? l->redial[l->nredial - 1] : l->peers[l->next];
		int err = 0;

		if (l->open >= l->reap_at)
			peer_reap(p, l);
		if (p->peers[i].fd == -1 && !p->peers[i].accepted)
			err = peer_dial(p, i, l);
		if (err == -EMFILE || err == -ENFILE) {
			if (!told)
				warn("replay: out of descriptors: a client outside the trace "
				     "connects when one of ours closes (ulimit -n)");
			told = l->starved = true;
			return 0;
		}
		if (err)
			return err;
		if (l->nredial)
			l->nredial--;
		else
			l->next++;
	}
	return 0;
}

/* Under pe.lock: peer I of L connects again, before the next. */
static int peer_redial(struct peer_listener *l, uint32_t i)
{
	uint32_t *v = realloc(l->redial, (l->nredial + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	l->redial = v;
	v[l->nredial++] = i;
	return 0;
}

/* How many of a listener's clients connect ahead of its accepts: no more
 * than its BACKLOG, nor than a share of a quarter of the descriptors. */
static uint32_t peer_window(const struct rp_plan *p, int backlog)
{
	uint32_t n = 0, w = PEER_WINDOW, share;

	for (uint32_t j = 0; j < p->nlisten; j++)
		n += pe.lst[j].n > 0;
	share = (uint32_t)pe.nfd_peer / 4 / (n ? n : 1);
	if (share < w)
		w = share;
	if (backlog > 0 && (uint32_t)backlog < w)
		w = backlog;
	return w > 1 ? w : 1;
}

/* Runs in the application thread that called listen(BACKLOG): as many
 * clients connect as the window and the backlog both hold. */
int peer__connect_in(struct rp_plan *p, uint32_t listen, int family, int port, int backlog)
{
	struct peer_listener *l;
	int err;

	if (!pe.lst || listen >= p->nlisten)
		return 0;
	l = &pe.lst[listen];
	pthread_mutex_lock(&pe.lock);
	l->family = family;
	l->port = port;
	l->window = peer_window(p, backlog);
	l->reap_at = 2 * l->window;
	dbg("listener %u: %u clients outside the trace, %u ahead of the accepts", listen, l->n,
	    l->window);
	err = peer_next(p, l);
	pthread_mutex_unlock(&pe.lock);
	return err;
}

/*
 * Connections wait in the listener's backlog in the order the peers
 * connected, which is the trace's accept order; threads that accept from one
 * listener may take them in another.  The port says which peer this is:
 * swapped, each accept's reads are fed through its own connection.
 */
void peer__accepted(struct rp_plan *p, uint32_t peer, int nfd)
{
	int port = peer_local_port(nfd, true);
	struct rp_peer *a = &p->peers[peer], *b;
	int32_t bi;
	int err = 0;

	pthread_mutex_lock(&pe.lock);
	bi = a->lport != port && port > 0 && port < PEER_PORTS ? port_peer[port] - 1 : -1;
	b = bi >= 0 ? &p->peers[bi] : NULL;
	if (b && b != a && b->lport == port && b->incoming && !b->accepted &&
	    b->listen == a->listen) {
		int fd = a->fd, lport = a->lport;

		a->fd = b->fd;
		a->lport = port;
		b->fd = fd;
		b->lport = lport;
		peer_index(a, peer);
		peer_index(b, bi);
		/* a had not connected yet: b connects in its place, first */
		if (b->fd == -1)
			err = peer_redial(&pe.lst[a->listen], bi);
	}
	a->accepted = true;
	if (pe.lst && a->listen < p->nlisten) {
		struct peer_listener *l = &pe.lst[a->listen];

		if (l->pending)
			l->pending--;
		if (!err)
			err = peer_next(p, l);
	}
	pthread_mutex_unlock(&pe.lock);
	if (err)
		warn("replay: a client outside the trace cannot connect: %s; the accept "
		     "that takes it will wait",
		     strerror(-err));
}

/* Whether the connection an accept got, NFD, is one of the replayer's own
 * clients: from loopback, from the port one of them connected from. */
bool peer__played(const struct rp_plan *p, int nfd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	bool lo, played;
	int port, i;

	if (getpeername(nfd, (struct sockaddr *)&ss, &len))
		return false;
	lo = ss.ss_family == AF_INET6 ?
		     IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&ss)->sin6_addr) :
		     ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24 == 127;
	port = peer_local_port(nfd, true);
	if (!lo || port <= 0 || port >= PEER_PORTS)
		return false;
	pthread_mutex_lock(&pe.lock);
	i = port_peer[port] - 1;
	played = i >= 0 && p->peers[i].incoming && p->peers[i].lport == port;
	pthread_mutex_unlock(&pe.lock);
	return played;
}

/* Runs in the application thread, right after its connect. */
int peer__connected(struct rp_plan *p, uint32_t peer)
{
	struct rp_peer *pr = &p->peers[peer];
	struct pollfd pfd = { .fd = pr->lfd, .events = POLLIN };
	int fd;

	if (pr->fd >= 0)
		return 0;
	if (poll(&pfd, 1, PEER_ARRIVE_MS) <= 0)
		return -ETIMEDOUT;
	fd = accept4(pr->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return -errno;
	pthread_mutex_lock(&pe.lock);
	pr->fd = fd;
	peer_index(pr, peer);
	pthread_mutex_unlock(&pe.lock);
	return peer_watch(fd);
}

static int peer_fd(const struct rp_peer *pr)
{
	int fd;

	pthread_mutex_lock(&pe.lock);
	fd = pr->fd;
	pthread_mutex_unlock(&pe.lock);
	return fd;
}

static int peer_unread(int fd)
{
	int q = 0;

	return ioctl(fd, FIONREAD, &q) ? 0 : q;
}

/* Until WANT bytes are readable on FD, or it is at its end, or time is up. */
static void peer_await(int fd, int64_t want)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLRDHUP };
	struct timespec nap = { 0, 100000 };

	if (poll(&pfd, 1, PEER_ARRIVE_MS) <= 0 || want <= 0)
		return;
	for (int i = 0; i < PEER_ARRIVE_MS * 10 && peer_unread(fd) < want; i++) {
		if (poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR)))
			return;
		nanosleep(&nap, NULL);
	}
}

/*
 * A read of the HAVE bytes sent for it, into BUF of N: one recv when they
 * are all in, as they nearly always are (loopback delivers in the sender's
 * softirq); else the rest once it has come, the two as one result.  A peek
 * is left to peer_await and one recv, as a second would not see the same
 * bytes.
 */
static int64_t peer_recv(int fd, void *buf, size_t n, int64_t have, int flags)
{
	ssize_t r = flags & MSG_PEEK ? 0 : recv(fd, buf, n, flags | MSG_DONTWAIT), more;

	if (r >= have || (r < 0 && errno != EAGAIN))
		return sys_res(r);
	if (r < 0)
		r = 0;
	peer_await(fd, have - r);
	more = recv(fd, (char *)buf + r, n - r, flags | MSG_DONTWAIT);
	if (more < 0)
		return r ? r : sys_res(more);
	return r + more;
}

/* Sends up to NEED bytes of BUF's filler on the peer's end FD; returns how
 * many went. */
static int64_t peer_send_from(const void *buf, size_t bufsz, int fd, int64_t need)
{
	int64_t sent = 0;

	while (need > sent) {
		size_t len = need - sent < (int64_t)bufsz ? (size_t)(need - sent) : bufsz;
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n <= 0)
			break;
		sent += n;
	}
	return sent;
}

static int64_t peer_send(struct rp_thread *t, int fd, int64_t need)
{
	return peer_send_from(t->buf, t->bufsz, fd, need);
}

/* Whoever claims a read's bytes sends them: the drain thread, the hold
 * before the read, or the read itself. */
static bool peer_claim(struct rp_op *op)
{
	int32_t none = RP_FED_NONE;

	return atomic_compare_exchange_strong_explicit(&op->fed, &none, RP_FED_BUSY,
						       memory_order_acq_rel, memory_order_acquire);
}

/* What another thread sent for OP, once it has: a send of a request's
 * bytes on loopback, microseconds. */
static int32_t peer_fed(struct rp_op *op)
{
	int32_t f;

	for (int i = 0; (f = atomic_load_explicit(&op->fed, memory_order_acquire)) == RP_FED_BUSY;
	     i++)
		if (i >= 64)
			sched_yield();
	return f;
}

/* What the trace's client did before the read: sent its bytes, hung up, or
 * reset the connection.  Returns the bytes the read may expect. */
static int64_t peer_feed(struct rp_thread *t, struct rp_peer *pr, const struct rp_op *op, int app)
{
	int fd = peer_fd(pr);
	int64_t queued = peer_unread(app);

	if (fd < 0)
		return queued;
	if (op->ret == 0 && !pr->shut) {
		shutdown(fd, SHUT_WR);
		pr->shut = true;
	} else if (op->ret == -ECONNRESET && !pr->shut) {
		struct sockaddr sa = { .sa_family = AF_UNSPEC };

		/* disconnecting a TCP socket sends a reset and keeps the fd */
		connect(fd, &sa, sizeof(sa));
		pr->shut = true;
	}
	if (op->ret > 0 && !pr->shut && op->ret > queued)
		queued += peer_send(t, fd, op->ret - queued);
	return queued;
}

/*
 * Never blocks: a read that found nothing in the trace finds nothing here
 * (EAGAIN, not a failure), and one that got bytes gets the ones just sent.
 */
int64_t peer__read(struct rp_plan *p, struct rp_thread *t, struct rp_op *op, bool *emul)
{
	size_t n = op->a[0] > 0 ? (size_t)op->a[0] : 0;
	int flags = op->kind == RK_RECV ? (int)op->a[1] : 0;
	int fd = fd__get(p, op, op->fd);
	int64_t have;

	if (fd == RP_FD_SINK) {
		*emul = true;
		return op->ret;
	}
	if (fd < 0)
		return fd__missing(op, fd);
	if (n > t->bufsz)
		n = t->bufsz;
	if (!peer_claim(op)) {
		/* sent before: what is readable may still be on its way, so
		 * the rest is what was not sent, not what is missing */
		int32_t fed = peer_fed(op);
		int pfd = fed < op->ret ? peer_fd(&p->peers[op->peer]) : -1;

		have = fed + (pfd < 0 ? 0 : peer_send(t, pfd, op->ret - fed));
	} else {
		have = peer_feed(t, &p->peers[op->peer], op, fd);
	}
	/* fed stays claimed: until this read is done, the drain thread looks
	 * at it as the next to feed, and its bytes went once */
	if (op->ret > 0 && have > (int64_t)n)
		have = n;
	if (op->ret > 0 && have > 0)
		return peer_recv(fd, t->buf, n, have, flags);
	/* nothing sent and nothing queued (the peer is gone): no wait */
	if (op->ret == 0 || op->ret == -ECONNRESET)
		peer_await(fd, 0);
	return sys_res(recv(fd, t->buf, n, flags | MSG_DONTWAIT));
}

/* The feeds of the reads w's hold covers (net_prefeeds), each counted in the
 * read's fed. */
void peer__prefeed(struct rp_plan *p, struct rp_thread *t, const struct rp_op *w)
{
	for (uint32_t i = w->prefeed; i != RP_NONE; i = p->ops[i].prefeed_next) {
		struct rp_op *op = &p->ops[i];
		struct rp_peer *pr = &p->peers[op->peer];
		bool own;
		int fd;

		pthread_mutex_lock(&pe.lock);
		fd = pr->fd;
		own = !pr->incoming || pr->attached || pr->accepted;
		pthread_mutex_unlock(&pe.lock);
		/* Not accepted yet: the connection fd names may be another peer's
		 * until the accept says which (peer__accepted).  Fed as it comes. */
		if (fd >= 0 && own && !pr->shut && peer_claim(op)) {
			atomic_store_explicit(&op->fed, (int32_t)peer_send(t, fd, op->ret),
					      memory_order_release);
			atomic_fetch_add_explicit(&pe.fed_ahead, 1, memory_order_relaxed);
		}
	}
}

/*
 * The trace's client went away before this write: with a reset the write
 * fails ECONNRESET, and after it (or a close) EPIPE.  Played on our end for
 * the reset, on the application's for the broken pipe, which the peer
 * cannot cause without a reset first.
 */
void peer__hangup(struct rp_plan *p, const struct rp_op *op)
{
	struct rp_peer *pr = &p->peers[op->peer];
	int app = fd__get(p, op, op->fd), fd = peer_fd(pr);
	struct pollfd pfd = { .fd = app, .events = POLLOUT };

	if (app < 0 || fd < 0)
		return;
	if (op->ret == -EPIPE) {
		shutdown(app, SHUT_WR);
		return;
	}
	if (!pr->shut) {
		struct sockaddr sa = { .sa_family = AF_UNSPEC };

		connect(fd, &sa, sizeof(sa));
		pr->shut = true;
	}
	/* the reset crosses loopback in softirq: wait for it to land */
	for (int i = 0; i < 100 && !(pfd.revents & (POLLERR | POLLHUP)); i++)
		if (poll(&pfd, 1, 10) < 0)
			break;
}

/* A loopback pair for a connection from before the trace: the application's
 * end goes into each process that had it, the other end is ours. */
static int peer_pair(struct rp_peer *pr)
{
	struct sockaddr_storage ss;
	int fam = pr->family == AF_INET6 ? AF_INET6 : AF_INET;
	socklen_t len = loopback__addr(&ss, fam, 0);
	int l = socket(fam, SOCK_STREAM | SOCK_CLOEXEC, 0), err = 0;

	if (l < 0 || bind(l, (struct sockaddr *)&ss, len) || listen(l, 1))
		err = -errno;
	len = loopback__addr(&ss, fam, err ? 0 : loopback__port(l));
	pr->fd = err ? -1 : socket(fam, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (!err && (pr->fd < 0 || connect(pr->fd, (struct sockaddr *)&ss, len)))
		err = -errno;
	if (!err && (pr->app = accept4(l, NULL, NULL, SOCK_CLOEXEC)) < 0)
		err = -errno;
	if (l >= 0)
		close(l);
	return err;
}

static int peer_attached(struct rp_plan *p)
{
	for (uint32_t i = 0; i < p->ninc; i++) {
		struct rp_peer *pr = &p->peers[p->inc[i].peer];
		struct rp_proc *proc = &p->pr[p->inc[i].pidx];
		int fd, err;

		if (pr->app < 0 && (err = peer_pair(pr)))
			return err;
		fd = dup(pr->app);
		if (fd < 0)
			return -errno;
		if ((uint32_t)p->inc[i].slot < proc->nslot)
			atomic_store(&proc->fd[p->inc[i].slot], fd);
		else
			close(fd);
	}
	return 0;
}

/* Under pe.lock: our end of PR's connection, which is over, closes. */
static void peer_close(struct rp_peer *pr)
{
	if (pr->fd < 0)
		return;
	epoll_ctl(pe.ep, EPOLL_CTL_DEL, pr->fd, NULL);
	if (pr->fd < pe.nfd_peer)
		pe.fd_peer[pr->fd] = 0;
	if (pr->lport > 0 && pr->lport < PEER_PORTS)
		port_peer[pr->lport] = 0;
	close(pr->fd);
	pr->fd = -1;
	pr->lport = 0;
	if (pr->incoming && !pr->attached && pr->listen < pe.p->nlisten) {
		struct peer_listener *l = &pe.lst[pr->listen];

		if (l->open)
			l->open--;
		l->starved = false;
	}
}

/* Under pe.lock: as peer_close, and a client that waited for the
 * descriptor connects. */
static void peer_over(struct rp_peer *pr)
{
	bool starved = pr->incoming && pr->listen < pe.p->nlisten && pe.lst[pr->listen].starved;
	int err;

	peer_close(pr);
	if (!starved)
		return;
	err = peer_next(pe.p, &pe.lst[pr->listen]);
	if (err)
		warn("replay: a client outside the trace cannot connect: %s", strerror(-err));
}

/*
 * Under pe.lock: the peer whose end FD is, or NULL.  An event the drain
 * thread took may be for a connection closed since (peer_reap runs in the
 * application's threads), and FD's number may have gone to another
 * connection since, the application's own among them: a recv on it would
 * take the application's bytes.  Our ends close only under the lock.
 */
static struct rp_peer *peer_of(int fd)
{
	int32_t i = fd >= 0 && fd < pe.nfd_peer ? pe.fd_peer[fd] - 1 : -1;

	return i >= 0 && pe.p->peers[i].fd == fd ? &pe.p->peers[i] : NULL;
}

/*
 * Under pe.lock: PR's end is at its end of stream (END) or failed.  The
 * connection is over when the application has closed its end (every
 * process's copy, or shut it for writing) and made the trace's last call
 * on it; nothing is read on it after both, so ours closes.
 */
static void peer_eof(struct rp_peer *pr, bool end)
{
	epoll_ctl(pe.ep, EPOLL_CTL_DEL, pr->fd, NULL);
	if (end) {
		pr->eof = true;
		if (pr->over)
			peer_over(pr);
	}
}

void peer__done(struct rp_plan *p, const struct rp_op *op)
{
	struct rp_peer *pr = &p->peers[op->peer];

	if (pr->last != (uint32_t)(op - p->ops))
		return;
	pthread_mutex_lock(&pe.lock);
	pr->over = true;
	if (pr->eof)
		peer_over(pr);
	pthread_mutex_unlock(&pe.lock);
}

/*
 * Under pe.lock: the drain thread has taken what the application sent on
 * PR's connection: an answer, as a client sees it.  Such a client sends
 * its next request then, on its own CPU, not in the server's time: the next
 * read's bytes go now, if the reads before it are done (so no earlier read
 * takes them, and a read that found nothing in the trace finds nothing
 * here) and it got bytes in the trace.  Whenever the application reads
 * them, they are there, as they were for the application.  The send is
 * under the lock too: a read done without a claim (its fd a sink, or
 * missing) can let the connection end, and ours close and its number go to
 * another, only in peer_close.
 */
static void peer_feed_next(struct rp_peer *pr)
{
	struct rp_plan *p = pe.p;
	struct rp_op *op;

	/* not accepted yet: fd may still be another peer's (peer__accepted) */
	if (pr->shut || (pr->incoming && !pr->attached && !pr->accepted))
		return;
	while (pr->nextread < pr->nreads &&
	       atomic_load_explicit(&p->ops[pr->reads[pr->nextread]].state, memory_order_acquire) ==
		       RS_DONE)
		pr->nextread++;
	if (pr->nextread == pr->nreads)
		return;
	op = &p->ops[pr->reads[pr->nextread]];
	if (op->ret <= 0 || !peer_claim(op))
		return;
	atomic_store_explicit(&op->fed,
			      (int32_t)peer_send_from(pe.buf, sizeof(pe.buf), pr->fd, op->ret),
			      memory_order_release);
	atomic_fetch_add_explicit(&pe.fed_by_client, 1, memory_order_relaxed);
}

/*
 * What the application sent on FD, taken under the lock, so that FD is
 * still ours (peer_of).  A connection that sends without pause is taken a
 * few buffers at a time, for the application's threads to have the lock
 * between; the rest comes as the next event.
 */
static void peer_drain(int fd)
{
	struct rp_peer *pr;
	size_t got = 0;
	ssize_t r = 0;
	int err = 0;

	pthread_mutex_lock(&pe.lock);
	pr = peer_of(fd);
	while (pr && got < PEER_DRAIN_MAX &&
	       (r = recv(fd, pe.buf, sizeof(pe.buf), MSG_DONTWAIT)) > 0)
		got += (size_t)r;
	if (r < 0)
		err = errno;
	if (pr && (r == 0 || (r < 0 && err != EAGAIN)))
		peer_eof(pr, r == 0);
	else if (pr && r < 0 && got)
		peer_feed_next(pr);
	pthread_mutex_unlock(&pe.lock);
}

/* Drains what the application sends, and feeds the next read of what it
 * answered; a connection it closed is forgotten. */
static void *peer_thread(void *arg)
{
	struct epoll_event ev[32];

	(void)arg;
	for (;;) {
		int n = epoll_wait(pe.ep, ev, 32, -1);

		for (int k = 0; k < n; k++) {
			if (ev[k].data.u64 == PEER_STOP)
				return NULL;
			peer_drain((int)ev[k].data.u64);
		}
	}
}

int peer__start(struct rp_plan *p)
{
	struct epoll_event sev = { .events = EPOLLIN, .data.u64 = PEER_STOP };
	int err = 0;

	if (!p->npeers)
		return 0;
	pe.stop = eventfd(0, EFD_CLOEXEC);
	if (pe.ep < 0 || pe.stop < 0)
		return pe.ep < 0 ? -EBADF : -errno;
	if (epoll_ctl(pe.ep, EPOLL_CTL_ADD, pe.stop, &sev))
		return -errno;
	for (uint32_t i = 0; i < p->npeers && !err; i++)
		if (p->peers[i].attached && p->peers[i].fd >= 0)
			err = peer_watch(p->peers[i].fd);
	if (!err)
		err = -pthread_create(&pe.th, NULL, peer_thread, NULL);
	pe.running = !err;
	return err;
}

uint64_t peer__fed_ahead(void)
{
	return atomic_load_explicit(&pe.fed_ahead, memory_order_relaxed);
}

uint64_t peer__fed_by_client(void)
{
	return atomic_load_explicit(&pe.fed_by_client, memory_order_relaxed);
}

void peer__stop(void)
{
	uint64_t one = 1;

	if (pe.running && write(pe.stop, &one, sizeof(one)) == sizeof(one))
		pthread_join(pe.th, NULL);
	pe.running = false;
	for (uint32_t i = 0; pe.p && i < pe.p->npeers; i++) {
		struct rp_peer *pr = &pe.p->peers[i];

		if (pr->fd >= 0)
			close(pr->fd);
		if (pr->lfd >= 0)
			close(pr->lfd);
		if (pr->app >= 0)
			close(pr->app);
		free(pr->reads);
		pr->reads = NULL;
		pr->nreads = pr->nextread = 0;
	}
	if (pe.ep >= 0)
		close(pe.ep);
	if (pe.stop >= 0)
		close(pe.stop);
	pe.ep = pe.stop = -1;
	for (uint32_t k = 0; pe.lst && pe.p && k < pe.p->nlisten; k++) {
		free(pe.lst[k].peers);
		free(pe.lst[k].redial);
	}
	free(pe.lst);
	free(pe.fd_peer);
	pe.lst = NULL;
	pe.fd_peer = NULL;
}

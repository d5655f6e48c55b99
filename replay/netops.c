// SPDX-License-Identifier: GPL-2.0
/*
 * Socket ops.  Every replay socket lives on loopback: binds take an
 * ephemeral port (never the recorded one, which may be taken on this host)
 * and connects go to the replay port of the traced listener, or to the
 * replayer's own peer for a server outside the trace.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include "replay/replay.h"
#include "replay/run.h"

static int sock_family(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	return getsockname(fd, (struct sockaddr *)&ss, &len) ? AF_INET : ss.ss_family;
}

static int64_t net_socket(struct rp_plan *p, struct rp_op *op)
{
	int type = op->a[1] | SOCK_CLOEXEC, fd;

	if (op->a[0] != AF_INET && op->a[0] != AF_INET6) {
		report__note(op, RR_UNIX_SOCKET); /* unix sockets to daemons, netlink: not yet */
		return RP_SKIPPED;
	}
	fd = socket(op->a[0], type, op->a[2]);
	if (fd < 0)
		return -errno;
	fd__set(p, op->pidx, op->fd2, fd, op->a[1] & SOCK_CLOEXEC ? RP_FL_CLOEXEC : 0);
	return op->ret;
}

/* Multi-host: any address instead of loopback, for the other hosts' ranks. */
static void net_any(struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_addr = in6addr_any;
	else
		((struct sockaddr_in *)ss)->sin_addr.s_addr = htonl(INADDR_ANY);
}

/* Multi-host: another host's listener, at its rank's IPv4 address (for an
 * IPv6 socket, mapped). */
static void net_remote(struct sockaddr_storage *ss, uint32_t addr)
{
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

	if (ss->ss_family != AF_INET6) {
		((struct sockaddr_in *)ss)->sin_addr.s_addr = addr;
		return;
	}
	memset(&a6->sin6_addr, 0, sizeof(a6->sin6_addr));
	a6->sin6_addr.s6_addr[10] = a6->sin6_addr.s6_addr[11] = 0xff;
	memcpy(&a6->sin6_addr.s6_addr[12], &addr, 4);
}

static int64_t net_bind(struct rp_plan *p, const struct rp_op *op, int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback__addr(&ss, sock_family(fd), 0);
	int one = 1;

	if (mhost__active())
		net_any(&ss);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len))
		return -errno;
	if (op->a[3] >= 0)
		atomic_store(&p->ports[op->a[3]], loopback__port(fd));
	return 0;
}

/* Clients outside the trace start connecting as soon as the listener listens. */
static int64_t net_listen(struct rp_plan *p, const struct rp_op *op, int fd)
{
	int port, backlog = op->a[0] > 0 ? (int)op->a[0] : 16;

	if (listen(fd, backlog))
		return -errno;
	if (op->a[3] < 0)
		return 0;
	port = atomic_load(&p->ports[op->a[3]]);
	return peer__connect_in(p, op->a[3], sock_family(fd), port, backlog) ? -EIO : 0;
}

static int64_t net_connect(struct rp_plan *p, struct rp_op *op, int fd)
{
	struct sockaddr_storage ss;
	uint32_t addr = 0;
	int port = -1, r;
	socklen_t len;

	if (op->a[3] >= 0)
		port = atomic_load(&p->ports[op->a[3]]);
	else if (op->a[2] >= 0)
		port = p->peers[op->a[2]].port;
	else if (op->ret == -ECONNREFUSED)
		port = loopback__refusing_port();
	if (port <= 0) {
		report__note(op, RR_NO_PEER_PORT);
		return RP_SKIPPED;
	}
	len = loopback__addr(&ss, sock_family(fd), port);
	if (op->a[3] >= 0 && mhost__listener(op->a[3], &addr))
		net_remote(&ss, addr);
	if (mhost__active())
		loopback__nodelay(fd);
	r = connect(fd, (struct sockaddr *)&ss, len) ? -errno : 0;
	/* a non-blocking connect's end checked by connecting again (hiredis):
	 * the replay's connection is up, as the application's was */
	if (r == -EISCONN && op->ret == 0)
		return 0;
	if (r && r != -EINPROGRESS)
		return r;
	if (op->a[2] >= 0 && peer__connected(p, op->a[2]))
		return -ECONNREFUSED;
	/* on loopback a non-blocking connect has completed by now; across
	 * hosts, wait for it as the application's poll for it did */
	if (addr && r)
		mhost__connected(fd);
	return op->ret == -EINPROGRESS ? -EINPROGRESS : 0;
}

/* --order single: a call that would wait for another traced thread fails
 * with EAGAIN instead (connects complete through the backlog, never wait). */
static bool would_block(const struct rp_op *op, int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return op->nonblock && poll(&pfd, 1, 0) == 0;
}

/*
 * Connections an accept took that were another accept's.  A listener can
 * have two kinds of client in its backlog, in whatever order they came: the
 * replayer's own, playing clients outside the trace, and replayed traced
 * clients (another host's, for a server attached to with -p and loaded from
 * there).  An accept that wanted one kind holds the other for the accept
 * that wants it, instead of feeding a connection the wrong reads.
 */
#define NET_HELD_MAX 64
struct held_conn {
	int lfd, fd;
	bool played;
};

static struct {
	pthread_mutex_t lock;
	uint32_t n;
	struct held_conn c[NET_HELD_MAX];
} held = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int held_take(int lfd, bool played)
{
	int fd = -1;

	pthread_mutex_lock(&held.lock);
	for (uint32_t i = 0; fd < 0 && i < held.n; i++)
		if (held.c[i].lfd == lfd && held.c[i].played == played) {
			fd = held.c[i].fd;
			held.c[i] = held.c[--held.n];
		}
	pthread_mutex_unlock(&held.lock);
	return fd;
}

static bool held_has(int lfd, bool played)
{
	bool has = false;

	pthread_mutex_lock(&held.lock);
	for (uint32_t i = 0; !has && i < held.n; i++)
		has = held.c[i].lfd == lfd && held.c[i].played == played;
	pthread_mutex_unlock(&held.lock);
	return has;
}

static bool held_put(int lfd, int fd, bool played)
{
	bool room;

	pthread_mutex_lock(&held.lock);
	room = held.n < NET_HELD_MAX;
	if (room)
		held.c[held.n++] = (struct held_conn){ lfd, fd, played };
	pthread_mutex_unlock(&held.lock);
	return room;
}

/* The next connection of the kind OP took in the trace (with no room left
 * to hold the other kind, whatever comes). */
static int net_accept_kind(struct rp_plan *p, const struct rp_op *op, int fd)
{
	bool played = op->peer >= 0;
	int nfd = held_take(fd, played);

	while (nfd < 0) {
		nfd = accept4(fd, NULL, NULL, (op->a[0] | SOCK_CLOEXEC) & ~SOCK_NONBLOCK);
		if (nfd < 0)
			return -errno;
		if (peer__played(p, nfd) != played && held_put(fd, nfd, !played))
			nfd = -1;
	}
	return nfd;
}

static int64_t net_accept(struct rp_plan *p, const struct rp_op *op, int fd)
{
	int nfd;

	if (op->ret >= 0 && mhost__active() && !held_has(fd, op->peer >= 0))
		mhost__incoming(fd);
	/* a server drains its listener until EAGAIN: replay the EAGAIN, and
	 * leave a pending connection for the accept that took it in the trace */
	if (would_block(op, fd) || op->ret == -EAGAIN)
		return -EAGAIN;
	nfd = net_accept_kind(p, op, fd);
	if (nfd < 0)
		return nfd;
	if (mhost__active())
		loopback__nodelay(nfd);
	if (op->peer >= 0)
		peer__accepted(p, op->peer, nfd);
	fd__set(p, op->pidx, op->fd2, nfd, op->a[0] & SOCK_CLOEXEC ? RP_FL_CLOEXEC : 0);
	return op->ret;
}

/* A file's bytes to a socket (or any fd), as the application sent them. */
static int64_t net_sendfile(struct rp_plan *p, struct rp_op *op, int out, bool *emul)
{
	int in = fd__get(p, op, op->fd2);
	off_t off = op->a[1];

	if (in == RP_FD_SINK) {
		*emul = true;
		return op->ret;
	}
	if (in < 0)
		return fd__missing(op, in);
	return sys_res(sendfile(out, in, op->a[1] >= 0 ? &off : NULL, op->a[0]));
}

/*
 * sendmsg with SCM_RIGHTS: the replay's fd for the one the trace passed goes
 * with the bytes, so that the receiver's calls on it are on the same
 * connection, its peer played as the sender's was.
 */
static int64_t net_send_fd(struct rp_plan *p, struct rp_thread *t, struct rp_op *op, int fd,
			   size_t n)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { t->buf, n };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	int pass = fd__get(p, op, op->fd2);
	struct cmsghdr *c;

	/* not in the replay (failed or emulated where made): the bytes alone,
	 * and the receiver's recvmsg says what it missed */
	if (pass >= 0) {
		m.msg_control = cbuf;
		m.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &pass, sizeof(int));
	}
	return sys_res(sendmsg(fd, &m, op->a[1] | MSG_NOSIGNAL));
}

/* recvmsg that got an fd with SCM_RIGHTS in the trace: it gets it here too,
 * into the slot the receiver's later calls use.  Without one, it failed. */
static int64_t net_recv_fd(struct rp_plan *p, struct rp_thread *t, struct rp_op *op, int fd,
			   size_t n)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { t->buf, n };
	struct msghdr m = { .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	int64_t r = sys_res(recvmsg(fd, &m, (int)op->a[1] | MSG_CMSG_CLOEXEC));
	struct cmsghdr *c = r >= 0 ? CMSG_FIRSTHDR(&m) : NULL;
	int nfd;

	if (r < 0)
		return r;
	if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
		return -EBADF;
	memcpy(&nfd, CMSG_DATA(c), sizeof(int));
	fd__set(p, op->pidx, op->fd2, nfd, op->a[1] & MSG_CMSG_CLOEXEC ? RP_FL_CLOEXEC : 0);
	return r;
}

int64_t netops__op(struct rp_plan *p, struct rp_thread *t, struct rp_op *op, bool *emul)
{
	size_t n = op->a[0] > 0 ? (size_t)op->a[0] : 0;
	int fd;

	if (op->kind == RK_SOCKET)
		return net_socket(p, op);
	fd = fd__get(p, op, op->fd);
	if (fd == RP_FD_SINK) {
		report__note(op, RR_OUTSIDE);
		*emul = true;
		return op->ret;
	}
	if (fd < 0)
		return fd__missing(op, fd);
	if (n > t->bufsz)
		n = t->bufsz;
	switch (op->kind) {
	case RK_BIND:
		/* Open MPI tries ports from 1024 up until one is free: bound
		 * here, the first one's ephemeral port would make the next
		 * binds fail EINVAL, the one that took a port among them */
		if (op->ret < 0) {
			report__note(op, RR_BIND_FAILED);
			*emul = true;
			return op->ret;
		}
		return net_bind(p, op, fd);
	case RK_LISTEN:
		return net_listen(p, op, fd);
	case RK_CONNECT:
		return net_connect(p, op, fd);
	case RK_ACCEPT:
		return net_accept(p, op, fd);
	case RK_SEND:
		if (op->fd2 >= 0)
			return net_send_fd(p, t, op, fd, n);
		return sys_res(send(fd, t->buf, n, op->a[1] | MSG_NOSIGNAL));
	case RK_RECV:
		if (op->peer >= 0)
			return peer__read(p, t, op, emul);
		if (would_block(op, fd))
			return -EAGAIN;
		if (op->fd2 >= 0)
			return net_recv_fd(p, t, op, fd, n);
		return sys_res(recv(fd, t->buf, n, op->a[1]));
	case RK_SHUTDOWN:
		return sys_res(shutdown(fd, op->a[0]));
	case RK_SENDFILE:
		return net_sendfile(p, op, fd, emul);
	default:
		return RP_SKIPPED;
	}
}

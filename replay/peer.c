// SPDX-License-Identifier: GPL-2.0
/*
 * The replayer as the far end of connections whose peer was not traced: one
 * thread with an epoll set.  For a connect it listens on loopback and
 * accepts; for an accept it connects once the application's listener
 * listens.  Either way it sinks what the application sends and sources the
 * bytes the application read in the trace.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/log.h"
#include "replay/replay.h"
#include "replay/run.h"

#define PEER_LISTENER 1ull /* epoll data: (peer << 1) | PEER_LISTENER */
#define PEER_STOP ~0ull

static struct {
	struct rp_plan *p;
	int ep, stop;
	pthread_t th;
	bool running;
	char buf[65536];
} pe = { .ep = -1, .stop = -1 };

static int peer_watch(int fd, uint64_t data, uint32_t events, int op)
{
	struct epoll_event ev = { .events = events, .data.u64 = data };

	return epoll_ctl(pe.ep, op, fd, &ev) ? -errno : 0;
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

int peer__setup(struct rp_plan *p)
{
	int err = 0;

	pe.p = p;
	for (uint32_t i = 0; i < p->npeers && !err; i++) {
		if (!p->peers[i].incoming)
			err = peer_listen(&p->peers[i]);
		dbg("peer %u: %s, sources %llu bytes", i,
		    p->peers[i].incoming ? "connects to a traced listener" : "listens",
		    (unsigned long long)p->peers[i].quota);
	}
	if (err)
		err("replay: cannot listen on loopback for a peer outside the trace: %s",
		    strerror(-err));
	return err;
}

/* Runs in the application thread that called listen(). */
int peer__connect_in(struct rp_plan *p, uint32_t listen, int family, int port)
{
	for (uint32_t i = 0; i < p->npeers; i++) {
		struct rp_peer *pr = &p->peers[i];
		struct sockaddr_storage ss;
		socklen_t len;

		if (!pr->incoming || pr->listen != listen || pr->fd >= 0)
			continue;
		pr->family = family;
		len = loopback__addr(&ss, pr->family, port);
		pr->fd = socket(pr->family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (pr->fd < 0)
			return -errno;
		if (connect(pr->fd, (struct sockaddr *)&ss, len) && errno != EINPROGRESS)
			return -errno;
		if (peer_watch(pr->fd, (uint64_t)i << 1, EPOLLIN | EPOLLOUT, EPOLL_CTL_ADD))
			return -errno;
	}
	return 0;
}

static void peer_close(struct rp_peer *pr)
{
	epoll_ctl(pe.ep, EPOLL_CTL_DEL, pr->fd, NULL);
	close(pr->fd);
	pr->fd = -2; /* done: not -1, which would connect again */
}

static void peer_io(struct rp_peer *pr, uint32_t i, uint32_t events)
{
	ssize_t n;

	if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
		while ((n = read(pr->fd, pe.buf, sizeof(pe.buf))) > 0)
			;
		if (n == 0 || (n < 0 && errno != EAGAIN)) {
			peer_close(pr);
			return;
		}
	}
	while ((events & EPOLLOUT) && pr->sent < pr->quota) {
		size_t want = pr->quota - pr->sent < sizeof(pe.buf) ? pr->quota - pr->sent :
								      sizeof(pe.buf);

		n = send(pr->fd, pe.buf, want, MSG_NOSIGNAL);
		if (n <= 0)
			break;
		pr->sent += n;
	}
	if (pr->sent >= pr->quota) {
		/* the client hung up after its last bytes: the application's
		 * read of 0 needs our end closed too */
		if (pr->eof && !pr->shut) {
			shutdown(pr->fd, SHUT_WR);
			pr->shut = true;
		}
		peer_watch(pr->fd, (uint64_t)i << 1, EPOLLIN, EPOLL_CTL_MOD);
	}
}

static void peer_accept(struct rp_peer *pr, uint32_t i)
{
	int fd = accept4(pr->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return;
	epoll_ctl(pe.ep, EPOLL_CTL_DEL, pr->lfd, NULL);
	pr->fd = fd;
	peer_watch(fd, (uint64_t)i << 1, EPOLLIN | EPOLLOUT, EPOLL_CTL_ADD);
}

static void *peer_thread(void *arg)
{
	struct epoll_event ev[32];

	(void)arg;
	for (;;) {
		int n = epoll_wait(pe.ep, ev, 32, -1);

		for (int k = 0; k < n; k++) {
			uint64_t d = ev[k].data.u64;
			struct rp_peer *pr;

			if (d == PEER_STOP)
				return NULL;
			pr = &pe.p->peers[d >> 1];
			if (d & PEER_LISTENER)
				peer_accept(pr, d >> 1);
			else if (pr->fd >= 0)
				peer_io(pr, d >> 1, ev[k].events);
		}
	}
}

int peer__start(struct rp_plan *p)
{
	int err;

	if (!p->npeers)
		return 0;
	pe.ep = epoll_create1(EPOLL_CLOEXEC);
	pe.stop = eventfd(0, EFD_CLOEXEC);
	if (pe.ep < 0 || pe.stop < 0)
		return -errno;
	memset(pe.buf, 'p', sizeof(pe.buf));
	err = peer_watch(pe.stop, PEER_STOP, EPOLLIN, EPOLL_CTL_ADD);
	for (uint32_t i = 0; i < p->npeers && !err; i++)
		if (!p->peers[i].incoming)
			err = peer_watch(p->peers[i].lfd, ((uint64_t)i << 1) | PEER_LISTENER,
					  EPOLLIN, EPOLL_CTL_ADD);
	if (!err)
		err = -pthread_create(&pe.th, NULL, peer_thread, NULL);
	pe.running = !err;
	return err;
}

void peer__stop(void)
{
	uint64_t one = 1;

	if (pe.running && write(pe.stop, &one, sizeof(one)) == sizeof(one))
		pthread_join(pe.th, NULL);
	pe.running = false;
	for (uint32_t i = 0; pe.p && i < pe.p->npeers; i++) {
		if (pe.p->peers[i].fd >= 0)
			close(pe.p->peers[i].fd);
		if (pe.p->peers[i].lfd >= 0)
			close(pe.p->peers[i].lfd);
	}
	if (pe.ep >= 0)
		close(pe.ep);
	if (pe.stop >= 0)
		close(pe.stop);
	pe.ep = pe.stop = -1;
}

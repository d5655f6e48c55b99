// SPDX-License-Identifier: GPL-2.0
/*
 * Loopback addresses and the port a socket got: what the replay's sockets
 * (netops.c) and its own peers (peer.c) both need, below either.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "replay/replay.h"
#include "replay/run.h"

unsigned int loopback__addr(struct sockaddr_storage *ss, int family, int port)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_addr = in6addr_loopback;
		a->sin6_port = htons(port);
		return sizeof(*a);
	}
	((struct sockaddr_in *)ss)->sin_family = AF_INET;
	((struct sockaddr_in *)ss)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	((struct sockaddr_in *)ss)->sin_port = htons(port);
	return sizeof(struct sockaddr_in);
}

int loopback__port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return -errno;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

static int refusing_port;

static void loopback_refuser(void)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback__addr(&ss, AF_INET, 0);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return;
	if (bind(fd, (struct sockaddr *)&ss, len)) {
		close(fd);
		return;
	}
	/* the socket stays open, never listening: the port stays ours */
	refusing_port = loopback__port(fd);
}

/*
 * A loopback port where a connect is refused, for the connects the trace
 * saw refused: a real refusal from the kernel rather than the recorded
 * result handed back. An IPv6 socket is refused on ::1 at the same port,
 * where nothing of ours listens either. 0 when no port could be had.
 */
int loopback__refusing_port(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, loopback_refuser);
	return refusing_port > 0 ? refusing_port : 0;
}

/*
 * In a replay across hosts every TCP connection sends each write at once,
 * the replayed ones and the replayer's played peers alike: the trace does
 * not hold setsockopt, and applications that talk in small messages (Open
 * MPI, databases) set TCP_NODELAY; without it a small write after another
 * waits for a delayed ACK, 40 ms, which the application never waited.
 */
void loopback__nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

// SPDX-License-Identifier: GPL-2.0
/*
 * A server that hands its connections to a child, as a pre-forked server's
 * acceptor does: the parent listens on loopback, accepts each client and
 * passes the socket over a Unix socketpair with SCM_RIGHTS, then closes its
 * own copy; the child receives it, reads the client's request, answers and
 * reads until the client hangs up.  The port goes to PORTFILE once
 * listening; the clients are the caller's.
 *
 *   passfd PORTFILE NCLIENTS
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void fd_send(int via, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	char one = 'c';
	struct iovec iov = { &one, 1 };
	struct msghdr m = { .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(via, &m, 0) != 1)
		die("sendmsg");
}

/* The next connection from the parent, or -1 when it has no more. */
static int fd_recv(int via)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	char one;
	struct iovec iov = { &one, 1 };
	struct msghdr m = { .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	int fd;

	if (recvmsg(via, &m, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&m);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		die("recvmsg: no fd");
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

static void serve(int via)
{
	char buf[4096];
	int fd;

	while ((fd = fd_recv(via)) >= 0) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n <= 0 || send(fd, "ok\n", 3, MSG_NOSIGNAL) != 3)
			die("serve");
		while (recv(fd, buf, sizeof(buf), 0) > 0)
			;
		close(fd);
	}
}

static int listen_lo(const char *portfile)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	FILE *f;

	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 8) ||
	    getsockname(l, (struct sockaddr *)&a, &len))
		die("listen");
	f = fopen(portfile, "w");
	if (!f || fprintf(f, "%d\n", ntohs(a.sin_port)) < 0 || fclose(f))
		die(portfile);
	return l;
}

int main(int argc, char **argv)
{
	int sv[2], l, n;
	pid_t child;

	if (argc != 3)
		return 2;
	n = atoi(argv[2]);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		die("socketpair");
	child = fork();
	if (child < 0)
		die("fork");
	if (!child) {
		close(sv[0]);
		serve(sv[1]);
		_exit(0);
	}
	close(sv[1]);
	l = listen_lo(argv[1]);
	for (int i = 0; i < n; i++) {
		int c = accept4(l, NULL, NULL, SOCK_CLOEXEC);

		if (c < 0)
			die("accept");
		fd_send(sv[0], c);
		close(c);
	}
	close(sv[0]);
	return waitpid(child, NULL, 0) == child ? 0 : 1;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * A TCP client and server on 127.0.0.1 that log every read and write they
 * make as stream bytes, so a test can tell which send fed which receive.
 *
 *   tcp_pair server PORTFILE LOG ROUNDS   listen on a free port, write it to
 *                                          PORTFILE, serve one client
 *   tcp_pair client PORT LOG ROUNDS       connect and run ROUNDS requests
 *
 * Round i: the client writes a request of req_len(i) bytes, the server
 * reads it in pieces of at most 700 bytes and answers 64 bytes, which the
 * client reads.  LOG gets "send OFF LEN" and "recv OFF LEN" per call, OFF
 * counted from 0 in that direction of the stream.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define REPLY	 64
#define READ_MAX 700

struct side {
	int fd;
	FILE *log;
	unsigned long sent, got; /* stream bytes so far each way */
};

static size_t req_len(int i)
{
	return 100 + (size_t)i * 37 % 900;
}

static void put(struct side *s, size_t n)
{
	static char buf[1024];

	while (n) {
		ssize_t w = write(s->fd, buf, n);

		if (w <= 0)
			exit(1);
		fprintf(s->log, "send %lu %zd\n", s->sent, w);
		s->sent += w;
		n -= w;
	}
}

static void get(struct side *s, size_t n, size_t most)
{
	static char buf[1024];

	while (n) {
		ssize_t r = read(s->fd, buf, n < most ? n : most);

		if (r <= 0)
			exit(1);
		fprintf(s->log, "recv %lu %zd\n", s->got, r);
		s->got += r;
		n -= r;
	}
}

static int serve(const char *portfile, struct side *s, int rounds)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0);
	FILE *f;

	if (bind(l, (void *)&a, sizeof(a)) || listen(l, 1) || getsockname(l, (void *)&a, &len))
		return 1;
	f = fopen(portfile, "w");
	if (!f || fprintf(f, "%d\n", ntohs(a.sin_port)) < 0 || fclose(f))
		return 1;
	s->fd = accept(l, NULL, NULL);
	if (s->fd < 0)
		return 1;
	for (int i = 0; i < rounds; i++) {
		get(s, req_len(i), READ_MAX);
		put(s, REPLY);
	}
	close(s->fd);
	close(l);
	return 0;
}

static int client(int port, struct side *s, int rounds)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

	s->fd = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(s->fd, (void *)&a, sizeof(a)))
		return 1;
	for (int i = 0; i < rounds; i++) {
		put(s, req_len(i));
		get(s, REPLY, REPLY);
	}
	close(s->fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct side s = { 0 };
	int ret, rounds;

	if (argc != 5)
		return 2;
	s.log = fopen(argv[3], "w");
	rounds = atoi(argv[4]);
	if (!s.log || rounds <= 0)
		return 2;
	if (!strcmp(argv[1], "server"))
		ret = serve(argv[2], &s, rounds);
	else
		ret = client(atoi(argv[2]), &s, rounds);
	return fclose(s.log) || ret;
}

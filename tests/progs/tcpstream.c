// SPDX-License-Identifier: GPL-2.0
/*
 * Two ends of one TCP connection on 127.0.0.1, run as two processes (two
 * "hosts" when each is recorded on its own), moving known byte counts with
 * every send and receive call iotrace gives a stream position:
 *
 *   tcpstream server PORTFILE LOG   listens, writes its port to PORTFILE
 *   tcpstream client PORT LOG       connects to 127.0.0.1:PORT
 *
 * 1. client -> server: write, send, sendmsg, writev, sendfile, in sizes
 *    that do not divide the reads; the server reads in small pieces with
 *    read, recv, recvmsg, readv, so most reads are partial;
 * 2. server -> client the same way round;
 * 3. client -> server from two threads taking strict turns (each sends only
 *    after the other's send returned), so the order is known;
 * 4. the server closes, the client reads the end of the stream.
 * The client also sends one UDP datagram: a socket without a stream.
 * LOG gets one line per transfer: "send CALL BYTES" or "recv CALL BYTES",
 * in order (the two threads' lines in their turns).
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define C2S	 20000 /* bytes of phase 1 */
#define S2C	 15000 /* bytes of phase 2 */
#define TURNS	 10    /* sends of each thread in phase 3 */
#define TURN_LEN 333

static FILE *logfile;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int turn; /* whose send is next in phase 3: 0 or 1 */
static int conn;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void log_io(const char *dir, const char *call, ssize_t n)
{
	if (n < 0)
		die(call);
	fprintf(logfile, "%s %s %zd\n", dir, call, n);
	fflush(logfile);
}

/* One send of len bytes by the call of this round; returns what it sent. */
static ssize_t send_one(int fd, int round, size_t len)
{
	static char buf[4096];
	struct iovec iov[2] = { { buf, len / 2 }, { buf + len / 2, len - len / 2 } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	static const char *const names[] = { "write", "sendto", "sendmsg", "writev" };
	ssize_t n;

	switch (round % 4) {
	case 0:
		n = write(fd, buf, len);
		break;
	case 1:
		n = send(fd, buf, len, 0);
		break;
	case 2:
		n = sendmsg(fd, &mh, 0);
		break;
	default:
		n = writev(fd, iov, 2);
		break;
	}
	log_io("send", names[round % 4], n);
	return n;
}

/* One receive of at most len bytes; 0 at the end of the stream. */
static ssize_t recv_one(int fd, int round, size_t len)
{
	static char buf[4096];
	struct iovec iov[2] = { { buf, len / 2 }, { buf + len / 2, len - len / 2 } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	static const char *const names[] = { "read", "recvfrom", "recvmsg", "readv" };
	ssize_t n;

	switch (round % 4) {
	case 0:
		n = read(fd, buf, len);
		break;
	case 1:
		n = recv(fd, buf, len, 0);
		break;
	case 2:
		n = recvmsg(fd, &mh, 0);
		break;
	default:
		n = readv(fd, iov, 2);
		break;
	}
	log_io("recv", names[round % 4], n);
	return n;
}

static void send_all(int fd, size_t total)
{
	static const size_t sizes[] = { 1000, 1, 2500, 77, 4000 };
	size_t done = 0;

	for (int i = 0; done < total; i++) {
		size_t len = sizes[i % 5] < total - done ? sizes[i % 5] : total - done;

		done += send_one(fd, i, len);
	}
}

/* Reads exactly total bytes in pieces of odd sizes. */
static void recv_all(int fd, size_t total)
{
	static const size_t sizes[] = { 7, 1500, 300, 4096, 64 };
	size_t done = 0;

	for (int i = 0; done < total; i++) {
		size_t len = sizes[i % 5] < total - done ? sizes[i % 5] : total - done;
		ssize_t n = recv_one(fd, i, len);

		if (n == 0)
			die("early end of stream");
		done += n;
	}
}

/* A file's bytes into the socket: sendfile's stream position is the socket's. */
static void send_file(int fd, size_t len)
{
	char tmpl[] = "/tmp/tcpstream.XXXXXX", buf[4096] = { 0 };
	int f = mkstemp(tmpl);

	if (f < 0 || write(f, buf, len) != (ssize_t)len)
		die("temporary file");
	unlink(tmpl);
	log_io("send", "sendfile", sendfile(fd, f, &(off_t){ 0 }, len));
	close(f);
}

static void *turn_taker(void *arg)
{
	int me = (int)(long)arg;

	for (int i = 0; i < TURNS; i++) {
		pthread_mutex_lock(&mu);
		while (turn != me)
			pthread_cond_wait(&cv, &mu);
		/* under the lock: the other thread is waiting, not sending */
		if (send(conn, (char[TURN_LEN]){ 0 }, TURN_LEN, 0) != TURN_LEN)
			die("send");
		fprintf(logfile, "send sendto %d\n", TURN_LEN);
		fflush(logfile);
		turn = !me;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	}
	return NULL;
}

static void one_datagram(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int u = socket(AF_INET, SOCK_DGRAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (u < 0 || sendto(u, "x", 1, 0, (struct sockaddr *)&a, sizeof(a)) != 1)
		die("udp");
	close(u);
}

static int client(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	pthread_t th[2];
	char buf[16];

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	conn = socket(AF_INET, SOCK_STREAM, 0);
	if (conn < 0 || connect(conn, (struct sockaddr *)&a, sizeof(a)))
		die("connect");
	send_all(conn, C2S - 1000);
	send_file(conn, 1000);
	recv_all(conn, S2C);
	for (long i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, turn_taker, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	if (recv(conn, buf, sizeof(buf), 0) != 0) /* the server's close */
		die("end of stream");
	log_io("recv", "recvfrom", 0);
	one_datagram(port);
	close(conn);
	return 0;
}

static int server(const char *portfile)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0);
	FILE *pf;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &alen))
		die("listen");
	pf = fopen(portfile, "w");
	if (!pf || fprintf(pf, "%d\n", ntohs(a.sin_port)) < 0 || fclose(pf))
		die(portfile);
	conn = accept(l, NULL, NULL);
	if (conn < 0)
		die("accept");
	recv_all(conn, C2S);
	send_all(conn, S2C);
	recv_all(conn, 2 * TURNS * TURN_LEN);
	close(conn);
	close(l);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 4 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		fprintf(stderr, "usage: tcpstream server PORTFILE LOG | client PORT LOG\n");
		return 2;
	}
	logfile = fopen(argv[3], "w");
	if (!logfile)
		die(argv[3]);
	return argv[1][0] == 's' ? server(argv[2]) : client(atoi(argv[2]));
}

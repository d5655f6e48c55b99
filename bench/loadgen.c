// SPDX-License-Identifier: GPL-2.0
/*
 * loadgen: an open-loop, fixed-rate load generator for the capture-cost
 * benchmark (bench/cost.sh, issue 22), HTTP GET or redis SET/GET over
 * keep-alive connections to 127.0.0.1.
 *
 * Usage: loadgen -p PORT -k http|set|get [-c CONNS] [-r RATE] [-n REQUESTS]
 *                [-d MAX_SECONDS] [-u PATH]
 *
 * Request i is due at start + i / RATE whether or not the server kept up,
 * and its latency is taken from that due time, not from when a connection
 * was free to send it: a server that stalls is charged for the requests that
 * queued behind the stall (no coordinated omission).  Each connection has
 * one request in flight.  -r 0 is closed loop: every connection sends as soon
 * as its previous reply is in, the latency taken from the send.  The run
 * ends when all REQUESTS are answered or after MAX_SECONDS; requests not
 * answered then count as errors.  Prints one line:
 *   requests=.. ok=.. errors=.. reconnects=.. elapsed_s=.. rate=..
 *   p50_us=.. p90_us=.. p99_us=.. max_us=..
 * and exits 0 when every request got a good reply, 1 otherwise, 2 on bad use.
 * A bench tool, not part of iotrace.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#define MAX_CONNS    1024
#define MAX_REQUESTS 5000000L
#define MAX_SECONDS  600
#define HDR_MAX	     8192
#define NSEC	     1000000000LL

enum kind { KIND_HTTP, KIND_SET, KIND_GET };

struct conn {
	int fd;
	int busy;	   /* a request is in flight */
	int64_t due;	   /* when the request in flight was due, ns */
	char buf[HDR_MAX]; /* the reply's header or RESP line, so far */
	size_t len;
	long body_left;	 /* bytes still to come after the header; -1 until known */
	int close_after; /* the server said Connection: close */
	int bad;	 /* the reply is an error */
};

struct gen {
	enum kind kind;
	int port, nconns;
	double rate;
	long n, sent, ok, errors, reconnects;
	int64_t start, limit;
	int64_t *lat; /* ns, one per good reply */
	const char *path;
	struct conn *conns;
	int *idle, nidle; /* a stack of the connections with nothing in flight */
	int ep, timer;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "loadgen: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* A blocking connect, then non-blocking: the connects are not what is timed. */
static int conn__open(struct gen *g, struct conn *c, int idx)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(g->port) };
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = idx };
	int one = 1;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	c->fd = socket(AF_INET, SOCK_STREAM, 0);
	if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (fcntl(c->fd, F_SETFL, O_NONBLOCK) < 0)
		return -errno;
	if (epoll_ctl(g->ep, EPOLL_CTL_ADD, c->fd, &ev) < 0)
		return -errno;
	c->busy = 0;
	g->idle[g->nidle++] = idx;
	return 0;
}

/* Drop a connection and open a new one; with a request in flight, it failed. */
static void conn__reopen(struct gen *g, struct conn *c, int idx)
{
	if (c->busy)
		g->errors++;
	close(c->fd);
	g->reconnects++;
	if (conn__open(g, c, idx) < 0)
		die("reconnecting to 127.0.0.1");
}

static int request__format(struct gen *g, char *out, size_t size)
{
	static const char val[] = "xxxxxxxxxxxxxxxx";
	long key = g->sent % 1000;

	switch (g->kind) {
	case KIND_HTTP:
		return snprintf(out, size, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", g->path);
	case KIND_SET:
		return snprintf(out, size, "*3\r\n$3\r\nSET\r\n$%d\r\nk:%ld\r\n$%zu\r\n%s\r\n",
				snprintf(NULL, 0, "k:%ld", key), key, sizeof(val) - 1, val);
	case KIND_GET:
		return snprintf(out, size, "*2\r\n$3\r\nGET\r\n$%d\r\nk:%ld\r\n",
				snprintf(NULL, 0, "k:%ld", key), key);
	}
	return -1;
}

/* Send the next request on an idle connection, charged from when it was due. */
static void gen__send(struct gen *g, int64_t due)
{
	int idx = g->idle[--g->nidle];
	struct conn *c = &g->conns[idx];
	char req[256];
	int len = request__format(g, req, sizeof(req));

	c->busy = 1;
	c->due = due;
	c->len = 0;
	c->body_left = -1;
	c->close_after = 0;
	c->bad = 0;
	g->sent++;
	/* a small request into an empty socket buffer: all or nothing */
	if (send(c->fd, req, len, MSG_NOSIGNAL) != len)
		conn__reopen(g, c, idx);
}

static void gen__sched(struct gen *g)
{
	int64_t now = now_ns();

	while (g->sent < g->n && g->nidle > 0) {
		int64_t due = g->rate > 0 ? g->start + (int64_t)(g->sent * (NSEC / g->rate)) : now;

		if (due > now)
			break;
		gen__send(g, due);
	}
}

/* Arm the timer for the next request due, if a connection can take it. */
static void gen__arm(struct gen *g)
{
	struct itimerspec its = { 0 };
	int64_t due;

	if (g->rate > 0 && g->sent < g->n && g->nidle > 0) {
		due = g->start + (int64_t)(g->sent * (NSEC / g->rate));
		its.it_value.tv_sec = due / NSEC;
		its.it_value.tv_nsec = due % NSEC;
		if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
			its.it_value.tv_nsec = 1;
	}
	timerfd_settime(g->timer, TFD_TIMER_ABSTIME, &its, NULL);
}

/* The body length an HTTP header announces, or -1; notes Connection: close. */
static long http__header(struct conn *c, size_t hdr_len)
{
	long cl = -1;
	char *p;

	c->buf[hdr_len - 1] = 0;
	if (strncmp(c->buf, "HTTP/1.", 7) || strlen(c->buf) < 12 || strncmp(c->buf + 9, "200", 3))
		c->bad = 1;
	for (p = strstr(c->buf, "\r\n"); p; p = strstr(p + 2, "\r\n")) {
		if (!strncasecmp(p + 2, "content-length:", 15))
			cl = strtol(p + 17, NULL, 10);
		else if (!strncasecmp(p + 2, "connection: close", 17))
			c->close_after = 1;
	}
	return cl;
}

/* Once the header (HTTP) or first line (RESP) is in: how much body follows. */
static int reply__header(struct gen *g, struct conn *c, size_t *used)
{
	char *end;

	if (g->kind == KIND_HTTP) {
		end = memmem(c->buf, c->len, "\r\n\r\n", 4);
		if (!end)
			return c->len < HDR_MAX ? 0 : -1;
		*used = end + 4 - c->buf;
		c->body_left = http__header(c, *used);
		return c->body_left < 0 ? -1 : 1;
	}
	end = memmem(c->buf, c->len, "\r\n", 2);
	if (!end)
		return c->len < HDR_MAX ? 0 : -1;
	*used = end + 2 - c->buf;
	c->body_left = 0;
	if (c->buf[0] == '-')
		c->bad = 1;
	else if (c->buf[0] == '$' && c->buf[1] != '-')
		c->body_left = strtol(c->buf + 1, NULL, 10) + 2;
	else if (!strchr("+:$", c->buf[0]))
		return -1;
	return 1;
}

static void conn__done(struct gen *g, struct conn *c, int idx)
{
	if (c->bad) {
		g->errors++;
	} else {
		g->lat[g->ok++] = now_ns() - c->due;
	}
	c->busy = 0;
	if (c->close_after) {
		close(c->fd);
		g->reconnects++;
		if (conn__open(g, c, idx) < 0)
			die("reconnecting to 127.0.0.1");
		return;
	}
	g->idle[g->nidle++] = idx;
}

/* Consume what arrived: one reply per request, nothing more may come. */
static int conn__consume(struct gen *g, struct conn *c, const char *data, size_t n)
{
	size_t used, old = c->len, copy = n;
	int r;

	if (c->body_left < 0) {
		if (copy > HDR_MAX - old)
			copy = HDR_MAX - old;
		memcpy(c->buf + old, data, copy);
		c->len += copy;
		r = reply__header(g, c, &used);
		if (r <= 0)
			return r;
		/* what of this read lies past the header */
		n -= used - old;
	}
	if ((long)n > c->body_left)
		return -1;
	c->body_left -= n;
	return c->body_left == 0;
}

static void gen__read(struct gen *g, int idx)
{
	static char data[65536];
	struct conn *c = &g->conns[idx];
	ssize_t n = read(c->fd, data, sizeof(data));
	int r;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0 || !c->busy) {
		conn__reopen(g, c, idx);
		return;
	}
	r = conn__consume(g, c, data, n);
	if (r < 0)
		conn__reopen(g, c, idx);
	else if (r > 0)
		conn__done(g, c, idx);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of the sorted latencies, in µs. */
static double pct_us(const struct gen *g, double p)
{
	long i = (long)(p * g->ok + 0.999999) - 1;

	if (!g->ok)
		return -1;
	if (i < 0)
		i = 0;
	return g->lat[i] / 1e3;
}

static void gen__report(struct gen *g, int64_t end)
{
	double el = (end - g->start) / 1e9;

	/* requests never sent or never answered before the limit failed too */
	g->errors = g->n - g->ok;
	qsort(g->lat, g->ok, sizeof(*g->lat), cmp_i64);
	printf("requests=%ld ok=%ld errors=%ld reconnects=%ld elapsed_s=%.6f rate=%.1f "
	       "p50_us=%.1f p90_us=%.1f p99_us=%.1f max_us=%.1f\n",
	       g->n, g->ok, g->errors, g->reconnects, el, g->ok / el, pct_us(g, 0.5),
	       pct_us(g, 0.9), pct_us(g, 0.99), pct_us(g, 1.0));
}

static void gen__run(struct gen *g)
{
	struct epoll_event evs[64];
	int64_t end = 0;
	int i, n;

	g->start = now_ns();
	while (g->ok + g->errors < g->n) {
		end = now_ns();
		if (end - g->start > g->limit)
			break;
		gen__sched(g);
		gen__arm(g);
		n = epoll_wait(g->ep, evs, 64, 100);
		if (n < 0 && errno != EINTR)
			die("epoll_wait");
		for (i = 0; i < n; i++) {
			if (evs[i].data.u32 == (uint32_t)g->nconns) {
				uint64_t ticks;

				if (read(g->timer, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
					die("reading the timer");
				continue;
			}
			gen__read(g, evs[i].data.u32);
		}
	}
	gen__report(g, now_ns());
}

static void usage(void)
{
	fprintf(stderr, "usage: loadgen -p PORT -k http|set|get [-c CONNS] [-r RATE] "
			"[-n REQUESTS] [-d MAX_SECONDS] [-u PATH]\n");
	exit(2);
}

static void gen__parse(struct gen *g, int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "p:k:c:r:n:d:u:")) != -1) {
		switch (opt) {
		case 'p':
			g->port = atoi(optarg);
			break;
		case 'c':
			g->nconns = atoi(optarg);
			break;
		case 'r':
			g->rate = atof(optarg);
			break;
		case 'n':
			g->n = atol(optarg);
			break;
		case 'd':
			g->limit = (int64_t)(atof(optarg) * NSEC);
			break;
		case 'u':
			g->path = optarg;
			break;
		case 'k':
			if (!strcmp(optarg, "http"))
				g->kind = KIND_HTTP;
			else if (!strcmp(optarg, "set"))
				g->kind = KIND_SET;
			else if (!strcmp(optarg, "get"))
				g->kind = KIND_GET;
			else
				usage();
			break;
		default:
			usage();
		}
	}
	if (optind != argc || g->port <= 0 || g->port > 65535 || g->nconns < 1 ||
	    g->nconns > MAX_CONNS || g->rate < 0 || g->n < 1 || g->n > MAX_REQUESTS ||
	    g->limit <= 0 || g->limit > (int64_t)MAX_SECONDS * NSEC || g->path[0] != '/')
		usage();
}

int main(int argc, char **argv)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct gen g = { .kind = -1, .nconns = 8, .n = 10000, .limit = 30 * NSEC, .path = "/" };
	int i;

	gen__parse(&g, argc, argv);
	if ((int)g.kind < 0)
		usage();
	g.conns = calloc(g.nconns, sizeof(*g.conns));
	g.idle = calloc(g.nconns, sizeof(*g.idle));
	g.lat = malloc(g.n * sizeof(*g.lat));
	if (!g.conns || !g.idle || !g.lat)
		die("allocating");
	g.ep = epoll_create1(0);
	g.timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	if (g.ep < 0 || g.timer < 0)
		die("epoll and timerfd");
	ev.data.u32 = g.nconns;
	if (epoll_ctl(g.ep, EPOLL_CTL_ADD, g.timer, &ev) < 0)
		die("epoll_ctl");
	for (i = 0; i < g.nconns; i++)
		if (conn__open(&g, &g.conns[i], i) < 0)
			die("connecting to 127.0.0.1");
	gen__run(&g);
	return g.errors ? 1 : 0;
}

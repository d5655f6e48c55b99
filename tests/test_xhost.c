// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of a job of several traces (analyze/hosts.c, analyze/xhost.c):
 * two hand-built traces of a TCP client and server, one clock moved by a
 * known amount, analysed as one job and checked edge by edge and against
 * the offset.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <CUnit/Basic.h>
#include <jansson.h>

#include "analyze/an.h"
#include "analyze/analyze.h"
#include "lib/record.h"
#include "lib/trace.h"

#define RULES_ALL ((1u << AN_RULE_NR) - 1)
#define SHIFT	  3000000 /* host b's clock reads 3 ms later than a's */

struct tr {
	int fd;
	struct trace_writer *w;
	uint32_t seq;
	char path[64];
};

/* A trace whose META names its recorder's pid (0: no META, as before it did). */
static void tr_init_by(struct tr *t, const char *host, const char *boot, uint32_t netns,
		       uint32_t recorder)
{
	static unsigned char buf[IOT_REC_MAX];
	struct iot_host *h = (void *)buf;
	const char *s[3] = { host, boot, "" };
	size_t off = sizeof(*h);

	memset(t, 0, sizeof(*t));
	t->fd = memfd_create("trace", 0);
	CU_ASSERT_FATAL(t->fd >= 0);
	t->w = trace_writer__new(t->fd, 0);
	CU_ASSERT_FATAL(t->w != NULL);
	snprintf(t->path, sizeof(t->path), "/proc/self/fd/%d", t->fd);
	if (recorder) {
		struct iot_meta m = { .hdr = { .ts = 1,
					       .pid = recorder,
					       .tid = recorder,
					       .type = IOT_REC_META,
					       .size = sizeof(m) } };

		CU_ASSERT_FATAL(trace_writer__append(t->w, &m.hdr) == 0);
	}
	memset(buf, 0, sizeof(buf));
	for (int i = 0; i < 3; i++)
		CU_ASSERT_FATAL(rec__put_str(buf, &off, sizeof(buf), i, s[i], strlen(s[i]) + 1));
	h->nstr = 3;
	h->netns = netns;
	h->hdr = (struct iot_hdr){ .ts = 1, .type = IOT_REC_HOST, .size = off };
	CU_ASSERT_FATAL(trace_writer__append(t->w, &h->hdr) == 0);
}

static void tr_init(struct tr *t, const char *host, const char *boot, uint32_t netns)
{
	tr_init_by(t, host, boot, netns, 0);
}

struct sockspec {
	uint32_t pid;
	int nr;
	uint64_t ts, dur;
	int64_t ret;
	uint64_t ino;
	const char *la, *ra;
	uint16_t lp, rp;
	uint32_t seq; /* tcp_seq after the call */
	bool sent;
	int how; /* shutdown's */
};

static void put_sock_call(struct tr *t, const struct sockspec *s)
{
	static unsigned char buf[IOT_REC_MAX];
	struct iot_syscall *sc = (void *)buf;
	struct iot_fd *f = (void *)(sc + 1);
	struct iot_sock *k = (void *)(f + 1);

	memset(buf, 0, sizeof(buf));
	sc->args[0] = 3;
	sc->args[1] = s->how;
	sc->args[2] = s->ret > 0 ? s->ret : 0;
	sc->ret = s->ret;
	sc->dur_ns = s->dur;
	sc->nr = s->nr;
	sc->flags = IOT_SCF_SOCK;
	sc->nfd = 1;
	*f = (struct iot_fd){ .fd = 3, .ftype = IOT_FT_SOCK, .ino = s->ino, .dev = 8 };
	*k = (struct iot_sock){ .ino = s->ino,
				.family = AF_INET,
				.type = SOCK_STREAM,
				.protocol = IPPROTO_TCP,
				.lport = s->lp,
				.rport = s->rp,
				.netns = 77,
				.tcp_seq = s->seq,
				.sflags = IOT_SOCKF_TCP_SEQ | (s->sent ? IOT_SOCKF_SENT : 0) };
	inet_pton(AF_INET, s->la, k->laddr);
	inet_pton(AF_INET, s->ra, k->raddr);
	sc->hdr = (struct iot_hdr){ .ts = s->ts,
				    .pid = s->pid,
				    .tid = s->pid,
				    .seq = ++t->seq,
				    .type = IOT_REC_SYSCALL,
				    .size = sizeof(*sc) + sizeof(*f) + sizeof(*k) };
	CU_ASSERT_FATAL(trace_writer__append(t->w, &sc->hdr) == 0);
}

#define SOCK(t, ...) put_sock_call(t, &(struct sockspec){ __VA_ARGS__ })

/* The recorder's launch, as `record -- CMD` writes it after its start pair. */
static void put_launch(struct tr *t, uint64_t ts)
{
	struct iot_clock c = { .hdr = { .ts = ts, .type = IOT_REC_CLOCK, .size = sizeof(c) },
			       .when = IOT_CLOCK_LAUNCH };

	CU_ASSERT_FATAL(trace_writer__append(t->w, &c.hdr) == 0);
}

static void tr_done(struct tr *t)
{
	CU_ASSERT_FATAL(trace_writer__free(t->w) == 0);
}

/* Client on a (10.0.0.1:40000, pid 10), server on b (10.0.0.2:5432, pid 10 too: another
 * kernel).  b's times read SHIFT later.  The request is sent in one call and read in two;
 * the reply the other way.  b's recorder was launched at LAUNCH_B.  t: true time in ns. */
#define LAUNCH_B 400
static void two_hosts(struct tr *a, struct tr *b, const char *boot_b, uint32_t seq0)
{
	const char *ca = "10.0.0.1", *sa = "10.0.0.2";

	tr_init(a, "alpha", "boot-a", 1);
	tr_init(b, "beta", boot_b, 2);
	put_launch(b, LAUNCH_B + SHIFT);
	SOCK(a, .pid = 10, .nr = SYS_connect, .ts = 1000, .dur = 500, .ino = 501, .la = ca,
	     .ra = sa, .lp = 40000, .rp = 5432, .seq = seq0);
	SOCK(b, .pid = 10, .nr = SYS_accept4, .ts = 900 + SHIFT, .dur = 700, .ret = 4, .ino = 601,
	     .la = sa, .ra = ca, .lp = 5432, .rp = 40000, .seq = 0);
	SOCK(a, .pid = 10, .nr = SYS_sendto, .ts = 10000, .dur = 2000, .ret = 300, .ino = 501,
	     .la = ca, .ra = sa, .lp = 40000, .rp = 5432, .seq = seq0 + 300, .sent = true);
	SOCK(b, .pid = 10, .nr = SYS_recvfrom, .ts = 5000 + SHIFT, .dur = 9000, .ret = 200,
	     .ino = 601, .la = sa, .ra = ca, .lp = 5432, .rp = 40000, .seq = seq0 + 200);
	SOCK(b, .pid = 10, .nr = SYS_recvfrom, .ts = 14500 + SHIFT, .dur = 100, .ret = 100,
	     .ino = 601, .la = sa, .ra = ca, .lp = 5432, .rp = 40000, .seq = seq0 + 300);
	/* the reply: 50 bytes from sequence number 7000 */
	SOCK(a, .pid = 10, .nr = SYS_recvfrom, .ts = 12500, .dur = 8000, .ret = 50, .ino = 501,
	     .la = ca, .ra = sa, .lp = 40000, .rp = 5432, .seq = 7050);
	SOCK(b, .pid = 10, .nr = SYS_sendto, .ts = 17000 + SHIFT, .dur = 1000, .ret = 50,
	     .ino = 601, .la = sa, .ra = ca, .lp = 5432, .rp = 40000, .seq = 7050, .sent = true);
	tr_done(a);
	tr_done(b);
}

static struct analysis *job(struct tr *a, struct tr *b, const struct an_shift *sh)
{
	const char *paths[2] = { a->path, b->path };
	struct an_opts o = { .infer = true, .rules = RULES_ALL, .shift = sh, .n_shift = !!sh };

	return analysis__new_multi(paths, 2, &o);
}

static bool xdep(struct analysis *an, uint32_t ft, uint32_t fn, uint32_t tt, uint32_t tn)
{
	return analysis__has_dep(an, analysis__event_in(an, ft, 10, fn),
				 analysis__event_in(an, tt, 10, tn), AN_RULE_DATA);
}

/* Line `line` of the annotated trace (0: the header). */
static json_t *line_of(struct analysis *an, int line)
{
	char *text = NULL, *p;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	json_t *h;

	CU_ASSERT_FATAL(f && analysis__write_jsonl(an, f) == 0);
	fclose(f);
	p = text;
	for (int i = 0; i < line; i++)
		p = strchr(p, '\n') + 1;
	*strchr(p, '\n') = '\0';
	h = json_loads(p, 0, NULL);
	free(text);
	CU_ASSERT_FATAL(h != NULL);
	return h;
}

static json_t *header(struct analysis *an)
{
	return line_of(an, 0);
}

/* The stream bytes of the n-th call of pid 10 in input trace. */
static void stream_of(struct analysis *an, uint32_t trace, uint32_t n, int64_t *s0, int64_t *s1)
{
	json_t *e = line_of(an, 1 + analysis__event_in(an, trace, 10, n));
	json_t *s = json_object_get(e, "stream");

	CU_ASSERT(json_integer_value(json_object_get(e, "conn")) == 0);
	*s0 = json_integer_value(json_array_get(s, 0));
	*s1 = json_integer_value(json_array_get(s, 1));
	json_decref(e);
}

/* Whether the n-th call of pid 10 in input trace names host NAME. */
static bool host_of(struct analysis *an, uint32_t trace, uint32_t n, const char *name)
{
	json_t *e = line_of(an, 1 + analysis__event_in(an, trace, 10, n));
	const char *h = json_string_value(json_object_get(e, "host"));
	bool ok = h && !strcmp(h, name);

	json_decref(e);
	return ok;
}

/* Every send precedes each receive that took its bytes, across the two traces, and no
 * other dep crosses; the clock of b comes back within the bounds the edges give. */
static void test_xhost__pairs_and_offset(void)
{
	struct tr a, b;
	struct analysis *an;
	json_t *h, *hb;
	int64_t off, res;

	two_hosts(&a, &b, "boot-b", UINT32_MAX - 100); /* the request wraps the sequence space */
	an = job(&a, &b, NULL);
	CU_ASSERT_FATAL(an != NULL);
	CU_ASSERT(xdep(an, 0, 1, 1, 1)); /* send -> first read */
	/* send -> second read: implied by the first read, reduced away */
	CU_ASSERT_EQUAL(analysis__ndeps(an, analysis__event_in(an, 1, 10, 2)), 0);
	CU_ASSERT(xdep(an, 1, 3, 0, 2)); /* reply */
	CU_ASSERT_EQUAL(analysis__ndeps(an, analysis__event_in(an, 0, 10, 2)), 1);
	h = header(an);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(h, "causality_stats"),
							   "edges_xhost")),
			2);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(h, "connections")), 1);
	hb = json_array_get(json_object_get(h, "hosts"), 1);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(hb, "name")), "beta");
	off = json_integer_value(json_object_get(hb, "clock_offset_ns"));
	res = json_integer_value(json_object_get(hb, "clock_residual_ns"));
	CU_ASSERT(res > 0 && off - res <= -SHIFT && -SHIFT <= off + res);
	/* b's launch on the merged clock, from the trace's start; a has none */
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(hb, "launch_ns")),
			LAUNCH_B + SHIFT + off -
				json_integer_value(json_object_get(h, "clock_start_ns")));
	CU_ASSERT(json_integer_value(json_object_get(hb, "launch_ns")) < 0);
	CU_ASSERT(json_object_get(json_array_get(json_object_get(h, "hosts"), 0), "launch_ns") ==
		  NULL);
	CU_ASSERT_STRING_EQUAL(
		json_string_value(json_object_get(
			json_object_get(json_array_get(json_object_get(h, "connections"), 0),
					"client"),
			"host")),
		"alpha");
	json_decref(h);
	/* both hosts have a thread 10: each event says whose it is */
	CU_ASSERT(host_of(an, 0, 1, "alpha"));
	CU_ASSERT(host_of(an, 1, 1, "beta"));
	CU_ASSERT(host_of(an, 1, 3, "beta"));
	stream_of(an, 1, 2, &off, &res); /* the second read: from byte 200, past the wrap */
	CU_ASSERT(off == 200 && res == 300);
	stream_of(an, 0, 2, &off, &res);
	CU_ASSERT(off == 0 && res == 50);
	analysis__free(an);
	close(a.fd);
	close(b.fd);
}

/* A receive of the stream's end (0 bytes) comes after the other host's
 * shutdown of its sends; a shutdown of its receives says nothing. */
static void test_xhost__eof_after_shutdown(void)
{
	const char *ca = "10.0.0.1", *sa = "10.0.0.2";
	struct analysis *an;
	struct tr a, b;

	tr_init(&a, "alpha", "boot-a", 1);
	tr_init(&b, "beta", "boot-b", 2);
	SOCK(&a, .pid = 10, .nr = SYS_connect, .ts = 1000, .dur = 500, .ino = 501, .la = ca,
	     .ra = sa, .lp = 40000, .rp = 5432, .seq = 100);
	SOCK(&b, .pid = 10, .nr = SYS_accept4, .ts = 900, .dur = 700, .ret = 4, .ino = 601,
	     .la = sa, .ra = ca, .lp = 5432, .rp = 40000, .seq = 0);
	SOCK(&b, .pid = 10, .nr = SYS_shutdown, .ts = 3000, .dur = 100, .ino = 601, .la = sa,
	     .ra = ca, .lp = 5432, .rp = 40000, .seq = 0, .how = SHUT_RD);
	SOCK(&b, .pid = 10, .nr = SYS_shutdown, .ts = 5000, .dur = 100, .ino = 601, .la = sa,
	     .ra = ca, .lp = 5432, .rp = 40000, .seq = 0, .how = SHUT_WR);
	SOCK(&a, .pid = 10, .nr = SYS_recvfrom, .ts = 4000, .dur = 2000, .ino = 501, .la = ca,
	     .ra = sa, .lp = 40000, .rp = 5432, .seq = 7000);
	tr_done(&a);
	tr_done(&b);
	an = job(&a, &b, NULL);
	CU_ASSERT_FATAL(an != NULL);
	CU_ASSERT(xdep(an, 1, 2, 0, 1));
	CU_ASSERT_EQUAL(analysis__ndeps(an, analysis__event_in(an, 0, 10, 1)), 1);
	analysis__free(an);
	close(a.fd);
	close(b.fd);
}

/* The same host given twice is an error; a clock that no offset can align is one too. */
static void test_xhost__bad_jobs(void)
{
	const char *twice[2];
	struct an_opts o = { .infer = true, .rules = RULES_ALL };
	struct an_shift back = { .host = "beta", .ns = -100000 };
	struct tr a, b;

	two_hosts(&a, &b, "boot-a", 1000);
	twice[0] = twice[1] = a.path;
	errno = 0;
	CU_ASSERT(analysis__new_multi(twice, 2, &o) == NULL);
	CU_ASSERT_EQUAL(errno, EINVAL);
	close(a.fd);
	close(b.fd);
	/* moving b's clock changes nothing: the offset absorbs it */
	two_hosts(&a, &b, "boot-b", 1000);
	{
		struct analysis *an = job(&a, &b, &back);
		json_t *h;
		int64_t off;

		CU_ASSERT_FATAL(an != NULL);
		h = header(an);
		off = json_integer_value(json_object_get(
			json_array_get(json_object_get(h, "hosts"), 1), "clock_offset_ns"));
		CU_ASSERT(llabs(off - (-SHIFT + 100000)) < 10000);
		json_decref(h);
		analysis__free(an);
	}
	close(a.fd);
	close(b.fd);
}

/* A write or read of n bytes on a fifo (dev 8, inode 900) by pid 10 at ts. */
static void put_fifo_call(struct tr *t, int nr, uint64_t ts, int64_t n)
{
	struct {
		struct iot_syscall sc;
		struct iot_fd f;
	} r = { 0 };

	r.sc.args[0] = 3;
	r.sc.args[2] = n;
	r.sc.ret = n;
	r.sc.dur_ns = 100;
	r.sc.nr = nr;
	r.sc.nfd = 1;
	r.f = (struct iot_fd){ .fd = 3, .ftype = IOT_FT_FIFO, .ino = 900, .dev = 8 };
	r.sc.hdr = (struct iot_hdr){ .ts = ts,
				     .pid = 10,
				     .tid = 10,
				     .seq = ++t->seq,
				     .type = IOT_REC_SYSCALL,
				     .size = sizeof(r) };
	CU_ASSERT_FATAL(trace_writer__append(t->w, &r.sc.hdr) == 0);
}

/* A fifo of one inode number on two kernels is two fifos; on one kernel (two namespaces,
 * one boot id) it is one, and the write precedes the read across the hosts. */
static void test_xhost__inodes_per_kernel(void)
{
	const char *boots[2] = { "boot-b", "boot-a" };

	for (int same = 0; same < 2; same++) {
		struct analysis *an;
		struct tr a, b;

		tr_init(&a, "alpha", "boot-a", 1);
		tr_init(&b, "beta", boots[same], 2);
		put_fifo_call(&a, SYS_write, 1000, 10);
		put_fifo_call(&b, SYS_read, 2000, 10);
		tr_done(&a);
		tr_done(&b);
		an = job(&a, &b, NULL);
		CU_ASSERT_FATAL(an != NULL);
		CU_ASSERT_EQUAL(xdep(an, 0, 0, 1, 0), same);
		analysis__free(an);
		close(a.fd);
		close(b.fd);
	}
}

/* A wakeup of pid 10 at ts by no traced thread (a packet, another process). */
static void put_wake_untraced(struct tr *t, uint64_t ts)
{
	struct iot_wakeup w = { .waker_pid = 0, .waker_tid = 0 };

	w.hdr = (struct iot_hdr){
		.ts = ts, .pid = 10, .tid = 10, .type = IOT_REC_WAKEUP, .size = sizeof(w)
	};
	CU_ASSERT_FATAL(trace_writer__append(t->w, &w.hdr) == 0);
}

/* One host's part in a fence its daemon completes: a request to the daemon
 * (an outside peer on loopback) at req, the daemon's answer waking the wait
 * at rel, the wait returning LATE after that (waiting for a CPU), the answer
 * read. */
static void fence_part(struct tr *t, uint64_t ino, uint64_t req, uint64_t rel, uint64_t late)
{
	const char *lo = "127.0.0.1";

	SOCK(t, .pid = 10, .nr = SYS_writev, .ts = req, .dur = 50, .ret = 58, .ino = ino, .la = lo,
	     .ra = lo, .lp = 40000, .rp = 6000, .seq = 58, .sent = true);
	SOCK(t, .pid = 10, .nr = SYS_epoll_wait, .ts = req + 100, .dur = rel + late - req - 100,
	     .ret = 1, .ino = ino, .la = lo, .ra = lo, .lp = 40000, .rp = 6000);
	put_wake_untraced(t, rel - 10);
	SOCK(t, .pid = 10, .nr = SYS_read, .ts = rel + late + 10, .dur = 5, .ret = 16, .ino = ino,
	     .la = lo, .ra = lo, .lp = 40000, .rp = 6000, .seq = 16);
}

/* A host's request to its daemon at req, and the answer it blocked for in
 * the receive itself, woken at rel: a handshake, as Open MPI's main thread
 * makes one when it connects to its PMIx server. */
static void recv_part(struct tr *t, uint64_t ino, uint64_t req, uint64_t rel)
{
	const char *lo = "127.0.0.1";

	SOCK(t, .pid = 10, .nr = SYS_sendto, .ts = req, .dur = 50, .ret = 71, .ino = ino, .la = lo,
	     .ra = lo, .lp = 40000, .rp = 6000, .seq = 71, .sent = true);
	SOCK(t, .pid = 10, .nr = SYS_recvfrom, .ts = req + 100, .dur = rel - req - 90, .ret = 4,
	     .ino = ino, .la = lo, .ra = lo, .lp = 40000, .rp = 6000, .seq = 4);
	put_wake_untraced(t, rel - 10);
}

/* Two hosts' fence parts, b's request at req_b, its answer at rel_b and its
 * wait's return late_b after that. */
static struct analysis *fence_job(struct tr *a, struct tr *b, uint64_t req_b, uint64_t rel_b,
				  uint64_t late_b)
{
	tr_init(a, "alpha", "boot-a", 1);
	tr_init(b, "beta", "boot-b", 2);
	fence_part(a, 801, 1000, 90000, 0);
	fence_part(b, 802, req_b, rel_b, late_b);
	tr_done(a);
	tr_done(b);
	return job(a, b, NULL);
}

/* Each host's wait for its daemon's answer follows the other host's request
 * when the answers came together after both requests, however late one wait
 * then returned; not when one request came after an answer, nor when the
 * answers were far apart. */
static void test_xhost__barrier(void)
{
	struct tr a, b;
	struct analysis *an;

	/* b's answer at rel_b, its wait returning late_b after it: the answers
	 * together; b's wait 3.5 ms after a's, waiting for a CPU; b's answer
	 * 4.9 ms after a's, the daemons relaying it */
	static const uint64_t rel_late[][2] = { { 90500, 0 }, { 90500, 3000000 }, { 5000000, 0 } };

	for (size_t i = 0; i < sizeof(rel_late) / sizeof(rel_late[0]); i++) {
		an = fence_job(&a, &b, 50000, rel_late[i][0], rel_late[i][1]);
		CU_ASSERT_FATAL(an != NULL);
		CU_ASSERT(analysis__has_dep(an, analysis__event_in(an, 1, 10, 0),
					    analysis__event_in(an, 0, 10, 1), AN_RULE_BARRIER));
		CU_ASSERT(analysis__has_dep(an, analysis__event_in(an, 0, 10, 0),
					    analysis__event_in(an, 1, 10, 1), AN_RULE_BARRIER));
		CU_ASSERT_EQUAL(analysis__counter(an, "blocked_unexplained"), 0);
		analysis__free(an);
		close(a.fd);
		close(b.fd);
	}

	an = fence_job(&a, &b, 90500, 91500, 0); /* b asked after a's answer came */
	CU_ASSERT_FATAL(an != NULL);
	CU_ASSERT_EQUAL(analysis__ndeps(an, analysis__event_in(an, 0, 10, 1)), 0);
	CU_ASSERT_EQUAL(analysis__ndeps(an, analysis__event_in(an, 1, 10, 1)), 0);
	CU_ASSERT_EQUAL(analysis__counter(an, "blocked_unexplained"), 2);
	analysis__free(an);
	close(a.fd);
	close(b.fd);

	an = fence_job(&a, &b, 50000, 25000000, 0); /* answers 24.9 ms apart */
	CU_ASSERT_FATAL(an != NULL);
	CU_ASSERT_EQUAL(analysis__ndeps(an, analysis__event_in(an, 0, 10, 1)), 0);
	CU_ASSERT_EQUAL(analysis__counter(an, "blocked_unexplained"), 2);
	analysis__free(an);
	close(a.fd);
	close(b.fd);
}

/*
 * While a waits for the fence, b asks its daemon something else and has its
 * answer 1.5 ms before a's, then asks for the fence: b's second wait is the
 * collective's, the one in progress when the last request came, though its
 * first was answered as near to a's.
 */
static void test_xhost__barrier_meantime(void)
{
	struct analysis *an;
	struct tr a, b;

	tr_init(&a, "alpha", "boot-a", 1);
	tr_init(&b, "beta", "boot-b", 2);
	fence_part(&a, 801, 1000, 90000000, 0);
	fence_part(&b, 802, 80000000, 88500000, 0);
	fence_part(&b, 802, 88600000, 91000000, 0);
	tr_done(&a);
	tr_done(&b);
	an = job(&a, &b, NULL);
	CU_ASSERT_FATAL(an != NULL);
	CU_ASSERT(analysis__has_dep(an, analysis__event_in(an, 1, 10, 3),
				    analysis__event_in(an, 0, 10, 1), AN_RULE_BARRIER));
	CU_ASSERT(analysis__has_dep(an, analysis__event_in(an, 0, 10, 0),
				    analysis__event_in(an, 1, 10, 4), AN_RULE_BARRIER));
	CU_ASSERT_EQUAL(analysis__ndeps(an, analysis__event_in(an, 1, 10, 1)), 0);
	CU_ASSERT_EQUAL(analysis__counter(an, "blocked_unexplained"), 1);
	analysis__free(an);
	close(a.fd);
	close(b.fd);
}

/* A getpid of pid (its only thread) at ts. */
static void put_getpid(struct tr *t, uint32_t pid, uint64_t ts)
{
	struct iot_syscall sc = { .dur_ns = 5, .nr = SYS_getpid, .ret = pid };

	sc.hdr = (struct iot_hdr){ .ts = ts,
				   .pid = pid,
				   .tid = pid,
				   .seq = ++t->seq,
				   .type = IOT_REC_SYSCALL,
				   .size = sizeof(sc) };
	CU_ASSERT_FATAL(trace_writer__append(t->w, &sc.hdr) == 0);
}

/* pid 10 taken off the CPU at ts by task next, back at ts + off. */
static void put_preempt(struct tr *t, uint64_t ts, uint32_t next, uint64_t off)
{
	struct iot_switch s = { .oncpu_ns = 10, .next_tid = next, .prev_state = IOT_SW_PREEMPT };

	s.hdr = (struct iot_hdr){
		.ts = ts, .pid = 10, .tid = 10, .type = IOT_REC_SWITCH, .size = sizeof(s)
	};
	s.hdr.seq = ++t->seq;
	CU_ASSERT_FATAL(trace_writer__append(t->w, &s.hdr) == 0);
	s.hdr.ts = ts + off + 10;
	s.hdr.seq = ++t->seq;
	s.next_tid = 0;
	s.prev_state = 1; /* to sleep */
	CU_ASSERT_FATAL(trace_writer__append(t->w, &s.hdr) == 0);
}

/*
 * On one kernel the other host's tasks are the job's: its traced threads,
 * its recorder (META's pid) and its recorder's watcher (HELPER's tid) take
 * a CPU the replay's own runs contend for.  Only a task of neither trace
 * counts as outside.
 */
static void test_xhost__outside_one_kernel(void)
{
	struct iot_helper w = {
		.hdr = { .ts = 2, .pid = 80, .tid = 81, .type = IOT_REC_HELPER, .size = sizeof(w) }
	};
	const uint32_t by[4] = { 20, 80, 81, 55 };
	struct analysis *an;
	struct tr a, b;

	tr_init_by(&a, "alpha", "boot-k", 1, 90);
	tr_init_by(&b, "beta", "boot-k", 2, 80);
	CU_ASSERT_FATAL(trace_writer__append(b.w, &w.hdr) == 0);
	for (int i = 0; i < 4; i++) {
		put_getpid(&a, 10, 1000 + 2000 * i);
		put_preempt(&a, 1500 + 2000 * i, by[i], 400);
	}
	put_getpid(&a, 10, 9000);
	put_getpid(&b, 20, 1500);
	put_getpid(&b, 20, 8000);
	tr_done(&a);
	tr_done(&b);
	an = job(&a, &b, NULL);
	CU_ASSERT_FATAL(an != NULL);
	for (int i = 1; i <= 4; i++) {
		json_t *e = line_of(an, 1 + analysis__event_in(an, 0, 10, i));

		CU_ASSERT_EQUAL(json_integer_value(json_object_get(e, "outside_ns")),
				i == 4 ? 400 : 0);
		json_decref(e);
	}
	analysis__free(an);
	close(a.fd);
	close(b.fd);
}

/*
 * One collective is the same code on every host: waits for the answer in
 * the receive itself on both hosts are one, but a receive on one host and
 * an epoll_wait on the other, answered as close, are each host's own
 * exchange with its daemon.
 */
static void test_xhost__barrier_same_call(void)
{
	for (int same = 0; same < 2; same++) {
		struct analysis *an;
		struct tr a, b;

		tr_init(&a, "alpha", "boot-a", 1);
		tr_init(&b, "beta", "boot-b", 2);
		if (same)
			recv_part(&a, 801, 1000, 90000);
		else
			fence_part(&a, 801, 1000, 90000, 0);
		recv_part(&b, 802, 50000, 90500);
		tr_done(&a);
		tr_done(&b);
		an = job(&a, &b, NULL);
		CU_ASSERT_FATAL(an != NULL);
		CU_ASSERT_EQUAL(analysis__has_dep(an, analysis__event_in(an, 0, 10, 0),
						  analysis__event_in(an, 1, 10, 1),
						  AN_RULE_BARRIER),
				same);
		CU_ASSERT_EQUAL(analysis__counter(an, "blocked_unexplained"), same ? 0 : 2);
		analysis__free(an);
		close(a.fd);
		close(b.fd);
	}
}

static CU_TestInfo tests[] = {
	{ "inodes belong to one kernel", test_xhost__inodes_per_kernel },
	{ "cross-host pairs and the clock offset", test_xhost__pairs_and_offset },
	{ "the same host twice", test_xhost__bad_jobs },
	{ "the end of a stream after the shutdown", test_xhost__eof_after_shutdown },
	{ "a fence its daemons complete: barrier edges", test_xhost__barrier },
	{ "a fence's waits are those in progress at its last request",
	  test_xhost__barrier_meantime },
	{ "a fence's waits are the same call on every host", test_xhost__barrier_same_call },
	{ "outside on one kernel: the other host's tasks and recorder",
	  test_xhost__outside_one_kernel },
	CU_TEST_INFO_NULL,
};

#define SUITE "xhost"
#include "tests/cu_main.h"

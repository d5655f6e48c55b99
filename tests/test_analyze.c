// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of analyze/: hand-built record sequences written with the trace
 * writer into a memfd, analysed from memory, and checked edge by edge.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <CUnit/Basic.h>
#include <jansson.h>

#include "analyze/an.h"
#include "analyze/analyze.h"
#include "analyze/jw.h"
#include "lib/sort.h"
#include "lib/record.h"
#include "lib/trace.h"

#define NO	  UINT32_MAX
#define RULES_ALL ((1u << AN_RULE_NR) - 1)

struct tb {
	int fd;
	struct trace_writer *w;
	uint32_t seq[64]; /* by tid, tids below 64 */
	void *buf;
	size_t len;
	struct analysis *an;
};

struct scspec {
	uint32_t pid, tid;
	int nr;
	uint64_t ts, dur;
	int64_t ret;
	uint64_t a[6];
	struct iot_fd fd[IOT_MAX_FDS];
	int nfd;
	const char *str[2];
	int sw[2];
	uint16_t flags;
	uint64_t cpu, offcpu;
	uint32_t skip; /* records lost before this one in its thread */
};

static struct iot_fd FD(int which, int fd, int ftype, uint64_t ino) {
	return (struct iot_fd){ .which = which, .fd = fd, .ftype = ftype, .ino = ino, .dev = 8 };
}

static void
tb_init(struct tb *b)
{
	memset(b, 0, sizeof(*b));
	b->fd = memfd_create("trace", 0);
	CU_ASSERT_FATAL(b->fd >= 0);
	b->w = trace_writer__new(b->fd, 0);
	CU_ASSERT_FATAL(b->w != NULL);
}

static void put(struct tb *b, struct iot_hdr *h)
{
	CU_ASSERT_FATAL(trace_writer__append(b->w, h) == 0);
}

static uint32_t next_seq(struct tb *b, uint32_t tid, uint32_t skip)
{
	b->seq[tid & 63] += 1 + skip;
	return b->seq[tid & 63];
}

static void put_sc(struct tb *b, const struct scspec *s)
{
	static unsigned char buf[IOT_REC_MAX];
	struct iot_syscall *sc = (void *)buf;
	size_t off = sizeof(*sc) + s->nfd * sizeof(struct iot_fd);

	memset(buf, 0, sizeof(buf));
	memcpy(sc->args, s->a, sizeof(sc->args));
	sc->ret = s->ret;
	sc->dur_ns = s->dur;
	sc->cpu_ns = s->cpu;
	sc->offcpu_ns = s->offcpu;
	sc->nr = s->nr;
	sc->flags = s->flags;
	sc->nfd = s->nfd;
	memcpy(sc + 1, s->fd, s->nfd * sizeof(struct iot_fd));
	for (int k = 0; k < 2 && s->str[k]; k++) {
		CU_ASSERT_FATAL(rec__put_str(buf, &off, sizeof(buf), s->sw[k], s->str[k],
					     strlen(s->str[k]) + 1));
		sc->nstr++;
	}
	sc->hdr = (struct iot_hdr){ .ts = s->ts,
				    .pid = s->pid,
				    .tid = s->tid,
				    .seq = next_seq(b, s->tid, s->skip),
				    .type = IOT_REC_SYSCALL,
				    .size = off };
	put(b, &sc->hdr);
}

#define SC(b, ...) put_sc(b, &(struct scspec){ __VA_ARGS__ })

static void put_fork(struct tb *b, uint32_t pid, uint32_t tid, uint32_t cpid, uint32_t ctid,
		     uint64_t ts)
{
	struct iot_fork f = { .child_pid = cpid, .child_tid = ctid, .thread = pid == cpid };

	f.hdr = (struct iot_hdr){ .ts = ts,
				  .pid = pid,
				  .tid = tid,
				  .seq = next_seq(b, tid, 0),
				  .type = IOT_REC_FORK,
				  .size = sizeof(f) };
	put(b, &f.hdr);
}

static void put_exit(struct tb *b, uint32_t pid, uint32_t tid, uint64_t ts)
{
	struct iot_exit x = { .group_dead = 1 };

	x.hdr = (struct iot_hdr){ .ts = ts,
				  .pid = pid,
				  .tid = tid,
				  .seq = next_seq(b, tid, 0),
				  .type = IOT_REC_EXIT,
				  .size = sizeof(x) };
	put(b, &x.hdr);
}

static void put_wake(struct tb *b, uint32_t pid, uint32_t tid, uint32_t wpid, uint32_t wtid,
		     uint64_t ts)
{
	struct iot_wakeup w = { .waker_pid = wpid, .waker_tid = wtid };

	w.hdr = (struct iot_hdr){
		.ts = ts, .pid = pid, .tid = tid, .type = IOT_REC_WAKEUP, .size = sizeof(w)
	};
	put(b, &w.hdr);
}

static void put_switch(struct tb *b, uint32_t pid, uint32_t tid, uint64_t ts, uint64_t oncpu,
		       uint32_t next, uint32_t state)
{
	struct iot_switch s = { .oncpu_ns = oncpu, .next_tid = next, .prev_state = state };

	s.hdr = (struct iot_hdr){ .ts = ts,
				  .pid = pid,
				  .tid = tid,
				  .seq = next_seq(b, tid, 0),
				  .type = IOT_REC_SWITCH,
				  .size = sizeof(s) };
	put(b, &s.hdr);
}

static void put_fdsnap(struct tb *b, uint32_t pid, int fd, uint64_t ino, const char *path)
{
	static unsigned char buf[IOT_REC_MAX];
	struct iot_fdsnap *s = (void *)buf;
	size_t off = sizeof(*s);

	memset(buf, 0, sizeof(buf));
	s->f = FD(0, fd, IOT_FT_REG, ino);
	s->f.size = 4096;
	s->nstr = 1;
	CU_ASSERT_FATAL(rec__put_str(buf, &off, sizeof(buf), 0, path, strlen(path) + 1));
	s->hdr = (struct iot_hdr){ .pid = pid, .tid = pid, .type = IOT_REC_FDSNAP, .size = off };
	put(b, &s->hdr);
}

/* Finishes the trace and analyses it; rules 0 means no --infer-causality. */
static struct analysis *tb_run(struct tb *b, unsigned int rules)
{
	struct an_opts o = { .infer = rules != 0, .rules = rules };
	off_t len;

	CU_ASSERT_FATAL(trace_writer__free(b->w) == 0);
	len = lseek(b->fd, 0, SEEK_END);
	b->buf = malloc(len + 1);
	CU_ASSERT_FATAL(b->buf && pread(b->fd, b->buf, len, 0) == len);
	b->len = len;
	b->an = analysis__new(NULL, b->buf, b->len, &o);
	return b->an;
}

static void tb_free(struct tb *b)
{
	analysis__free(b->an);
	free(b->buf);
	close(b->fd);
}

static uint32_t ev(struct tb *b, uint32_t tid, uint32_t n)
{
	return analysis__event_of(b->an, tid, n);
}

static bool dep(struct tb *b, uint32_t ftid, uint32_t fn, uint32_t ttid, uint32_t tn,
		enum an_rule k)
{
	return analysis__has_dep(b->an, ev(b, ftid, fn), ev(b, ttid, tn), k);
}

/* fork -> the child's first call; the child's exit -> the wait4 that reaped it. */
static void test_analyze__process(void)
{
	struct tb b;

	tb_init(&b);
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_clone, .ts = 90, .dur = 30, .ret = 2, .cpu = 5);
	put_fork(&b, 1, 1, 2, 2, 100);
	SC(&b, .pid = 2, .tid = 2, .nr = SYS_close, .ts = 120, .dur = 5, .ret = -9, .a = { 9 });
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_wait4, .ts = 150, .dur = 100, .ret = 2, .a = { -1 });
	SC(&b, .pid = 2, .tid = 2, .nr = SYS_exit_group, .ts = 200, .flags = IOT_SCF_NO_RETURN);
	put_exit(&b, 2, 2, 205);
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
	CU_ASSERT(dep(&b, 1, 0, 2, 0, AN_RULE_PROCESS));
	CU_ASSERT(dep(&b, 2, 1, 1, 1, AN_RULE_PROCESS));
	CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 1, 1)), 1);
	tb_free(&b);

	tb_init(&b); /* the rule switched off: no edges */
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_clone, .ts = 90, .dur = 30, .ret = 2);
	put_fork(&b, 1, 1, 2, 2, 100);
	SC(&b, .pid = 2, .tid = 2, .nr = SYS_close, .ts = 120, .dur = 5, .ret = -9, .a = { 9 });
	CU_ASSERT_FATAL(tb_run(&b, 1u << AN_RULE_WAKEUP) != NULL);
	CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 2, 0)), 0);
	tb_free(&b);
}

static void wakeup_trace(struct tb *b, uint32_t waker_tid, uint64_t wake_ts)
{
	tb_init(b);
	SC(b, .pid = 1, .tid = 1, .nr = SYS_futex, .ts = 100, .dur = 100, .offcpu = 90,
	   .a = { 0x1000, 0 });
	SC(b, .pid = 1, .tid = 2, .nr = SYS_futex, .ts = 150, .dur = 10, .ret = 1,
	   .a = { 0x1000, 1 });
	put_wake(b, 1, 1, 1, waker_tid, wake_ts);
}

/* A thread blocked in futex and woken by another's futex wake. */
static void test_analyze__wakeup(void)
{
	struct tb b;

	wakeup_trace(&b, 2, 155);
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
	CU_ASSERT(dep(&b, 2, 0, 1, 0, AN_RULE_WAKEUP));
	CU_ASSERT_EQUAL(analysis__counter(b.an, "blocked_unexplained"), 0);
	tb_free(&b);

	wakeup_trace(&b, 2, 155); /* without --infer-causality: same events, no deps */
	CU_ASSERT_FATAL(tb_run(&b, 0) != NULL);
	CU_ASSERT_EQUAL(analysis__events(b.an), 2);
	CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 1, 0)), 0);
	tb_free(&b);
}

/* Woken while the waker was in no call (an interrupt), or by nobody traced. */
static void test_analyze__wakeup_no_matching_call(void)
{
	struct tb b;

	wakeup_trace(&b, 2, 170); /* the wake call ended at 160 */
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
	CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 1, 0)), 0);
	CU_ASSERT_EQUAL(analysis__counter(b.an, "blocked_unexplained"), 1);
	tb_free(&b);

	wakeup_trace(&b, 0, 155); /* woken from interrupt */
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
	CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 1, 0)), 0);
	CU_ASSERT_EQUAL(analysis__counter(b.an, "blocked_unexplained"), 1);
	tb_free(&b);
}

/*
 * An interrupt names whatever thread was current.  A pread of a regular file
 * is woken by its disk, not by the thread exiting when the completion came,
 * and a sleep that ran its course by its timer, not by the futex wake then
 * running; only a call that deals with another thread is taken as woken.
 */
static void test_analyze__wakeup_of_disk_or_timer(void)
{
	struct tb b;

	tb_init(&b);
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_pread64, .ts = 100, .dur = 100, .offcpu = 90,
	   .ret = 4096, .a = { 3, 0, 4096 }, .nfd = 1, .fd = { FD(0, 3, IOT_FT_REG, 12) });
	SC(&b, .pid = 1, .tid = 2, .nr = SYS_exit, .ts = 150, .flags = IOT_SCF_NO_RETURN);
	put_wake(&b, 1, 1, 1, 2, 190);
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
	CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 1, 0)), 0);
	CU_ASSERT_EQUAL(analysis__counter(b.an, "wakeups_untraced"), 1);
	tb_free(&b);

	tb_init(&b);
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_nanosleep, .ts = 100, .dur = 100, .offcpu = 95);
	SC(&b, .pid = 1, .tid = 2, .nr = SYS_futex, .ts = 150, .dur = 60, .ret = 1,
	   .a = { 0x1000, 1 });
	put_wake(&b, 1, 1, 1, 2, 199);
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
	CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 1, 0)), 0);
	tb_free(&b);

	tb_init(&b); /* cut short by a child's exit (SIGCHLD): woken by it */
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_nanosleep, .ts = 100, .dur = 60, .offcpu = 55,
	   .ret = -EINTR);
	SC(&b, .pid = 2, .tid = 2, .nr = SYS_exit_group, .ts = 150, .flags = IOT_SCF_NO_RETURN);
	put_wake(&b, 1, 1, 2, 2, 155);
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
	CU_ASSERT(dep(&b, 2, 0, 1, 0, AN_RULE_WAKEUP));
	tb_free(&b);
}

/*
 * A backend's lock wait as PostgreSQL makes it: blocked in epoll_wait on its
 * latch, woken by the lock holder's kill(SIGURG) after its commit's
 * fdatasync, then draining the signalfd (128-byte siginfos).  kill is not
 * recorded, so the waker is between calls at the wakeup; the signal the wait
 * shows makes its last call the waker.  WOKEN_RET: the epoll_wait's result;
 * DRAIN: what the next read returns.
 */
static void latch_trace(struct tb *b, int64_t woken_ret, int64_t drain)
{
	tb_init(b);
	SC(b, .pid = 1, .tid = 1, .nr = SYS_epoll_wait, .ts = 100, .dur = 100, .offcpu = 90,
	   .ret = woken_ret, .a = { 9, 0, 1, -1 }, .nfd = 1, .fd = { FD(0, 9, IOT_FT_ANON, 40) });
	SC(b, .pid = 2, .tid = 2, .nr = SYS_fdatasync, .ts = 110, .dur = 40, .a = { 5 }, .nfd = 1,
	   .fd = { FD(0, 5, IOT_FT_REG, 12) });
	put_wake(b, 1, 1, 2, 2, 170);
	SC(b, .pid = 1, .tid = 1, .nr = SYS_read, .ts = 210, .dur = 2, .ret = drain,
	   .a = { 8, 0, 1024 }, .nfd = 1, .fd = { FD(0, 8, IOT_FT_ANON, 40) });
	SC(b, .pid = 2, .tid = 2, .nr = SYS_sendto, .ts = 230, .dur = 5, .ret = 18, .a = { 7 },
	   .nfd = 1, .fd = { FD(0, 7, IOT_FT_SOCK, 13) });
}

/* Woken by a signal from a traced thread that was between calls: its last call. */
static void test_analyze__wakeup_by_signal(void)
{
	struct tb b;

	latch_trace(&b, 1, 128);
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
	CU_ASSERT(dep(&b, 2, 0, 1, 0, AN_RULE_WAKEUP));
	tb_free(&b);

	latch_trace(&b, -EINTR, -EAGAIN); /* a handler ran (a self-pipe's latch) */
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
	CU_ASSERT(dep(&b, 2, 0, 1, 0, AN_RULE_WAKEUP));
	tb_free(&b);

	/* no signal shown: an eventfd's count, a timeout; an interrupt may
	 * have named the thread */
	latch_trace(&b, 1, 8);
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
	CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 1, 0)), 0);
	tb_free(&b);
	latch_trace(&b, 0, 128);
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
	CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 1, 0)), 0);
	tb_free(&b);
}

static void pipe_trace(struct tb *b, uint32_t skip)
{
	tb_init(b);
	SC(b, .pid = 1, .tid = 1, .nr = SYS_pipe2, .ts = 10, .dur = 5, .nfd = 2,
	   .fd = { FD(IOT_FD_RET0, 3, IOT_FT_FIFO, 77), FD(IOT_FD_RET1, 4, IOT_FT_FIFO, 77) });
	SC(b, .pid = 1, .tid = 1, .nr = SYS_write, .ts = 200, .dur = 10, .ret = 100,
	   .a = { 4, 0, 100 }, .nfd = 1, .fd = { FD(0, 4, IOT_FT_FIFO, 77) });
	SC(b, .pid = 1, .tid = 1, .nr = SYS_write, .ts = 300, .dur = 10, .ret = 50,
	   .a = { 4, 0, 50 }, .nfd = 1, .fd = { FD(0, 4, IOT_FT_FIFO, 77) }, .skip = skip);
	SC(b, .pid = 1, .tid = 2, .nr = SYS_read, .ts = 150, .dur = 250, .ret = 60,
	   .a = { 3, 0, 60 }, .nfd = 1, .fd = { FD(0, 3, IOT_FT_FIFO, 77) });
	SC(b, .pid = 1, .tid = 2, .nr = SYS_read, .ts = 450, .dur = 50, .ret = 90,
	   .a = { 3, 0, 4096 }, .nfd = 1, .fd = { FD(0, 3, IOT_FT_FIFO, 77) });
	SC(b, .pid = 1, .tid = 2, .nr = SYS_read, .ts = 550, .dur = 50, .ret = 10,
	   .a = { 3, 0, 4096 }, .nfd = 1, .fd = { FD(0, 3, IOT_FT_FIFO, 77) });
}

/* Bytes are counted: a read depends on the writes whose bytes it took. */
static void test_analyze__data_pipe_partial_reads(void)
{
	struct tb b;

	pipe_trace(&b, 0);
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
	CU_ASSERT(dep(&b, 1, 1, 2, 0, AN_RULE_DATA));		 /* 60 of write 1 */
	CU_ASSERT(dep(&b, 1, 2, 2, 1, AN_RULE_DATA));		 /* 40 of write 1, 50 of write 2 */
	CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 2, 1)), 1); /* write 1 is implied */
	CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 2, 2)), 0); /* nobody wrote these */
	CU_ASSERT_EQUAL(analysis__counter(b.an, "stream_bytes_unmatched"), 10);
	CU_ASSERT_STRING_EQUAL(analysis__fd_path(b.an, ev(&b, 2, 0), 0), "pipe:[77]");
	tb_free(&b);
}

/* An eventfd is a count: each read takes the writes since the read before,
 * and a write comes after that read; else a replay could fold the second
 * write into the first read and leave the second read nothing. */
static void test_analyze__data_eventfd(void)
{
	struct tb b;

	tb_init(&b);
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_eventfd2, .ts = 10, .dur = 5, .ret = 5, .nfd = 1,
	   .fd = { FD(IOT_FD_RET0, 5, IOT_FT_ANON, 1038) });
	for (int k = 0; k < 2; k++) {
		SC(&b, .pid = 1, .tid = 1, .nr = SYS_write, .ts = 100 + 200 * k, .dur = 10,
		   .ret = 8, .a = { 5, 0, 8 }, .nfd = 1, .fd = { FD(0, 5, IOT_FT_ANON, 1038) });
		SC(&b, .pid = 1, .tid = 2, .nr = SYS_read, .ts = 150 + 200 * k, .dur = 10, .ret = 8,
		   .a = { 5, 0, 8 }, .nfd = 1, .fd = { FD(0, 5, IOT_FT_ANON, 1038) });
	}
	/* another process's fd 5, an epoll fd on the same anon inode: no count */
	SC(&b, .pid = 3, .tid = 3, .nr = SYS_read, .ts = 500, .dur = 10, .ret = 8, .a = { 5, 0, 8 },
	   .nfd = 1, .fd = { FD(0, 5, IOT_FT_ANON, 1038) });
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
	CU_ASSERT(dep(&b, 1, 1, 2, 0, AN_RULE_DATA));
	CU_ASSERT(dep(&b, 1, 2, 2, 1, AN_RULE_DATA));
	CU_ASSERT(dep(&b, 2, 0, 1, 2, AN_RULE_DATA)); /* the second write after the first read */
	CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 3, 0)), 0);
	tb_free(&b);
}

/* Another thread's send on a socket comes after its connect, not just
 * after its creation. */
static void test_analyze__stage_connect(void)
{
	struct tb b;

	tb_init(&b);
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_socket, .ts = 10, .dur = 5, .ret = 3, .nfd = 1,
	   .fd = { FD(IOT_FD_RET, 3, IOT_FT_SOCK, 99) });
	SC(&b, .pid = 1, .tid = 2, .nr = SYS_fcntl, .ts = 20, .dur = 5, .a = { 3 }, .nfd = 1,
	   .fd = { FD(0, 3, IOT_FT_SOCK, 99) });
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_connect, .ts = 30, .dur = 50, .a = { 3 }, .nfd = 1,
	   .fd = { FD(0, 3, IOT_FT_SOCK, 99) });
	SC(&b, .pid = 1, .tid = 2, .nr = SYS_writev, .ts = 100, .dur = 10, .ret = 18, .a = { 3 },
	   .nfd = 1, .fd = { FD(0, 3, IOT_FT_SOCK, 99) });
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
	CU_ASSERT(dep(&b, 1, 0, 2, 0, AN_RULE_STAGE));
	CU_ASSERT(dep(&b, 1, 1, 2, 1, AN_RULE_STAGE));
	tb_free(&b);
}

/* A loss gap in the writer's thread stops inference across it. */
static void test_analyze__loss_gap(void)
{
	struct tb b;

	pipe_trace(&b, 3);
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
	CU_ASSERT_FALSE(dep(&b, 1, 1, 2, 0, AN_RULE_DATA));
	CU_ASSERT_FALSE(dep(&b, 1, 2, 2, 1, AN_RULE_DATA));
	CU_ASSERT(analysis__counter(b.an, "edges_gap") >= 2);
	CU_ASSERT_EQUAL(analysis__counter(b.an, "seq_gaps"), 3);
	tb_free(&b);
}

/* A file write -> a later overlapping read by another thread, and nothing else. */
static void test_analyze__data_file(void)
{
	struct tb b;
	struct iot_fd f = FD(0, 3, IOT_FT_REG, 5);

	tb_init(&b);
	put_fdsnap(&b, 1, 3, 5, "/data");
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_pwrite64, .ts = 100, .dur = 10, .ret = 4096,
	   .a = { 3, 0, 4096, 0 }, .nfd = 1, .fd = { f });
	SC(&b, .pid = 1, .tid = 2, .nr = SYS_pread64, .ts = 105, .dur = 10, .ret = 100,
	   .a = { 3, 0, 100, 1000 }, .nfd = 1, .fd = { f }); /* began before the write ended */
	SC(&b, .pid = 1, .tid = 2, .nr = SYS_pread64, .ts = 200, .dur = 10, .ret = 100,
	   .a = { 3, 0, 100, 8192 }, .nfd = 1, .fd = { f }); /* does not overlap */
	SC(&b, .pid = 1, .tid = 2, .nr = SYS_pread64, .ts = 300, .dur = 10, .ret = 100,
	   .a = { 3, 0, 100, 1000 }, .nfd = 1, .fd = { f });
	CU_ASSERT_FATAL(tb_run(&b, 1u << AN_RULE_DATA) != NULL);
	CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 2, 0)), 0);
	CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 2, 1)), 0);
	CU_ASSERT(dep(&b, 1, 0, 2, 2, AN_RULE_DATA));
	CU_ASSERT_STRING_EQUAL(analysis__fd_path(b.an, ev(&b, 2, 2), 0), "/data");
	tb_free(&b);
}

#define AT_CWD ((uint64_t)(int64_t)-100)

static void put_link(struct tb *b, const char *path, const char *target, const char *end)
{
	static unsigned char buf[IOT_REC_MAX];
	struct iot_link *l = (void *)buf;
	size_t off = sizeof(*l);

	memset(buf, 0, sizeof(buf));
	l->end_mode = 0100755;
	l->end_size = 12345;
	l->end_dev = 8;
	l->nstr = 3;
	CU_ASSERT_FATAL(rec__put_str(buf, &off, sizeof(buf), 0, path, strlen(path)));
	CU_ASSERT_FATAL(rec__put_str(buf, &off, sizeof(buf), 1, target, strlen(target)));
	CU_ASSERT_FATAL(rec__put_str(buf, &off, sizeof(buf), 2, end, strlen(end)));
	l->hdr =
		(struct iot_hdr){ .ts = 10, .pid = 1, .tid = 1, .type = IOT_REC_LINK, .size = off };
	put(b, &l->hdr);
}

static const struct an_file *file_of(const struct analysis *an, const char *path)
{
	for (size_t i = 0; i < an->files.n; i++) {
		const struct an_file *f = an_vec__at(&an->files, i);
		const char *p = strtab__str(&an->strs, f->path);

		if (p && !strcmp(p, path))
			return f;
	}
	return NULL;
}

/*
 * A stat of /usr/bin/cc, which the recorder found to be a link to
 * /etc/alt/cc, itself a link to /usr/bin/gcc-12: both links and the chain's
 * end are initial state, the end with the size the recorder saw.  A link
 * the trace created is left alone, and so is one that continues no chain
 * the trace used.
 */
static void test_analyze__symlink_chain(void)
{
	const struct an_file *f;
	struct analysis *an;
	struct tb b;

	tb_init(&b);
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_newfstatat, .ts = 10, .dur = 5, .ret = 0,
	   .a = { AT_CWD, 0, 0, 0 }, .str = { "/usr/bin/cc" }, .sw = { 1 }, .nfd = 1,
	   .fd = { { .which = IOT_FD_STAT, .fd = -1, .flags = 0100755, .size = 12345, .dev = 8 } });
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_symlinkat, .ts = 20, .dur = 5, .ret = 0,
	   .a = { 0, AT_CWD, 0 }, .str = { "/x", "/made" }, .sw = { 0, 2 });
	put_link(&b, "/usr/bin/cc", "/etc/alt/cc", "/usr/bin/gcc-12");
	put_link(&b, "/etc/alt/cc", "/usr/bin/gcc-12", "/usr/bin/gcc-12");
	put_link(&b, "/made", "/x", "/x");
	put_link(&b, "/stray", "/y", "/y");
	an = tb_run(&b, RULES_ALL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(an);
	f = file_of(an, "/usr/bin/cc");
	CU_ASSERT(f && f->type == IOT_FT_LNK &&
		  !strcmp(strtab__str(&an->strs, f->target), "/etc/alt/cc"));
	f = file_of(an, "/etc/alt/cc");
	CU_ASSERT(f && f->type == IOT_FT_LNK &&
		  !strcmp(strtab__str(&an->strs, f->target), "/usr/bin/gcc-12"));
	f = file_of(an, "/usr/bin/gcc-12");
	CU_ASSERT(f && f->type == IOT_FT_REG && f->size == 12345 && !f->created);
	f = file_of(an, "/made");
	CU_ASSERT(f && f->created);
	CU_ASSERT_PTR_NULL(file_of(an, "/stray"));
	tb_free(&b);
}

/* Thread 1 opens /a as fd 3 at 10, thread 2 reads 10 bytes of it at 20. */
static void open_then_read(struct tb *b)
{
	SC(b, .pid = 1, .tid = 1, .nr = SYS_openat, .ts = 10, .dur = 5, .ret = 3,
	   .a = { AT_CWD, 0, O_RDONLY }, .str = { "/a" }, .sw = { 1 }, .nfd = 1,
	   .fd = { FD(IOT_FD_RET, 3, IOT_FT_REG, 11) });
	SC(b, .pid = 1, .tid = 2, .nr = SYS_read, .ts = 20, .dur = 5, .ret = 10, .a = { 3, 0, 10 },
	   .nfd = 1, .fd = { FD(0, 3, IOT_FT_REG, 11) });
}

/* fd 3 closed by one thread and reused by another: two generations, each
 * with its own path, and stage order open -> uses -> close across threads. */
static void test_analyze__fd_reuse_after_close(void)
{
	struct tb b;

	tb_init(&b);
	open_then_read(&b);
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_close, .ts = 30, .dur = 5, .a = { 3 }, .nfd = 1,
	   .fd = { FD(0, 3, IOT_FT_REG, 11) });
	SC(&b, .pid = 1, .tid = 2, .nr = SYS_openat, .ts = 40, .dur = 5, .ret = 3,
	   .a = { AT_CWD, 0, O_RDONLY }, .str = { "/b" }, .sw = { 1 }, .nfd = 1,
	   .fd = { FD(IOT_FD_RET, 3, IOT_FT_REG, 12) });
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_read, .ts = 50, .dur = 5, .ret = 10, .a = { 3, 0, 10 },
	   .nfd = 1, .fd = { FD(0, 3, IOT_FT_REG, 12) });
	CU_ASSERT_FATAL(tb_run(&b, 1u << AN_RULE_STAGE) != NULL);
	CU_ASSERT(dep(&b, 1, 0, 2, 0, AN_RULE_STAGE)); /* open /a -> read */
	CU_ASSERT(dep(&b, 2, 0, 1, 1, AN_RULE_STAGE)); /* read -> close */
	CU_ASSERT(dep(&b, 2, 1, 1, 2, AN_RULE_STAGE)); /* open /b -> read */
	CU_ASSERT_STRING_EQUAL(analysis__fd_path(b.an, ev(&b, 2, 0), 0), "/a");
	CU_ASSERT_STRING_EQUAL(analysis__fd_path(b.an, ev(&b, 1, 2), 0), "/b");
	tb_free(&b);
}

/* dup in one thread, the new fd used by another: it names the same file and
 * depends on the dup. */
static void test_analyze__dup_across_threads(void)
{
	struct tb b;

	tb_init(&b);
	put_fdsnap(&b, 1, 3, 5, "/data");
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_dup, .ts = 10, .dur = 5, .ret = 7, .a = { 3 },
	   .nfd = 2, .fd = { FD(0, 3, IOT_FT_REG, 5), FD(IOT_FD_RET, 7, IOT_FT_REG, 5) });
	SC(&b, .pid = 1, .tid = 2, .nr = SYS_read, .ts = 20, .dur = 5, .ret = 10, .a = { 7, 0, 10 },
	   .nfd = 1, .fd = { FD(0, 7, IOT_FT_REG, 5) });
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
	CU_ASSERT(dep(&b, 1, 0, 2, 0, AN_RULE_STAGE));
	CU_ASSERT_STRING_EQUAL(analysis__fd_path(b.an, ev(&b, 2, 0), 0), "/data");
	tb_free(&b);
}

/* fds are inherited across fork: the child's fd 3 is the parent's file. */
static void test_analyze__fd_inherited_across_fork(void)
{
	struct tb b;

	tb_init(&b);
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_openat, .ts = 10, .dur = 5, .ret = 3,
	   .a = { AT_CWD, 0, O_RDONLY }, .str = { "/log" }, .sw = { 1 }, .nfd = 1,
	   .fd = { FD(IOT_FD_RET, 3, IOT_FT_REG, 11) });
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_clone, .ts = 20, .dur = 10, .ret = 2);
	put_fork(&b, 1, 1, 2, 2, 25);
	SC(&b, .pid = 2, .tid = 2, .nr = SYS_write, .ts = 40, .dur = 5, .ret = 4, .a = { 3, 0, 4 },
	   .nfd = 1, .fd = { FD(0, 3, IOT_FT_REG, 11) });
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_close, .ts = 50, .dur = 5, .a = { 3 }, .nfd = 1,
	   .fd = { FD(0, 3, IOT_FT_REG, 11) });
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
	CU_ASSERT_STRING_EQUAL(analysis__fd_path(b.an, ev(&b, 2, 0), 0), "/log");
	CU_ASSERT(dep(&b, 1, 1, 2, 0, AN_RULE_PROCESS));
	/* the parent's close ends the parent's fd, not the child's: no edge */
	CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 1, 2)), 0);
	tb_free(&b);
}

/* A directory renamed while a file in it is open: the fd follows the move,
 * and a later open of the old path is a new generation of that name. */
static void test_analyze__rename_dir_with_open_file(void)
{
	struct tb b;

	tb_init(&b);
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_openat, .ts = 10, .dur = 5, .ret = 3,
	   .a = { AT_CWD, 0, O_RDWR }, .str = { "/d/f" }, .sw = { 1 }, .nfd = 1,
	   .fd = { FD(IOT_FD_RET, 3, IOT_FT_REG, 11) });
	SC(&b, .pid = 1, .tid = 2, .nr = SYS_rename, .ts = 20, .dur = 5, .str = { "/d", "/e" },
	   .sw = { 0, 1 });
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_write, .ts = 30, .dur = 5, .ret = 4, .a = { 3, 0, 4 },
	   .nfd = 1, .fd = { FD(0, 3, IOT_FT_REG, 11) });
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_mkdir, .ts = 40, .dur = 5, .str = { "/d" },
	   .sw = { 0 });
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
	CU_ASSERT_STRING_EQUAL(analysis__fd_path(b.an, ev(&b, 1, 1), 0), "/e/f");
	/* the rename of /d comes after the open under it, the new /d after the rename */
	CU_ASSERT(dep(&b, 1, 0, 2, 0, AN_RULE_STAGE) || dep(&b, 1, 0, 2, 0, AN_RULE_NAME));
	CU_ASSERT(dep(&b, 2, 0, 1, 2, AN_RULE_NAME) || dep(&b, 2, 0, 1, 2, AN_RULE_STAGE));
	tb_free(&b);
}

/* Threads that share nothing get no edges, whatever their timing. */
static void test_analyze__no_interaction_no_edge(void)
{
	struct tb b;

	tb_init(&b);
	for (uint32_t i = 0; i < 20; i++) {
		uint32_t tid = 1 + i % 2;

		SC(&b, .pid = 1, .tid = tid, .nr = SYS_pread64, .ts = 10 + i * 10, .dur = 8,
		   .ret = 100, .a = { 3 + tid, 0, 100, 0 }, .nfd = 1,
		   .fd = { FD(0, 3 + tid, IOT_FT_REG, 20 + tid) });
	}
	CU_ASSERT_FATAL(tb_run(&b, (1u << AN_RULE_NR) - 1) != NULL);
	for (uint32_t n = 0; n < 10; n++) {
		CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 1, n)), 0);
		CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 2, n)), 0);
	}
	tb_free(&b);
}

/* A read that found the end of the file precedes another thread's later
 * write into what it missed: replayed the other way, the read finds data. */
static void test_analyze__short_read_before_write(void)
{
	struct tb b;
	struct iot_fd f = FD(0, 3, IOT_FT_REG, 5);

	tb_init(&b);
	put_fdsnap(&b, 1, 3, 5, "/log");
	SC(&b, .pid = 1, .tid = 2, .nr = SYS_pread64, .ts = 10, .dur = 5, .ret = 0,
	   .a = { 3, 0, 4096, 8192 }, .nfd = 1, .fd = { f }); /* EOF at 8192 */
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_pwrite64, .ts = 30, .dur = 5, .ret = 4096,
	   .a = { 3, 0, 4096, 8192 }, .nfd = 1, .fd = { f }); /* fills it later */
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_pwrite64, .ts = 40, .dur = 5, .ret = 100,
	   .a = { 3, 0, 100, 0 }, .nfd = 1, .fd = { f }); /* elsewhere */
	SC(&b, .pid = 1, .tid = 2, .nr = SYS_pread64, .ts = 50, .dur = 5, .ret = 4096,
	   .a = { 3, 0, 4096, 8192 }, .nfd = 1, .fd = { f }); /* now it is there */
	CU_ASSERT_FATAL(tb_run(&b, 1u << AN_RULE_DATA) != NULL);
	CU_ASSERT(dep(&b, 2, 0, 1, 0, AN_RULE_DATA));	    /* short read -> the write */
	CU_ASSERT(dep(&b, 1, 0, 2, 1, AN_RULE_DATA));	    /* the write -> the full read */
	CU_ASSERT_FALSE(dep(&b, 2, 0, 1, 1, AN_RULE_DATA)); /* no overlap, no edge */
	tb_free(&b);
}

/* One path, two generations made by three threads: the unlink ends the first
 * (stage: create -> delete), the re-create follows it (name: generation n ->
 * n + 1), and create -> re-create, implied by the two, is not kept. */
static void test_analyze__name_generations(void)
{
	struct tb b;

	tb_init(&b);
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_openat, .ts = 10, .dur = 5, .ret = 3,
	   .a = { AT_CWD, 0, O_CREAT | O_WRONLY }, .str = { "/x" }, .sw = { 1 }, .nfd = 1,
	   .fd = { FD(IOT_FD_RET, 3, IOT_FT_REG, 11) });
	SC(&b, .pid = 1, .tid = 2, .nr = SYS_unlink, .ts = 20, .dur = 5, .str = { "/x" },
	   .sw = { 0 });
	SC(&b, .pid = 1, .tid = 3, .nr = SYS_openat, .ts = 30, .dur = 5, .ret = 4,
	   .a = { AT_CWD, 0, O_CREAT | O_WRONLY }, .str = { "/x" }, .sw = { 1 }, .nfd = 1,
	   .fd = { FD(IOT_FD_RET, 4, IOT_FT_REG, 12) });
	CU_ASSERT_FATAL(tb_run(&b, (1u << AN_RULE_NAME) | (1u << AN_RULE_STAGE)) != NULL);
	CU_ASSERT(dep(&b, 1, 0, 2, 0, AN_RULE_STAGE));	    /* create -> unlink */
	CU_ASSERT(dep(&b, 2, 0, 3, 0, AN_RULE_NAME));	    /* unlink -> re-create */
	CU_ASSERT_FALSE(dep(&b, 1, 0, 3, 0, AN_RULE_NAME)); /* implied by the two */
	CU_ASSERT_FALSE(dep(&b, 1, 0, 3, 0, AN_RULE_STAGE));
	CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 3, 0)), 1);
	tb_free(&b);
}

/* Sequential ordering (ARTC's strictest file rule) is off by default: two
 * threads reading one file get an edge only when the rule set asks for it. */
static void test_analyze__seq_only_when_asked(void)
{
	for (int on = 0; on < 2; on++) {
		struct tb b;

		tb_init(&b);
		put_fdsnap(&b, 1, 3, 5, "/db");
		SC(&b, .pid = 1, .tid = 1, .nr = SYS_pread64, .ts = 10, .dur = 5, .ret = 100,
		   .a = { 3, 0, 100, 0 }, .nfd = 1, .fd = { FD(0, 3, IOT_FT_REG, 5) });
		SC(&b, .pid = 1, .tid = 2, .nr = SYS_pread64, .ts = 20, .dur = 5, .ret = 100,
		   .a = { 3, 0, 100, 4096 }, .nfd = 1, .fd = { FD(0, 3, IOT_FT_REG, 5) });
		CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT | (on ? 1u << AN_RULE_SEQ : 0)) !=
				NULL);
		CU_ASSERT_EQUAL(dep(&b, 1, 0, 2, 0, AN_RULE_SEQ), on);
		CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 2, 0)), on);
		tb_free(&b);
	}
}

/* --rules: a family switched off adds nothing, the others are unchanged. */
static void test_analyze__rule_family_off(void)
{
	for (int off = 0; off < 2; off++) {
		struct tb b;

		tb_init(&b);
		open_then_read(&b);
		CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT & ~(off ? 1u << AN_RULE_STAGE : 0)) !=
				NULL);
		CU_ASSERT_EQUAL(dep(&b, 1, 0, 2, 0, AN_RULE_STAGE), !off);
		CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 2, 0)), !off);
		tb_free(&b);
	}
}

/* open (T1) -> read (T2) -> close (T3): the stage rule also orders open ->
 * close, which the other two imply; reduction keeps only what replay needs. */
static void test_analyze__transitive_reduction(void)
{
	struct tb b;

	tb_init(&b);
	open_then_read(&b);
	SC(&b, .pid = 1, .tid = 3, .nr = SYS_close, .ts = 30, .dur = 5, .a = { 3 }, .nfd = 1,
	   .fd = { FD(0, 3, IOT_FT_REG, 11) });
	CU_ASSERT_FATAL(tb_run(&b, 1u << AN_RULE_STAGE) != NULL);
	CU_ASSERT(dep(&b, 1, 0, 2, 0, AN_RULE_STAGE));
	CU_ASSERT(dep(&b, 2, 0, 3, 0, AN_RULE_STAGE));
	CU_ASSERT_FALSE(dep(&b, 1, 0, 3, 0, AN_RULE_STAGE));
	CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 3, 0)), 1);
	tb_free(&b);
}

/*
 * A lock's handover implies nothing: thread 2 writes an eventfd, then
 * unlocks the mutex thread 1 waits on (a FUTEX_WAKE of one), and thread 1
 * then reads the eventfd.  The handover is kept, and so is the write ->
 * read, which the replay needs when it lets the waiter go first
 * (docs/replay.md, Locks).  Behind a broadcast (a barrier's or a condition's
 * wake, an order) the write -> read is implied and goes.
 */
static void test_analyze__lock_handover_implies_nothing(void)
{
	static const uint64_t vals[] = { 1, 0x7fffffff };
	struct tb b;

	for (int i = 0; i < 2; i++) {
		tb_init(&b);
		SC(&b, .pid = 1, .tid = 2, .nr = SYS_eventfd2, .ts = 10, .dur = 5, .ret = 5,
		   .nfd = 1, .fd = { FD(IOT_FD_RET0, 5, IOT_FT_ANON, 1038) });
		SC(&b, .pid = 1, .tid = 2, .nr = SYS_write, .ts = 100, .dur = 10, .ret = 8,
		   .a = { 5, 0, 8 }, .nfd = 1, .fd = { FD(0, 5, IOT_FT_ANON, 1038) });
		SC(&b, .pid = 1, .tid = 1, .nr = SYS_futex, .ts = 120, .dur = 50, .offcpu = 40,
		   .a = { 0x1000, 128 /* FUTEX_WAIT_PRIVATE */, 2 });
		SC(&b, .pid = 1, .tid = 2, .nr = SYS_futex, .ts = 150, .dur = 10, .ret = 1,
		   .a = { 0x1000, 129 /* FUTEX_WAKE_PRIVATE */, vals[i] });
		put_wake(&b, 1, 1, 1, 2, 155);
		SC(&b, .pid = 1, .tid = 1, .nr = SYS_read, .ts = 200, .dur = 10, .ret = 8,
		   .a = { 5, 0, 8 }, .nfd = 1, .fd = { FD(0, 5, IOT_FT_ANON, 1038) });
		CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
		CU_ASSERT(dep(&b, 2, 2, 1, 0, AN_RULE_WAKEUP));
		CU_ASSERT_EQUAL(dep(&b, 2, 1, 1, 1, AN_RULE_DATA), i == 0);
		tb_free(&b);
	}
}

/* The header's initial files, as the replay reads them: path -> type. */
static json_t *initial_files(struct tb *b)
{
	json_t *hdr, *files = json_object(), *f;
	char *text = NULL;
	size_t len = 0, i;
	FILE *m = open_memstream(&text, &len);

	CU_ASSERT_FATAL(m && analysis__write_jsonl(b->an, m) == 0);
	fclose(m);
	hdr = json_loadb(text, strcspn(text, "\n"), 0, NULL);
	CU_ASSERT_FATAL(hdr != NULL);
	json_array_foreach(json_object_get(hdr, "files"), i, f)
		json_object_set(files, json_string_value(json_object_get(f, "path")),
				json_object_get(f, "type"));
	json_decref(hdr);
	free(text);
	return files;
}

static const char *ftype_of(json_t *files, const char *path)
{
	const char *t = json_string_value(json_object_get(files, path));

	return t ? t : "(none)";
}

/* As RocksDB writes CURRENT: a temp file renamed into place, then opened.
 * Neither name is initial state; a LOG only accessed and renamed away was,
 * and a directory only known through access() is one when files lie below. */
static void test_analyze__initial_state_from_names(void)
{
	struct tb b;
	json_t *files;

	tb_init(&b);
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_access, .ts = 5, .dur = 1, .str = { "/data" },
	   .sw = { 0 });
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_openat, .ts = 10, .dur = 5, .ret = 3,
	   .a = { AT_CWD, 0, O_CREAT | O_WRONLY | O_TRUNC }, .str = { "/data/db/tmp" }, .sw = { 1 },
	   .nfd = 1, .fd = { FD(IOT_FD_RET, 3, IOT_FT_REG, 11) });
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_rename, .ts = 20, .dur = 5,
	   .str = { "/data/db/tmp", "/data/db/CURRENT" }, .sw = { 0, 1 });
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_openat, .ts = 30, .dur = 5, .ret = 4,
	   .a = { AT_CWD, 0, O_RDONLY }, .str = { "/data/db/CURRENT" }, .sw = { 1 }, .nfd = 1,
	   .fd = { FD(IOT_FD_RET, 4, IOT_FT_REG, 11) });
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_access, .ts = 40, .dur = 1, .str = { "/data/db/LOG" },
	   .sw = { 0 });
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_rename, .ts = 50, .dur = 5,
	   .str = { "/data/db/LOG", "/data/db/LOG.old" }, .sw = { 0, 1 });
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_unlink, .ts = 60, .dur = 5, .str = { "/data/db/OLD" },
	   .sw = { 0 });
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
	files = initial_files(&b);
	CU_ASSERT_STRING_EQUAL(ftype_of(files, "/data/db/tmp"), "(none)");
	CU_ASSERT_STRING_EQUAL(ftype_of(files, "/data/db/CURRENT"), "(none)");
	CU_ASSERT_STRING_EQUAL(ftype_of(files, "/data/db/LOG.old"), "(none)");
	CU_ASSERT_STRING_EQUAL(ftype_of(files, "/data/db/LOG"), "file");
	CU_ASSERT_STRING_EQUAL(ftype_of(files, "/data/db/OLD"), "file");
	CU_ASSERT_STRING_EQUAL(ftype_of(files, "/data/db"), "dir");
	CU_ASSERT_STRING_EQUAL(ftype_of(files, "/data"), "dir");
	json_decref(files);
	tb_free(&b);
}

/* Equal keys keep their order, keys spanning 64 bits or 32, n of 0 and 1 included. */
static void test_analyze__sort_stable(void)
{
	uint64_t key[] = { 5, UINT64_MAX, 0, 5, 1ull << 40, 0, 5, UINT64_MAX };
	uint64_t near[] = { 7e9 + 5, 7e9 + 3, 7e9 + (1u << 31), 7e9 + 3, 7e9, 7e9 + 4096 };
	uint32_t val[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	uint32_t want_val[] = { 2, 5, 0, 3, 6, 4, 1, 7 };
	uint32_t val2[] = { 0, 1, 2, 3, 4, 5 };
	uint32_t want_val2[] = { 4, 1, 3, 0, 5, 2 };

	CU_ASSERT_FATAL(sort__by_key(key, val, 8) == 0);
	CU_ASSERT(!memcmp(val, want_val, sizeof(val)));
	CU_ASSERT_FATAL(sort__by_key(near, val2, 6) == 0);
	CU_ASSERT(!memcmp(val2, want_val2, sizeof(val2)));
	CU_ASSERT(sort__by_key(key, val, 1) == 0 && val[0] == 2);
	CU_ASSERT(sort__by_key(key, val, 0) == 0);
}

/* Ids follow enter time, then thread (first seen first), then arrival. */
static void test_analyze__enter_order(void)
{
	struct tb b;

	tb_init(&b);
	SC(&b, .pid = 1, .tid = 2, .nr = SYS_getpid, .ts = 20, .dur = 1);  /* thread 0 */
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_getpid, .ts = 10, .dur = 30); /* thread 1 */
	SC(&b, .pid = 1, .tid = 2, .nr = SYS_getpid, .ts = 30, .dur = 1);
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_getpid, .ts = 20, .dur = 0); /* ties thread 0 */
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_getpid, .ts = 20, .dur = 0); /* ties itself */
	CU_ASSERT_FATAL(tb_run(&b, 0) != NULL);
	CU_ASSERT(ev(&b, 1, 0) == 0);
	CU_ASSERT(ev(&b, 2, 0) == 1);
	CU_ASSERT(ev(&b, 1, 1) == 2);
	CU_ASSERT(ev(&b, 1, 2) == 3);
	CU_ASSERT(ev(&b, 2, 1) == 4);
	tb_free(&b);
}

/* A remembered number is reused only for the same value written the same way. */
static void test_analyze__jw_memo(void)
{
	struct jw *w = malloc(sizeof(*w));
	struct jw_num m = { 0 };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	CU_ASSERT_FATAL(w && f);
	jw__init(w, f);
	jw__s64_memo(w, &m, -1);
	jw__raw(w, " ", 1);
	jw__s64_memo(w, &m, -1);
	jw__raw(w, " ", 1);
	jw__u64_memo(w, &m, UINT64_MAX); /* same bits, unsigned */
	jw__raw(w, " ", 1);
	jw__u64_memo(w, &m, 7);
	jw__raw(w, " ", 1);
	jw__str(w, "a\"b\\c\n\x7f\xc3\xa9");
	CU_ASSERT(jw__flush(w) == 0);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(out, "-1 -1 18446744073709551615 7 "
				    "\"a\\\"b\\\\c\\u000a\\u007f\xc3\xa9\"");
	free(out);
	free(w);
}

/* Each event line's integer KEY (0 when absent), in id order, from the written
 * annotated trace; and its compute_src when SRC. */
static void event_ints(struct tb *b, const char *key, uint64_t *out, size_t n, char src[][8])
{
	char *text = NULL, *line, *save = NULL;
	size_t len = 0, i = 0;
	FILE *m = open_memstream(&text, &len);

	CU_ASSERT_FATAL(m && analysis__write_jsonl(b->an, m) == 0);
	fclose(m);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_t *e = json_loads(line, 0, NULL);

		CU_ASSERT_FATAL(e != NULL);
		if (!strcmp(json_string_value(json_object_get(e, "type")), "event") && i < n) {
			out[i] = json_integer_value(json_object_get(e, key));
			if (src)
				snprintf(src[i], 8, "%s",
					 json_string_value(json_object_get(e, "compute_src")));
			i++;
		}
		json_decref(e);
	}
	CU_ASSERT_EQUAL(i, n);
	free(text);
}

static void event_compute(struct tb *b, uint64_t *out, size_t n, char src[][8])
{
	event_ints(b, "compute_ns", out, n, src);
}

/*
 * Every integer of the annotated trace fits in 64 signed bits: a FUTEX_WAKE
 * whose unused uaddr2 register held 13055289812565568482 (db_bench) made a
 * line our own replay refused.  It is written as its two's complement.
 */
static void test_analyze__args_fit_int64(void)
{
	const uint64_t junk = 13055289812565568482ull;
	char *text = NULL, *line, *save = NULL;
	size_t len = 0;
	unsigned int events = 0;
	struct tb b;
	FILE *m;

	tb_init(&b);
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_futex, .ts = 100, .dur = 10, .ret = 0,
	   .a = { 0x1000, 129, 1, 0, junk, (uint64_t)-189972056 });
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
	m = open_memstream(&text, &len);
	CU_ASSERT_FATAL(m && analysis__write_jsonl(b.an, m) == 0);
	fclose(m);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_t *e = json_loads(line, 0, NULL), *a;

		CU_ASSERT_FATAL(e != NULL);
		a = json_object_get(e, "args");
		if (a) {
			events++;
			CU_ASSERT_EQUAL((uint64_t)json_integer_value(json_object_get(a, "uaddr2")),
					junk);
			CU_ASSERT_EQUAL(json_integer_value(json_object_get(a, "uaddr")), 0x1000);
		}
		json_decref(e);
	}
	CU_ASSERT_EQUAL(events, 1);
	free(text);
	tb_free(&b);
}

/* The recording's compute floor comes off on-CPU compute, never below 0;
 * a wall gap (no scheduler data) is left as it is. */
static void test_analyze__compute_floor(void)
{
	struct iot_meta m = { .hdr = { .ts = 1, .type = IOT_REC_META, .size = sizeof(m) },
			      .compute_floor_ns = 300 };
	uint64_t c[3];
	char src[3][8];
	struct tb b;

	tb_init(&b);
	put(&b, &m.hdr);
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_getpid, .ts = 10, .dur = 5, .flags = IOT_SCF_NO_CPU);
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_getpid, .ts = 2000, .dur = 5, .cpu = 1000);
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_getpid, .ts = 3000, .dur = 5, .cpu = 100);
	CU_ASSERT_FATAL(tb_run(&b, 0) != NULL);
	event_compute(&b, c, 3, src);
	CU_ASSERT_EQUAL(c[0], 0); /* first call: nothing before it */
	CU_ASSERT_STRING_EQUAL(src[0], "wall");
	CU_ASSERT_EQUAL(c[1], 700);
	CU_ASSERT_STRING_EQUAL(src[1], "oncpu");
	CU_ASSERT_EQUAL(c[2], 0); /* under the floor */
	tb_free(&b);
}

/* After a call the thread was switched out in, the floor after a switch
 * (FLOOR) comes off instead; without a FLOOR record, the plain one. */
static void test_analyze__compute_floor_after_switch(void)
{
	struct iot_meta m = { .hdr = { .ts = 1, .type = IOT_REC_META, .size = sizeof(m) },
			      .compute_floor_ns = 300 };
	struct iot_floor f = { .hdr = { .ts = 1, .type = IOT_REC_FLOOR, .size = sizeof(f) },
			       .switch_ns = 900 };
	uint64_t c[4];
	char src[4][8];
	struct tb b;

	for (int with_floor = 0; with_floor < 2; with_floor++) {
		tb_init(&b);
		put(&b, &m.hdr);
		if (with_floor)
			put(&b, &f.hdr);
		SC(&b, .pid = 1, .tid = 1, .nr = SYS_read, .ts = 10, .dur = 500, .offcpu = 400,
		   .flags = IOT_SCF_NO_CPU);
		/* after the switched-out read */
		SC(&b, .pid = 1, .tid = 1, .nr = SYS_getpid, .ts = 2000, .dur = 5, .cpu = 1000);
		/* after a call that stayed on the CPU */
		SC(&b, .pid = 1, .tid = 1, .nr = SYS_getpid, .ts = 3000, .dur = 5, .cpu = 1000);
		SC(&b, .pid = 1, .tid = 1, .nr = SYS_getpid, .ts = 4000, .dur = 5, .cpu = 100);
		CU_ASSERT_FATAL(tb_run(&b, 0) != NULL);
		event_compute(&b, c, 4, src);
		CU_ASSERT_EQUAL(c[1], with_floor ? 100 : 700);
		CU_ASSERT_STRING_EQUAL(src[1], "oncpu");
		CU_ASSERT_EQUAL(c[2], 700);
		CU_ASSERT_EQUAL(c[3], 0);
		tb_free(&b);
	}
}

/* A short gap after a poll that found nothing without waiting is a busy
 * wait's turn: 0, "spin"; after a poll that waited, or a long one, compute. */
static void test_analyze__spin_after_empty_poll(void)
{
	uint64_t c[6];
	char src[6][8];
	struct tb b;

	tb_init(&b);
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_poll, .ts = 10, .dur = 5, .a = { 0, 1, 0 },
	   .cpu = 500);
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_poll, .ts = 1000, .dur = 5, .a = { 0, 1, 0 },
	   .cpu = 900);
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_read, .ts = 2000, .dur = 5, .a = { 0, 0, 8 },
	   .cpu = 800);
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_poll, .ts = 3000, .dur = 5, .a = { 0, 1, 10 },
	   .cpu = 700);
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_poll, .ts = 4000, .dur = 5, .a = { 0, 1, 0 },
	   .cpu = 600);
	SC(&b, .pid = 1, .tid = 1, .nr = SYS_getpid, .ts = 500000, .dur = 5, .cpu = 400000);
	CU_ASSERT_FATAL(tb_run(&b, 0) != NULL);
	event_compute(&b, c, 6, src);
	CU_ASSERT_EQUAL(c[1], 0);
	CU_ASSERT_STRING_EQUAL(src[1], "spin");
	CU_ASSERT_EQUAL(c[2], 0); /* the read the wait ended in */
	CU_ASSERT_STRING_EQUAL(src[2], "spin");
	CU_ASSERT_EQUAL(c[3], 700); /* after a read */
	CU_ASSERT_EQUAL(c[4], 600); /* after a poll with a timeout */
	CU_ASSERT_STRING_EQUAL(src[4], "oncpu");
	CU_ASSERT_EQUAL(c[5], 400000); /* too long for a busy wait's turn */
	CU_ASSERT_STRING_EQUAL(src[5], "oncpu");
	tb_free(&b);
}

/*
 * A lazy-wait loop of thread 1 (polls with timeout 0, 100 us sleeps): it
 * ends once thread 2's read, done during its last sleep, set its flag.
 * ender_ts: when thread 2's read begins (5 ns long); other: a third thread
 * of the process ends a call then too; sleeps: how many turns the loop has.
 */
static void spin_trace(struct tb *b, uint64_t ender_ts, bool other, int turns)
{
	uint64_t t = 1000;

	tb_init(b);
	for (int i = 0; i < turns; i++, t += 100000) {
		SC(b, .pid = 1, .tid = 1, .nr = SYS_poll, .ts = t, .dur = 1000, .a = { 0, 5, 0 });
		SC(b, .pid = 1, .tid = 1, .nr = SYS_clock_nanosleep, .ts = t + 2000, .dur = 98000);
	}
	SC(b, .pid = 1, .tid = 2, .nr = SYS_read, .ts = ender_ts, .dur = 5, .ret = 16,
	   .a = { 7, 0, 16 }, .nfd = 1, .fd = { FD(0, 7, IOT_FT_SOCK, 77) });
	if (other)
		SC(b, .pid = 1, .tid = 3, .nr = SYS_write, .ts = t - 50000, .dur = 5, .ret = 8,
		   .a = { 8, 0, 8 }, .nfd = 1, .fd = { FD(0, 8, IOT_FT_ANON, 78) });
	SC(b, .pid = 1, .tid = 1, .nr = SYS_munmap, .ts = t + 500, .dur = 100);
}

/* The loop's next call follows the one call another thread of the process
 * ended during its last turn; not when two threads did, not a call before
 * the loop's last check but one, and not a loop of one sleep. */
static void test_analyze__spin_loop_ender(void)
{
	struct tb b;

	spin_trace(&b, 1000 + 2 * 100000 + 40000, false, 3); /* in the last sleep */
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
	CU_ASSERT(dep(&b, 2, 0, 1, 6, AN_RULE_SPIN));
	CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 1, 6)), 1);
	tb_free(&b);

	spin_trace(&b, 1000 + 2 * 100000 + 40000, false, 3); /* the rule switched off */
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT & ~(1u << AN_RULE_SPIN)) != NULL);
	CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 1, 6)), 0);
	tb_free(&b);

	spin_trace(&b, 1000 + 2 * 100000 + 40000, true, 3); /* two threads: which? */
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
	CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 1, 6)), 0);
	tb_free(&b);

	/* during the last turn's poll, after the check that followed the
	 * sleep before it: Open MPI's progress thread read the answer then */
	spin_trace(&b, 1000 + 2 * 100000 + 400, false, 3);
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
	CU_ASSERT(dep(&b, 2, 0, 1, 6, AN_RULE_SPIN));
	tb_free(&b);

	spin_trace(&b, 1000 + 100000 + 40000, false, 3); /* the flag was set a turn earlier */
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
	CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 1, 6)), 0);
	tb_free(&b);

	spin_trace(&b, 1000 + 40000, false, 1); /* one sleep: no loop */
	CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
	CU_ASSERT_EQUAL(analysis__ndeps(b.an, ev(&b, 1, 2)), 0);
	tb_free(&b);
}

/*
 * A thread taken off the CPU while runnable by a user task outside the trace
 * was off for what its next switch says (that switch's time less its on-CPU
 * time), and that goes to the call after the preemption.  Not: a preemption
 * inside a call, by the recorder (META's pid, or its watcher's, which the
 * HELPER record after it names), a kernel thread or a thread of the trace, a
 * switch to sleep; nor anything in a trace whose META has no recorder pid
 * (written before it did).  v: 0 with a HELPER record, 1 from before META
 * had the pid, 2 without HELPER (the watcher counts).
 */
static void test_analyze__outside_preemption(void)
{
	struct iot_meta m = { .hdr = { .ts = 1, .type = IOT_REC_META, .size = sizeof(m) } };
	struct iot_helper h = { .hdr = { .ts = 9000,
					 .pid = 99,
					 .tid = 98,
					 .type = IOT_REC_HELPER,
					 .size = sizeof(h) } };
	uint64_t out[4];
	struct tb b;

	for (int v = 0; v < 3; v++) {
		tb_init(&b);
		m.hdr.pid = m.hdr.tid = v == 1 ? 0 : 99;
		put(&b, &m.hdr);
		SC(&b, .pid = 1, .tid = 2, .nr = SYS_getpid, .ts = 500, .dur = 5, .cpu = 10);
		SC(&b, .pid = 1, .tid = 1, .nr = SYS_getpid, .ts = 1000, .dur = 100, .cpu = 10);
		/* preempted by task 50: back at 2600 - 100 */
		put_switch(&b, 1, 1, 1500, 400, 50, IOT_SW_PREEMPT | 1);
		put_switch(&b, 1, 1, 2600, 100, 0, 1); /* to sleep */
		/* inside the read: runnable (state 0), task 51, back at 3050 */
		put_switch(&b, 1, 1, 3005, 0, 51, 0);
		put_switch(&b, 1, 1, 3100, 50, 0, 1);
		SC(&b, .pid = 1, .tid = 1, .nr = SYS_read, .ts = 3000, .dur = 900, .cpu = 400);
		/* before the next call: the recorder, a kernel thread, a thread of the trace */
		put_switch(&b, 1, 1, 4000, 100, 99, IOT_SW_PREEMPT);
		put_switch(&b, 1, 1, 4200, 100, 7, IOT_SW_PREEMPT | IOT_SW_NEXT_KERNEL);
		put_switch(&b, 1, 1, 4400, 100, 2, IOT_SW_PREEMPT);
		put_switch(&b, 1, 1, 4600, 100, 0, 1);
		/* the recorder's watcher: back at 4750 */
		put_switch(&b, 1, 1, 4700, 50, 98, IOT_SW_PREEMPT);
		put_switch(&b, 1, 1, 4800, 50, 0, 1);
		SC(&b, .pid = 1, .tid = 1, .nr = SYS_getpid, .ts = 5000, .dur = 5, .cpu = 10);
		/* the last: no call after it */
		put_switch(&b, 1, 1, 6000, 100, 50, IOT_SW_PREEMPT);
		put_switch(&b, 1, 1, 8000, 100, 0, 1);
		if (v == 0) /* once the watcher ran: after its switches */
			put(&b, &h.hdr);
		CU_ASSERT_FATAL(tb_run(&b, AN_RULES_DEFAULT) != NULL);
		event_ints(&b, "outside_ns", out, 4, NULL);
		CU_ASSERT_EQUAL(out[0], 0);
		CU_ASSERT_EQUAL(out[1], 0);
		/* 1500 -> 2500; not 3005 -> 3050, inside the read */
		CU_ASSERT_EQUAL(out[2], v == 1 ? 0 : 1000);
		CU_ASSERT_EQUAL(out[3], v == 2 ? 50 : 0);
		tb_free(&b);
	}
}

static CU_TestInfo tests[] = {
	{ "process: fork and wait", test_analyze__process },
	{ "preemption by tasks outside the trace", test_analyze__outside_preemption },
	{ "symlink chains from LINK records", test_analyze__symlink_chain },
	{ "wakeup", test_analyze__wakeup },
	{ "wakeup with no matching call", test_analyze__wakeup_no_matching_call },
	{ "wakeup of a disk read or a timer", test_analyze__wakeup_of_disk_or_timer },
	{ "wakeup by a signal between calls", test_analyze__wakeup_by_signal },
	{ "data: pipe with partial reads", test_analyze__data_pipe_partial_reads },
	{ "data: an eventfd's count", test_analyze__data_eventfd },
	{ "compute: a busy wait's turns after empty polls", test_analyze__spin_after_empty_poll },
	{ "spin: a lazy-wait loop's ender", test_analyze__spin_loop_ender },
	{ "stage: a socket's connect", test_analyze__stage_connect },
	{ "loss gap", test_analyze__loss_gap },
	{ "data: file ranges", test_analyze__data_file },
	{ "fd reuse after close", test_analyze__fd_reuse_after_close },
	{ "dup across threads", test_analyze__dup_across_threads },
	{ "fd inherited across fork", test_analyze__fd_inherited_across_fork },
	{ "rename of a dir with an open file", test_analyze__rename_dir_with_open_file },
	{ "no interaction, no edge", test_analyze__no_interaction_no_edge },
	{ "short read before a write", test_analyze__short_read_before_write },
	{ "name: generations of a path", test_analyze__name_generations },
	{ "seq: only when asked", test_analyze__seq_only_when_asked },
	{ "a rule family switched off", test_analyze__rule_family_off },
	{ "transitive reduction", test_analyze__transitive_reduction },
	{ "a lock's handover implies no other dep", test_analyze__lock_handover_implies_nothing },
	{ "initial state from names", test_analyze__initial_state_from_names },
	{ "compute floor taken off on-CPU compute", test_analyze__compute_floor },
	{ "compute floor after a switch", test_analyze__compute_floor_after_switch },
	{ "sort: stable, any span", test_analyze__sort_stable },
	{ "enter order and its ties", test_analyze__enter_order },
	{ "json writer: remembered numbers, escapes", test_analyze__jw_memo },
	{ "annotated integers fit in 64 signed bits", test_analyze__args_fit_int64 },
	CU_TEST_INFO_NULL,
};

#define SUITE "analyze"
#include "tests/cu_main.h"

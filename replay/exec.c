// SPDX-License-Identifier: GPL-2.0
/*
 * Runs the plan: one replay thread per traced thread (or one for --order
 * single).  Before an op its deps are awaited, spinning briefly and then
 * sleeping on the dep's state word with a futex; after it, its state word is
 * set and sleepers, if any, are woken.  --natural spins the recorded compute
 * and holds each op until its recorded time.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <sys/uio.h>
#include <unistd.h>

#include "log.h"
#include "replay.h"
#include "rp_exec.h"

#define SPIN_NS 50000	      /* spin this long on a dep before sleeping */
#define SLEEP_MARGIN_NS 250000 /* wake this early from a timed wait, then spin */

static struct exec {
	struct rp_plan *p;
	const struct rp_opts *o;
	uint64_t t0;	    /* replay start, rp__now() */
	uint64_t overhead;  /* replayer's own cost between two calls, ns */
	uint64_t spin_ns;   /* spin on a dep this long before sleeping */
	uint64_t margin_ns; /* wake this early from a timed wait, then spin */
	_Atomic uint64_t progress;
	_Atomic uint32_t pacing; /* threads in a recorded gap: idle, not stalled */
	_Atomic uint32_t running;
	_Atomic uint64_t end; /* when the last thread finished */
	uint64_t *lag;
	_Atomic uint32_t nlag;
} ex;

uint64_t rp__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static void spin_until(uint64_t t)
{
	while (rp__now() < t)
		cpu_relax();
}

/* Waits until the word reaches NEED (RS_STARTED or RS_DONE). */
/* Spinning first: a futex wakeup costs tens of us, more on a busy VM. */
static bool dep__may_spin(uint64_t *spin_end)
{
	if (!ex.spin_ns)
		return false;
	if (!*spin_end)
		*spin_end = rp__now() + ex.spin_ns;
	return rp__now() < *spin_end;
}

/* Waits until the word reaches NEED (RS_STARTED or RS_DONE). */
static void dep__wait(_Atomic uint32_t *w, uint32_t need)
{
	uint64_t spin_end = 0;
	uint32_t v;

	for (unsigned int i = 0;; i++) {
		v = atomic_load_explicit(w, memory_order_acquire);
		if ((v & RS_MASK) >= need)
			return;
		if (i < 64 || ((i & 63) && ex.spin_ns) || dep__may_spin(&spin_end)) {
			cpu_relax();
			continue;
		}
		if (!(v & RS_WAITERS) && !atomic_compare_exchange_weak(w, &v, v | RS_WAITERS))
			continue;
		syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, v | RS_WAITERS, NULL, NULL, 0);
	}
}

static void dep__set(_Atomic uint32_t *w, uint32_t st)
{
	uint32_t old = atomic_exchange_explicit(w, st, memory_order_acq_rel);

	if (old & RS_WAITERS)
		syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static void exec__wait_deps(struct rp_plan *p, const struct rp_op *op)
{
	for (uint32_t k = 0; k < op->ndeps; k++) {
		uint32_t d = op->deps[k];

		dep__wait(&p->ops[d & ~RP_DEP_START].state,
			  d & RP_DEP_START ? RS_STARTED : RS_DONE);
	}
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = t / 1000000000ull, .tv_nsec = t % 1000000000ull };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* Sleeps most of the way and spins the rest: wakeups are late by tens of us. */
static void wait_until(uint64_t t)
{
	if (t > rp__now() + 2 * ex.margin_ns)
		sleep_until(t - ex.margin_ns);
	spin_until(t);
}

/* --natural: the thread computes, then holds the call until its recorded time. */
static void exec__pace(struct rp_thread *t, const struct rp_op *op, uint64_t last_end)
{
	double speed = ex.o->speed;
	uint64_t c = op->compute / speed, start = rp__now(), mid;

	atomic_fetch_add(&ex.pacing, 1);

	if (c > ex.overhead)
		spin_until(last_end + c - ex.overhead);
	mid = rp__now();
	t->compute += mid - start;
	wait_until(ex.t0 + (uint64_t)(op->ts / speed));
	t->hold += rp__now() - mid;
	atomic_fetch_sub(&ex.pacing, 1);
}

/* A timed sleep lasts what it lasted in the trace, from when it was issued,
 * so that wakeup latency does not add up over many sleeps. */
static void exec__sleep(struct rp_thread *t, const struct rp_op *op)
{
	uint64_t start = rp__now();

	atomic_fetch_add(&ex.pacing, 1);
	wait_until(op->t_issue + (uint64_t)(op->dur / ex.o->speed));
	t->sleep += rp__now() - start;
	atomic_fetch_sub(&ex.pacing, 1);
}

/* Actual minus intended issue time; intended is when the original call
 * could first proceed (its ts, or the end of a dep that finished later). */
static void exec__lag(const struct rp_op *op)
{
	uint64_t want = ex.t0 + (uint64_t)(op->ready / ex.o->speed);
	uint32_t i = atomic_fetch_add(&ex.nlag, 1);

	ex.lag[i] = op->t_issue > want ? op->t_issue - want : 0;
}

/*
 * One byte of a page of our own mapping, read and, for a write, written
 * back unchanged: the same page fault and dirty page as the application's
 * access, without changing data.  Through process_vm_readv/writev, so a
 * page a crafted trace names outside what is still mapped is an EFAULT,
 * not a crash.
 */
static bool touch_page(char *addr, bool write)
{
	char v;
	struct iovec local = { &v, 1 }, remote = { addr, 1 };

	if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != 1)
		return false;
	return !write || process_vm_writev(getpid(), &local, 1, &remote, 1, 0) == 1;
}

/* mmap I/O the application did before this call. */
static void exec__touch(struct rp_plan *p, struct rp_thread *t, const struct rp_op *op)
{
	for (uint32_t k = 0; k < op->ntouch; k++) {
		const struct rp_touch *tc = &op->touch[k];
		char *m = tc->slot == RP_NONE ? NULL : p->maps[tc->slot];

		for (uint32_t i = 0; i < tc->npages; i++) {
			if (m && touch_page(m + tc->off + (uint64_t)i * 4096, tc->write))
				t->pages_touched++;
			else
				t->pages_unmapped++;
		}
	}
}

static void exec__one(struct rp_plan *p, struct rp_thread *t, struct rp_op *op, uint64_t *last_end)
{
	uint64_t w0, t1;
	bool natural = ex.o->timing == RT_NATURAL, emul;

	if (natural)
		exec__pace(t, op, *last_end);
	w0 = rp__now();
	if (ex.o->order != RO_SINGLE)
		exec__wait_deps(p, op);
	if (op->ntouch)
		exec__touch(p, t, op);
	op->t_issue = rp__now();
	t->wait += op->t_issue - w0;
	dep__set(&op->state, RS_STARTED);
	if (op->kind == RK_SLEEP && natural)
		exec__sleep(t, op);
	op->got = op__issue(p, t, op, &emul);
	t1 = rp__now();
	dep__set(&op->state, RS_DONE);
	op->t_end = t1;
	t->busy += t1 - op->t_issue;
	exec__account(p, t, op, emul);
	if (natural && op__is_io(op->kind) && op->got != RP_SKIPPED)
		exec__lag(op);
	*last_end = t1;
	atomic_fetch_add_explicit(&ex.progress, 1, memory_order_relaxed);
}

/* The last thread out wakes the watcher and fixes the replay's end. */
static void exec__finish(uint64_t end)
{
	uint64_t cur = atomic_load(&ex.end);

	while (end > cur && !atomic_compare_exchange_weak(&ex.end, &cur, end))
		;
	if (atomic_fetch_sub(&ex.running, 1) == 1)
		syscall(SYS_futex, &ex.running, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static void *exec__thread(void *arg)
{
	struct rp_thread *t = arg;
	struct rp_plan *p = ex.p;
	uint64_t last_end = ex.t0;

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

	for (t->cur = 0; t->cur < t->nops; t->cur++)
		exec__one(p, t, &p->ops[t->ops[t->cur]], &last_end);
	exec__finish(last_end);
	return NULL;
}

/* --order single: every op, in trace order, on this one thread. */
static void *exec__single(void *arg)
{
	struct rp_plan *p = arg;
	uint64_t last_end = ex.t0;

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

	for (uint32_t i = 0; i < p->nops; i++) {
		struct rp_thread *t = &p->th[p->ops[i].tidx];

		p->th[0].cur = i;
		exec__one(p, t, &p->ops[i], &last_end);
	}
	exec__finish(last_end);
	return NULL;
}

/* Replayer cost between two calls (two clock reads and the bookkeeping). */
static uint64_t exec__calibrate(void)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 1000; i++) {
		uint64_t a = rp__now(), b = rp__now();

		if (b - a < best)
			best = b - a;
	}
	return best * 3;
}

static int exec__buffers(struct rp_plan *p)
{
	for (uint32_t i = 0; i < p->nth; i++) {
		struct rp_thread *t = &p->th[i];

		t->skipped = calloc(p->ncalls + 1, sizeof(*t->skipped));
		if (!t->skipped || posix_memalign(&t->buf, 4096, t->bufsz))
			return -ENOMEM;
		/* touch now, so page faults are not charged to the first calls */
		memset(t->buf, 'r', t->bufsz);
	}
	return 0;
}

static int exec__start(struct rp_plan *p, pthread_t *th, uint32_t *n)
{
	pthread_attr_t attr;
	int err = 0;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 << 10);
	*n = 0;
	if (ex.o->order == RO_SINGLE) {
		atomic_store(&ex.running, 1);
		err = -pthread_create(&th[(*n)++], &attr, exec__single, p);
	} else {
		atomic_store(&ex.running, p->nth);
		for (uint32_t i = 0; i < p->nth && !err; i++) {
			err = -pthread_create(&th[i], &attr, exec__thread, &p->th[i]);
			*n += !err;
		}
	}
	pthread_attr_destroy(&attr);
	if (err)
		err("cannot start replay threads: %s", strerror(-err));
	return err;
}

int exec__run(struct rp_plan *p, const struct rp_opts *o, struct rp_run *r)
{
	pthread_t *th = calloc(p->nth + 1, sizeof(*th));
	uint32_t n;
	int err;

	memset(&ex, 0, sizeof(ex));
	ex.p = p;
	ex.o = o;
	ex.lag = calloc(p->nops + 1, sizeof(*ex.lag));
	if (!th || !ex.lag || exec__buffers(p)) {
		free(th);
		return -ENOMEM;
	}
	ex.overhead = exec__calibrate();
	ex.spin_ns = SPIN_NS;
	ex.margin_ns = SLEEP_MARGIN_NS;
	ex.t0 = rp__now();
	err = exec__start(p, th, &n);
	if (err)
		return -EAGAIN; /* the threads started may wait for ones that were not */
	r->stalled = !exec__watch(p, o, &ex.progress, &ex.running, &ex.pacing);
	r->wall = (r->stalled ? rp__now() : atomic_load(&ex.end)) - ex.t0;
	if (r->stalled)
		return -EDEADLK; /* threads are stuck in calls: leave them */
	for (uint32_t i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	free(th);
	r->lag = ex.lag;
	r->nlag = atomic_load(&ex.nlag);
	/* ops' times become relative to the replay start for the report */
	for (uint32_t i = 0; i < p->nops; i++) {
		p->ops[i].t_issue = p->ops[i].t_issue ? p->ops[i].t_issue - ex.t0 : 0;
		p->ops[i].t_end = p->ops[i].t_end ? p->ops[i].t_end - ex.t0 : 0;
	}
	return 0;
}

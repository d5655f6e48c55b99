// SPDX-License-Identifier: GPL-2.0
/*
 * Runs the plan: one replay thread per traced thread (or one for --order
 * single).  Before an op its deps are awaited, spinning briefly and then
 * sleeping on the dep's state word with a futex; after it, its state word is
 * set and sleepers, if any, are woken.  --natural spins the recorded compute
 * from the end of the thread's previous call, and keeps the recorded duration
 * of timed sleeps and of waits the trace cannot explain; everything else runs
 * at the speed of this machine (docs/replay.md, "Timing").
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "lib/log.h"
#include "replay/replay.h"
#include "replay/run.h"

#define SPIN_NS	      20000   /* spin on a dep this long before sleeping, CPUs to spare */
#define SPIN_MIN      64      /* pause iterations before a futex in any case */
#define OVERSLEEP_NS  60000   /* first guess at how late a timed sleep wakes */
#define OVERSLEEP_MAX 500000  /* never spin longer than this after a sleep */
#define SKEW_MIN      20000   /* waits make up at least this much lateness */
#define OFFCPU_GAP_NS 5000    /* a gap in a spin's clock reads this long: off the CPU */
#define OVH_MAX	      5000    /* cap on the measured per-call overhead */
#define PACING_NS     1000000 /* report a compute or hold this long to the stall watch */

static struct exec {
	struct rp_plan *p;
	const struct rp_opts *o;
	uint64_t t0;	  /* replay start, exec_clock() */
	uint64_t ns0;	  /* replay start, exec__now() */
	double tick_ns;	  /* ns per exec_clock() tick */
	bool tsc;	  /* exec_clock() reads the TSC */
	uint64_t ovh0;	  /* replayer's cost from a compute spin to the issue, first guess */
	uint64_t spin_ns; /* spin on a dep this long before sleeping */
	double speed;
	bool natural;
	_Alignas(64) _Atomic uint32_t pacing; /* threads in a long compute or hold */
	_Atomic uint32_t running;
	_Atomic uint64_t end; /* when the last thread finished */
} ex;

/*
 * A replay thread's clock, on its own stack.  In natural timing a call's
 * intended issue time is the later of the end of the thread's previous call
 * plus the recorded compute, and the end of its last dep: when it could
 * first proceed in this replay.  Lag is the actual issue minus that.
 */
struct rp_clock {
	uint64_t end;	    /* end of the thread's previous call, exec_clock() */
	uint64_t ovh;	    /* measured cost from the end of a compute spin to the issue */
	uint64_t oversleep; /* how late timed sleeps wake: wake this early, then spin */
	int64_t skew;	    /* how late the thread's timed waits have ended, summed */
};

uint64_t exec__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * The clock of the ops' times.  --afap has nothing to pace and reads it once
 * a call: there it is the TSC, where the kernel keeps its own time with the
 * TSC, at under half the cost of clock_gettime (a tenth of the per-call
 * overhead on cached preads); exec__run turns ticks into ns against
 * exec__now() read at the start and the end of the replay.
 */
static inline uint64_t exec_clock(void)
{
#if defined(__x86_64__)
	if (ex.tsc)
		return __rdtsc();
#endif
	return exec__now();
}

/* A duration or a time since ex.t0, in exec_clock() ticks, in ns. */
static uint64_t exec_ns(uint64_t ticks)
{
	return ex.tsc ? (uint64_t)(ticks * ex.tick_ns + 0.5) : ticks;
}

/* The TSC runs at one rate on all CPUs where the kernel keeps time with it. */
static bool exec_tsc_ok(void)
{
#if defined(__x86_64__)
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
	char s[16] = "";
	bool ok;

	if (!f)
		return false;
	ok = fgets(s, sizeof(s), f) && !strcmp(s, "tsc\n");
	fclose(f);
	return ok;
#else
	return false;
#endif
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* Spins until T; returns the last clock read. */
static uint64_t spin_until(uint64_t t)
{
	uint64_t now;

	while ((now = exec__now()) < t)
		cpu_relax();
	return now;
}

/*
 * Spins until T plus the time the thread spends off the CPU while it spins;
 * returns the last clock read and adds that time to *OFF.  The
 * recorded compute is on-CPU time: when the application's thread was
 * preempted, its compute ended that much later, and did as much work.  A
 * replay that spun to a wall-clock deadline would do less work on a machine
 * with more runnable threads than CPUs and leave the CPUs to the others
 * earlier than the application did.  Two clock reads of the loop are well
 * under a µs apart on the CPU, so a gap of OFFCPU_GAP_NS is a preemption (or
 * a long interrupt), and the deadline moves by it.
 */
static uint64_t spin_oncpu(uint64_t t, uint64_t *off)
{
	uint64_t prev = exec__now(), now;

	while ((now = exec__now()) < t) {
		if (now - prev > OFFCPU_GAP_NS) {
			t += now - prev;
			*off += now - prev;
		}
		prev = now;
		cpu_relax();
	}
	return now;
}

/* Spinning first: a futex wakeup costs tens of us, more on a busy VM.  But a
 * spinning waiter takes a CPU from the thread it waits for when there are
 * more replay threads than CPUs: then spin only SPIN_MIN pauses. */
static bool dep_may_spin(uint64_t *spin_end)
{
	if (!ex.spin_ns)
		return false;
	if (!*spin_end)
		*spin_end = exec__now() + ex.spin_ns;
	return exec__now() < *spin_end;
}

/* Waits until the word reaches NEED (RS_STARTED or RS_DONE). */
static void dep_wait(_Atomic uint32_t *w, uint32_t need)
{
	uint64_t spin_end = 0;
	uint32_t v;

	for (unsigned int i = 0;; i++) {
		v = atomic_load_explicit(w, memory_order_acquire);
		if ((v & RS_MASK) >= need)
			return;
		if (i < SPIN_MIN || ((i & 63) && ex.spin_ns) || dep_may_spin(&spin_end)) {
			cpu_relax();
			continue;
		}
		if (!(v & RS_WAITERS) && !atomic_compare_exchange_weak(w, &v, v | RS_WAITERS))
			continue;
		syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, v | RS_WAITERS, NULL, NULL, 0);
	}
}

/* dep_wait, until UNTIL on the replay clock at the latest: whether the word
 * reached NEED. */
static bool dep_wait_until(_Atomic uint32_t *w, uint32_t need, uint64_t until)
{
	struct timespec ts = { .tv_sec = until / 1000000000ull, .tv_nsec = until % 1000000000ull };
	uint32_t v;

	for (;;) {
		v = atomic_load_explicit(w, memory_order_acquire);
		if ((v & RS_MASK) >= need)
			return true;
		if (exec__now() >= until)
			return false;
		if (!(v & RS_WAITERS) && !atomic_compare_exchange_weak(w, &v, v | RS_WAITERS))
			continue;
		/* an absolute CLOCK_MONOTONIC timeout, as exec__now() */
		syscall(SYS_futex, w, FUTEX_WAIT_BITSET_PRIVATE, v | RS_WAITERS, &ts, NULL,
			FUTEX_BITSET_MATCH_ANY);
	}
}

/* dep_wait_until (UNTIL 0: dep_wait) for DEP's word to reach NEED; for
 * another host's op, the courier is told that a thread waits for it, and
 * looks for its message at once, or, for a LAZY wait, every millisecond. */
static bool dep_wait_op(const struct rp_op *dep, uint32_t need, uint64_t until, bool lazy)
{
	_Atomic uint32_t *w = (_Atomic uint32_t *)&dep->state;
	bool want = dep->remote && (atomic_load_explicit(w, memory_order_acquire) & RS_MASK) < need;
	bool ok = true;

	if (want)
		mhost__want(true, lazy);
	if (until)
		ok = dep_wait_until(w, need, until);
	else
		dep_wait(w, need);
	if (want)
		mhost__want(false, lazy);
	return ok;
}

static void dep_set(_Atomic uint32_t *w, uint32_t st)
{
	uint32_t old = atomic_exchange_explicit(w, st, memory_order_acq_rel);

	if (old & RS_WAITERS)
		syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* Waits for the op's deps; returns when the last of them ended (or, for a
 * start-only dep, started), on the replay clock.  The arrivals a broadcast
 * wake counts (rdv_left) are not waited for here. */
static uint64_t exec_wait_deps(struct rp_plan *p, struct rp_thread *th, const struct rp_op *op)
{
	uint32_t self = op - p->ops;
	uint64_t last = 0;

	/* a lock's wait whose recorded holder has not reached the lock yet:
	 * the waiter takes it first (plan_lock_gates) */
	if (op->lock_gate != RP_NONE &&
	    (atomic_load_explicit(&p->ops[op->lock_gate].state, memory_order_acquire) & RS_MASK) <
		    RS_STARTED) {
		th->lock_first++;
		return 0;
	}
	for (uint32_t k = 0; k < op->ndeps; k++) {
		uint32_t d = op->deps[k];
		const struct rp_op *dep = &p->ops[d & ~RP_DEP_START];
		uint64_t t;

		if (d & RP_DEP_START && dep->rdv_wake == self)
			continue;
		dep_wait_op(dep, d & RP_DEP_START ? RS_STARTED : RS_DONE, 0, op->xbarrier);
		/* written before the state word was released */
		if (!(d & RP_DEP_START))
			t = dep->t_end;
		else
			t = dep->arrive_waited ? dep->t_arrive : dep->t_issue;
		if (t > last)
			last = t;
	}
	return last;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = t / 1000000000ull, .tv_nsec = t % 1000000000ull };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/*
 * Sleeps to just before T and spins the rest; learns how late sleeps wake,
 * so the spin stays short and the call after it is not late.  When the
 * replay has more threads than CPUs (no spinning on deps either), a spin
 * takes the CPU from a thread that computes, and the spins of threads
 * holding at once add up to more CPU than the application used while it
 * slept in the same calls.  Then the wait only sleeps, to the learned margin
 * before T, which it wakes after by that much on average.  With less than
 * the margin left it can only return early, or sleep and wake a margin
 * late; and a timer's margin is tens of µs where a server's waits for its
 * clients are as short.  So each wait ends where it makes the thread's
 * waits, summed, end on time (skew): one that returns early by R is made
 * up for by a later one that sleeps R longer, and the thread keeps the
 * recorded pace instead of drifting a margin a wait.  The wait began at
 * FROM (a hold's feed of its client comes first): only what the wait
 * itself added after max(FROM, T) counts, not lateness it inherited.
 */
static uint64_t exec_wait_until(struct rp_clock *c, uint64_t t, uint64_t from)
{
	uint64_t now = exec__now(), goal = t, aim, late;
	int64_t cap = 2 * (int64_t)c->oversleep + SKEW_MIN;
	bool spin = ex.spin_ns, long_wait;

	if (!spin && c->skew >= 0)
		goal = t > (uint64_t)c->skew ? t - (uint64_t)c->skew : 0;
	else if (!spin)
		goal = t + (uint64_t)-c->skew;
	long_wait = goal > now + PACING_NS;
	if (long_wait)
		atomic_fetch_add_explicit(&ex.pacing, 1, memory_order_relaxed);
	/* without spinning, waking a margin late beats returning at once
	 * when it leaves the sum nearer on time: margin < |skew - (t - now)| */
	if (goal > now &&
	    (goal > now + c->oversleep + 10000 ||
	     (!spin && (int64_t)c->oversleep < llabs(c->skew - ((int64_t)t - (int64_t)now))))) {
		aim = goal > now + c->oversleep ? goal - c->oversleep : goal;
		sleep_until(aim);
		now = exec__now();
		late = now > aim ? now - aim : 0;
		if (late > OVERSLEEP_MAX)
			late = OVERSLEEP_MAX;
		c->oversleep = (c->oversleep * 7 + late) / 8;
	}
	if (spin)
		now = spin_until(goal);
	if (long_wait)
		atomic_fetch_sub_explicit(&ex.pacing, 1, memory_order_relaxed);
	if (!spin) {
		int64_t s = c->skew + (int64_t)now - (int64_t)(from > t ? from : t);

		c->skew = s > cap ? cap : s < -cap ? -cap : s;
	}
	return now;
}

/* Natural timing: the recorded compute, from the end of the thread's previous
 * call, less the replayer's own cost to get from here to the issue; on-CPU
 * time, as recorded (spin_oncpu).  Then the time the application's thread
 * was kept off the CPU by tasks outside the trace (outside_ns: a load
 * generator, another service), less what the spin was kept off by: the
 * replay does not run those tasks, and the thread would otherwise go on
 * sooner than it did.  Returns when the compute ends: the call's intended
 * issue time, if no dep is later. */
static uint64_t exec_compute(struct rp_thread *t, const struct rp_op *op, struct rp_clock *c,
			     uint64_t *spun)
{
	uint64_t want = c->end + (uint64_t)(op->compute / ex.speed), now = 0, off = 0, left;

	*spun = 0;
	if (want > c->end + c->ovh) {
		if (want - c->ovh > c->end + PACING_NS) {
			atomic_fetch_add_explicit(&ex.pacing, 1, memory_order_relaxed);
			now = spin_oncpu(want - c->ovh, &off);
			atomic_fetch_sub_explicit(&ex.pacing, 1, memory_order_relaxed);
		} else {
			now = spin_oncpu(want - c->ovh, &off);
		}
		t->compute += now - c->end - off;
		t->preempted += off;
		*spun = now;
		want += off;
	}
	if (!op->outside)
		return want;
	left = (uint64_t)(op->outside / ex.speed);
	if (left <= off)
		return want;
	left -= off;
	t->outside += left;
	*spun = exec_wait_until(c, want + left, want);
	return want + left;
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
static void exec_touch(struct rp_plan *p, struct rp_thread *t, const struct rp_op *op)
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

/* A held wait that timed out in the trace: until UNTIL, or until the deps
 * of CUT, the thread's next wait, are done (plan_cuts). */
static uint64_t exec_hold_cut(struct rp_plan *p, const struct rp_op *cut, uint64_t until)
{
	atomic_fetch_add_explicit(&ex.pacing, 1, memory_order_relaxed);
	for (uint32_t k = 0; k < cut->ndeps; k++) {
		uint32_t d = cut->deps[k];

		if (!dep_wait_op(&p->ops[d & ~RP_DEP_START],
				 d & RP_DEP_START ? RS_STARTED : RS_DONE, until, false))
			break;
	}
	atomic_fetch_sub_explicit(&ex.pacing, 1, memory_order_relaxed);
	return exec__now();
}

/* The call's own time, in natural timing: a timed sleep, and a wait the
 * trace cannot explain (plan_holds), last at least their recorded duration
 * from the intended issue. */
static void exec_hold(struct rp_plan *p, struct rp_thread *t, const struct rp_op *op,
		      struct rp_clock *c, uint64_t want)
{
	uint64_t start, until = want + (uint64_t)(op->dur / ex.speed);

	if (op->kind != RK_SLEEP && !op->hold)
		return;
	start = exec__now();
	if (until > start) {
		uint64_t now;

		if (op->prefeed != RP_NONE)
			peer__prefeed(p, t, op);
		if (op->spin_to != RP_NONE)
			now = exec_hold_cut(p, &p->ops[op->spin_to], until);
		else if (op->kind == RK_WAIT && op->a[3] >= 0)
			now = exec_hold_cut(p, &p->ops[op->a[3]], until);
		else
			now = exec_wait_until(c, until, start);

		if (op->kind == RK_SLEEP)
			t->sleep += now - start;
		else
			t->hold += now - start;
	}
}

/* A barrier's waiter arrives at time NOW: if it is the last, it releases
 * the wake X on the waker's behalf (plan_rendezvous_counts). */
static void rdv_arrive(struct rp_op *x, uint64_t now)
{
	if (atomic_fetch_sub_explicit(&x->rdv_left, 1, memory_order_acq_rel) != 1)
		return;
	x->t_issue = now;
	x->t_end = now;
	dep_set(&x->state, RS_DONE);
}

/* The thread of a broadcast wake that a later arrival released: it waits
 * for that, as the application's early arriver slept in the barrier, and
 * makes no call. */
static void exec_released(struct rp_plan *p, struct rp_thread *t, struct rp_op *op,
			  struct rp_clock *c, uint64_t spun)
{
	uint64_t now;

	dep_wait(&op->state, RS_DONE);
	now = exec_clock();
	t->wait += now - (spun ? spun : c->end);
	op->got = op->ret;
	watch__account(p, t, op, true);
	c->end = now;
}

static void exec_lag(struct rp_thread *t, const struct rp_op *op, uint64_t want)
{
	t->lag[t->nlag++] = op->t_issue > want ? op->t_issue - want : 0;
}

/* Inlined in the loops: after a syscall the return stack predicts none of
 * the returns the call made, and each level between the loop and the
 * syscall costs a mispredicted return. */
static inline __attribute__((always_inline)) void exec__one(struct rp_plan *p, struct rp_thread *t,
							    struct rp_op *op, struct rp_clock *c)
{
	uint64_t want = 0, spun = 0, t1;
	bool emul, waited = op->ntouch;

	if (op->ntouch)
		exec_touch(p, t, op);
	if (ex.natural)
		want = exec_compute(t, op, c, &spun);
	/* a barrier's wait: its wake may go now (plan_rendezvous) */
	if (op->arrive_waited) {
		op->t_arrive = exec_clock();
		dep_set(&op->state, RS_STARTED);
		if (op->rdv_wake != RP_NONE)
			rdv_arrive(&p->ops[op->rdv_wake], op->t_arrive);
	}
	if (op->ndeps && ex.o->order != RO_SINGLE) {
		uint64_t d = exec_wait_deps(p, t, op);

		if (d > want)
			want = d;
		waited = true;
		/* multi-host: a barrier's answer comes after the last arrival */
		if (ex.natural && op->xbarrier)
			want = exec_wait_until(c, want + (uint64_t)(op->after / ex.speed),
					       exec__now());
	}
	/* a broadcast wake that another thread reached the barrier after */
	if (op->rdv_n && atomic_fetch_sub_explicit(&op->rdv_left, 1, memory_order_acq_rel) != 1) {
		exec_released(p, t, op, c, spun);
		return;
	}
	/* --afap: a call that waited for nothing is issued at the end of the
	 * thread's previous one, give or take the bookkeeping: one clock read
	 * per call instead of two */
	op->t_issue = waited || ex.natural ? exec_clock() : c->end;
	t->wait += op->t_issue - (spun ? spun : c->end);
	/* after a sleep for outside_ns, the wake's lateness is no bookkeeping */
	if (spun && !op->ndeps && !op->outside) {
		uint64_t d = op->t_issue - spun;

		c->ovh = (c->ovh * 15 + (d < OVH_MAX ? d : OVH_MAX)) / 16;
	}
	if (op->start_waited) {
		dep_set(&op->state, RS_STARTED);
		if (op->xsend & RP_XSEND_START)
			mhost__sent(op - p->ops, RP_XSEND_START);
	}
	atomic_store_explicit(&t->incall, 1, memory_order_relaxed);
	op->got = op__issue(p, t, op, &emul);
	if (ex.natural)
		exec_hold(p, t, op, c, want);
	t1 = exec_clock();
	op->t_end = t1;
	if (op->waited) {
		dep_set(&op->state, RS_DONE);
		if (op->xsend & RP_XSEND_DONE)
			mhost__sent(op - p->ops, RP_XSEND_DONE);
	} else
		atomic_store_explicit(&op->state, RS_DONE, memory_order_relaxed);
	atomic_store_explicit(&t->incall, 0, memory_order_relaxed);
	t->busy += t1 - op->t_issue;
	watch__account(p, t, op, emul);
	if (ex.natural && op__is_io(op->kind) && op->got != RP_SKIPPED)
		exec_lag(t, op, want);
	c->end = t1;
}

/* Whether the deps of X, the call after a lazy-wait loop, are done: the
 * loop is over (plan_spins). */
static bool spin_over(const struct rp_plan *p, const struct rp_op *x)
{
	for (uint32_t k = 0; k < x->ndeps; k++) {
		uint32_t d = x->deps[k];
		uint32_t need = d & RP_DEP_START ? RS_STARTED : RS_DONE;

		if ((atomic_load_explicit(&p->ops[d & ~RP_DEP_START].state, memory_order_acquire) &
		     RS_MASK) < need)
			return false;
	}
	return true;
}

/* A call of a loop that is over: not made, as the application made no more
 * checks once its flag was set; done, for whoever waits for it. */
static void exec_spin_skip(struct rp_op *op, struct rp_clock *c)
{
	op->t_issue = op->t_end = c->end;
	op->got = op->ret;
	if (op->waited)
		dep_set(&op->state, RS_DONE);
	else
		atomic_store_explicit(&op->state, RS_DONE, memory_order_relaxed);
}

/*
 * A process whose calls are all made: the descriptors it still holds close,
 * as its exit closed them.  Kept open, a fork's copies would pile up: a
 * PostgreSQL backend forked for each connection inherits some fifteen, and
 * a thousand of them took the replayer past a limit of 20000.  Not at its
 * exit call: another of its threads may still be making calls, in this
 * replay's order.
 */
static void exec_proc_done(struct rp_plan *p, uint32_t pidx)
{
	struct rp_proc *pr = &p->pr[pidx];

	for (uint32_t k = 0; k < pr->nslot; k++)
		if (atomic_load_explicit(&pr->fd[k], memory_order_relaxed) >= 0)
			fd__set(p, pidx, k, RP_FD_UNSET, 0);
}

/* Each process's threads to wait for, or in --order single its last op. */
static void exec_procs(struct rp_plan *p, bool single)
{
	for (uint32_t i = 0; i < p->npr; i++) {
		atomic_store(&p->pr[i].live, 0);
		p->pr[i].last_op = RP_NONE;
	}
	for (uint32_t i = 0; i < p->nth; i++)
		if (!p->th[i].remote)
			atomic_fetch_add(&p->pr[p->th[i].pidx].live, 1);
	for (uint32_t i = 0; single && i < p->nops; i++)
		if (!p->th[p->ops[i].tidx].remote)
			p->pr[p->ops[i].pidx].last_op = i;
}

/* The last thread out wakes the watcher and fixes the replay's end. */
static void exec_finish(uint64_t end)
{
	uint64_t cur = atomic_load(&ex.end);

	while (end > cur && !atomic_compare_exchange_weak(&ex.end, &cur, end))
		;
	if (atomic_fetch_sub(&ex.running, 1) == 1)
		syscall(SYS_futex, &ex.running, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* CPU time of the calling replay thread: what the replay cost, whoever else
 * ran on the machine meanwhile. */
static uint64_t exec_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void exec_clock_init(struct rp_clock *c)
{
	c->end = ex.t0;
	c->ovh = ex.ovh0;
	c->oversleep = OVERSLEEP_NS;
	c->skew = 0;
}

/*
 * A thread's ops are every Nth op of the trace, at no fixed stride: the
 * hardware prefetcher misses them, and each call waited on three or four
 * cache misses for its op.  Fetch the next op's lines during this call.
 */
static inline void op_prefetch(const struct rp_op *op)
{
	for (size_t off = 0; off < offsetof(struct rp_op, state); off += 64)
		__builtin_prefetch((const char *)op + off, 0);
	__builtin_prefetch(&op->state, 1);
}

static void *exec_thread(void *arg)
{
	struct rp_thread *t = arg;
	struct rp_plan *p = ex.p;
	struct rp_clock c;

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	exec_clock_init(&c);
	if (!ex.natural)
		c.end = exec_clock(); /* --afap: the first call's issue time */
	/* a thread's compute before its first call counts from its creation */
	if (t->gate != RP_NONE && t->nops) {
		const struct rp_op *g = &p->ops[t->gate];

		dep_wait((_Atomic uint32_t *)&g->state, RS_DONE);
		c.end = g->t_end > c.end ? g->t_end : c.end;
	}
	if (ex.natural && t->start_at && t->nops) {
		c.end = exec_wait_until(&c, ex.t0 + (uint64_t)(t->start_at / ex.speed), ex.t0);
		t->sleep += c.end - ex.t0;
	}
	for (uint32_t i = 0; i < t->nops; i++) {
		struct rp_op *op = &p->ops[t->ops[i]];

		atomic_store_explicit(&t->cur, i, memory_order_relaxed);
		if (i + 1 < t->nops)
			op_prefetch(&p->ops[t->ops[i + 1]]);
		if (op->spin_to != RP_NONE && spin_over(p, &p->ops[op->spin_to]))
			exec_spin_skip(op, &c);
		else
			exec__one(p, t, op, &c);
	}
	atomic_store_explicit(&t->cur, t->nops, memory_order_relaxed);
	t->cpu = exec_cpu();
	if (atomic_fetch_sub(&p->pr[t->pidx].live, 1) == 1)
		exec_proc_done(p, t->pidx);
	exec_finish(c.end);
	return NULL;
}

void exec__remote(struct rp_plan *p, uint32_t idx, unsigned int what)
{
	struct rp_op *op = &p->ops[idx];
	uint64_t now = exec_clock();

	if (what == RP_XSEND_START) {
		op->t_issue = now;
		dep_set(&op->state, RS_STARTED);
		return;
	}
	if (!op->t_issue)
		op->t_issue = now;
	op->t_end = now;
	dep_set(&op->state, RS_DONE);
}

/* --order single: every op, in trace order, on this one thread. */
static void *exec_single(void *arg)
{
	struct rp_plan *p = arg;
	struct rp_clock c;

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	exec_clock_init(&c);
	for (uint32_t i = 0; i < p->nops; i++) {
		struct rp_thread *t = &p->th[p->ops[i].tidx];

		if (t->remote)
			continue; /* multi-host: one thread per host */
		atomic_store_explicit(&p->th[0].cur, i, memory_order_relaxed);
		exec__one(p, t, &p->ops[i], &c);
		if (p->pr[p->ops[i].pidx].last_op == i)
			exec_proc_done(p, p->ops[i].pidx);
	}
	atomic_store_explicit(&p->th[0].cur, p->nops, memory_order_relaxed);
	p->th[0].cpu = exec_cpu();
	exec_finish(c.end);
	return NULL;
}

/* First guess at the replayer's cost from a compute spin to the issue (a
 * clock read and the dep check); each thread then measures its own. */
static uint64_t exec_calibrate(void)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 1000; i++) {
		uint64_t a = exec__now(), b = exec__now();

		if (b - a < best)
			best = b - a;
	}
	return best * 2;
}

/* Spin on deps only when every replay thread can have a CPU of its own. */
static uint64_t exec_spin_budget(const struct rp_plan *p, const struct rp_opts *o)
{
	cpu_set_t set;
	uint32_t ncpu = 1, nrun = o->order == RO_SINGLE ? 1 : p->nth;

	if (!sched_getaffinity(0, sizeof(set), &set))
		ncpu = CPU_COUNT(&set);
	return nrun < ncpu ? SPIN_NS : 0;
}

/* Per thread: I/O buffer, skipped counts, and its slice of LAG. */
static int exec_buffers(struct rp_plan *p, uint64_t *lag)
{
	for (uint32_t i = 0; i < p->nth; i++) {
		struct rp_thread *t = &p->th[i];

		t->lag = lag;
		t->nlag = 0;
		lag += t->nops;
		t->skipped = calloc(p->ncalls + 1, sizeof(*t->skipped));
		if (!t->skipped)
			return -ENOMEM;
		if (t->remote)
			continue; /* another rank's: no call of it is made here */
		/* touched now, so page faults are not charged to the first calls */
		t->buf = iobuf__alloc(t->bufsz);
		if (!t->buf)
			return -ENOMEM;
	}
	return 0;
}

/* ns per tick, from both clocks read at the start and now, at the end: over
 * the whole replay, a few ns of error between the reads do not matter. */
static void exec_tick_rate(void)
{
	uint64_t ns = exec__now(), ticks = exec_clock();

	ex.tick_ns = ticks > ex.t0 ? (double)(ns - ex.ns0) / (ticks - ex.t0) : 1;
}

/* Ops' times relative to the replay start, threads' times, all in ns. */
static void exec_times_ns(struct rp_plan *p)
{
	for (uint32_t i = 0; i < p->nops; i++) {
		struct rp_op *op = &p->ops[i];

		op->t_issue = op->t_issue ? exec_ns(op->t_issue - ex.t0) : 0;
		op->t_end = op->t_end ? exec_ns(op->t_end - ex.t0) : 0;
		op->t_arrive = op->t_arrive ? exec_ns(op->t_arrive - ex.t0) : 0;
	}
	for (uint32_t i = 0; i < p->nth; i++) {
		p->th[i].busy = exec_ns(p->th[i].busy);
		p->th[i].wait = exec_ns(p->th[i].wait);
	}
}

/* The threads' lag slices, packed to the front of LAG. */
static uint32_t exec_pack_lag(struct rp_plan *p, uint64_t *lag)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->nth; i++) {
		memmove(lag + n, p->th[i].lag, p->th[i].nlag * sizeof(*lag));
		n += p->th[i].nlag;
		p->th[i].lag = NULL;
	}
	return n;
}

static int exec_start(struct rp_plan *p, pthread_t *th, uint32_t *n)
{
	pthread_attr_t attr;
	int err = 0;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 << 10);
	*n = 0;
	if (ex.o->order == RO_SINGLE) {
		atomic_store(&ex.running, 1);
		err = -pthread_create(&th[(*n)++], &attr, exec_single, p);
	} else {
		atomic_store(&ex.running, p->nth);
		for (uint32_t i = 0; i < p->nth && !err; i++) {
			err = -pthread_create(&th[i], &attr, exec_thread, &p->th[i]);
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
	uint64_t *lag = calloc(p->nops + 1, sizeof(*lag));
	uint32_t n;
	int err;

	memset(&ex, 0, sizeof(ex));
	ex.p = p;
	ex.o = o;
	ex.natural = o->timing == RT_NATURAL;
	ex.speed = o->speed > 0 ? o->speed : 1;
	if (!th || !lag || exec_buffers(p, lag)) {
		free(th);
		free(lag);
		return -ENOMEM;
	}
	ex.ovh0 = exec_calibrate();
	ex.spin_ns = exec_spin_budget(p, o);
	ex.tsc = !ex.natural && exec_tsc_ok();
	exec_procs(p, o->order == RO_SINGLE);
	/* multi-host: every rank starts together, and their messages arrive
	 * once the ops have a clock */
	if (mhost__barrier(o)) {
		free(th);
		free(lag);
		return -ETIMEDOUT;
	}
	ex.ns0 = exec__now();
	ex.t0 = exec_clock();
	err = mhost__go(p);
	if (!err)
		err = exec_start(p, th, &n);
	if (err)
		return -EAGAIN; /* the threads started may wait for ones that were not */
	r->stalled = !watch__run(p, o, &ex.running, &ex.pacing);
	if (r->stalled) {
		r->wall = exec__now() - ex.ns0;
		return -EDEADLK; /* threads are stuck in calls: leave them */
	}
	exec_tick_rate();
	r->wall = exec_ns(atomic_load(&ex.end) - ex.t0);
	for (uint32_t i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	free(th);
	r->lag = lag;
	r->nlag = exec_pack_lag(p, lag);
	exec_times_ns(p);
	return 0;
}

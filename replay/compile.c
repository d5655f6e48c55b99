// SPDX-License-Identifier: GPL-2.0
/*
 * Compiles the loaded ops into what the replay threads run: per-thread op
 * lists, deps as op indexes for the chosen order, thread start gates, mmap
 * slots, buffer sizes and the recorded time each op could first proceed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "lib/spin.h"
#include "replay/graph.h"
#include "replay/replay.h"

static uint32_t plan_index_of(const struct rp_plan *p, uint32_t id)
{
	uint32_t lo = 0, hi = p->nops;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (p->ops[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nops && p->ops[lo].id == id ? lo : RP_NONE;
}

/* Recorded dep ids -> op indexes; deps on events not in the file are dropped. */
static uint32_t plan_resolve_deps(struct rp_plan *p)
{
	uint32_t dropped = 0;

	for (uint32_t i = 0; i < p->nops; i++) {
		struct rp_op *op = &p->ops[i];
		uint32_t n = 0;

		for (uint32_t k = 0; k < op->ndeps; k++) {
			uint32_t j = plan_index_of(p, op->deps[k]);

			if (j == RP_NONE || j == i || p->ops[j].tidx == op->tidx)
				dropped++;
			else
				op->deps[n++] = j;
		}
		op->ndeps = n;
	}
	return dropped;
}

static int plan_thread_lists(struct rp_plan *p)
{
	for (uint32_t i = 0; i < p->nops; i++) {
		struct rp_thread *t = &p->th[p->ops[i].tidx];

		if (t->nops == t->cap) {
			uint32_t cap = t->cap ? t->cap * 2 : 64;
			uint32_t *v = realloc(t->ops, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			t->ops = v;
			t->cap = cap;
		}
		t->ops[t->nops++] = i;
	}
	return 0;
}

static int plan_add_dep(struct rp_op *op, uint32_t dep)
{
	uint32_t *v;

	for (uint32_t k = 0; k < op->ndeps; k++)
		if (op->deps[k] == dep)
			return 0;
	v = realloc(op->deps, (op->ndeps + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	op->deps = v;
	v[op->ndeps++] = dep;
	return 0;
}

/* temporal: each op is issued after the previous op in trace order was. */
static int plan_order(struct rp_plan *p, enum rp_order order)
{
	int err = 0;

	for (uint32_t i = 0; i < p->nops && !err; i++) {
		struct rp_op *op = &p->ops[i];

		if (order != RO_CAUSAL)
			op->ndeps = 0; /* think included: //TRACE's baseline knows no deps */
		if (order == RO_TEMPORAL && i)
			err = plan_add_dep(op, (i - 1) | RP_DEP_START);
	}
	/* a thread starts when its creating call has completed, in every order */
	for (uint32_t t = 0; t < p->nth && !err && order != RO_SINGLE; t++)
		if (p->th[t].gate != RP_NONE && p->th[t].nops)
			err = plan_add_dep(&p->ops[p->th[t].ops[0]], p->th[t].gate);
	return err;
}

static void plan_times(struct rp_plan *p)
{
	for (uint32_t i = 0; i < p->nops; i++) {
		struct rp_op *op = &p->ops[i];

		if (op->ts + op->dur > p->trace_wall)
			p->trace_wall = op->ts + op->dur;
	}
}

/* futex operations that can put the caller to sleep; the others (wake,
 * requeue, unlock) return at once, and their time is the kernel's work. */
static bool futex_may_block(int64_t op)
{
	switch (op & 127) { /* without FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME */
	case 0:		    /* FUTEX_WAIT */
	case 6:		    /* FUTEX_LOCK_PI */
	case 9:		    /* FUTEX_WAIT_BITSET */
	case 11:	    /* FUTEX_WAIT_REQUEUE_PI */
	case 13:	    /* FUTEX_LOCK_PI2 */
		return true;
	default:
		return false;
	}
}

/* An RK_WAIT that can put the caller to sleep: poll, epoll, wait4, or a
 * futex operation that may block.  Not a poll with timeout 0: a busy wait's
 * turn (Open MPI's progress loop), whose time is the call's own work; held,
 * each of a rank's tens of thousands of them would sleep the timer's
 * minimum instead of the microsecond it took. */
static bool wait_may_block(const struct rp_op *op)
{
	return op->a[0] < 0 ? !op__busy_poll(op) : futex_may_block(op->a[0]);
}

/*
 * A call that may block on something other than storage and has no causal
 * dep blocked on something the trace cannot explain: a timeout, a client
 * outside the trace, a wakeup from an untraced thread.  Decided on the
 * trace's own deps, before an --order baseline replaces them, so that every
 * order holds the same calls; but think, which holds every wait.  Reads and writes of files are never held:
 * how long they take is what the replay measures.  Nor is a futex wake: its
 * waiters were woken during the call, and holding it would hold them.
 */
static void plan_holds(struct rp_plan *p, enum rp_order order)
{
	for (uint32_t i = 0; i < p->nops; i++) {
		struct rp_op *op = &p->ops[i];
		enum rp_kind k = op->kind;
		bool may_block = k == RK_WAIT || k == RK_ACCEPT || k == RK_RECV ||
				 k == RK_CONNECT || ((k == RK_READ || k == RK_READV) && op->stream);

		if (k == RK_WAIT && !wait_may_block(op))
			may_block = false;
		/* think: every wait is time, explained or not */
		op->hold = may_block && (!op->ndeps || order == RO_THINK);
	}
}

/*
 * --order think, //TRACE's think-limited baseline: the time between two calls
 * of a thread is the recorded wall gap, whatever the thread did in it
 * (computing, waiting for the CPU or for another thread outside a call).
 */
static void plan_think_gaps(struct rp_plan *p)
{
	for (uint32_t t = 0; t < p->nth; t++) {
		const struct rp_thread *th = &p->th[t];

		for (uint32_t k = 0; k < th->nops; k++) {
			struct rp_op *op = &p->ops[th->ops[k]];
			const struct rp_op *prev;
			uint64_t end;

			op->outside = 0; /* in the wall gap already */
			if (!k)
				continue;
			prev = &p->ops[th->ops[k - 1]];
			end = prev->ts + prev->dur;
			op->compute = op->ts > end ? op->ts - end : 0;
		}
	}
}

/* A wait that timed out: a futex with -ETIMEDOUT; poll, select, epoll 0. */
static bool wait_timed_out(const struct rp_op *op)
{
	return op->a[0] >= 0 ? op->ret == -ETIMEDOUT : op->ret == 0;
}

/*
 * A held wait that timed out in the trace is a timer: a periodic thread
 * (RocksDB's stats dumper waits 1 s at a time, until shutdown wakes it).
 * In natural timing it ends early once the deps of the thread's next wait
 * that has any are done: the application would have been woken in it.
 * Recorded on slow storage and replayed on fast storage, the wake comes
 * sooner, and the timer no longer drags the thread, and the replay's end,
 * out to the recorded wall time.  a[3] of each wait: that next wait, or -1.
 */
static void plan_cuts(struct rp_plan *p, enum rp_order order)
{
	for (uint32_t t = 0; t < p->nth; t++) {
		const struct rp_thread *th = &p->th[t];
		int64_t cut = -1;

		for (uint32_t k = th->nops; k-- > 0;) {
			struct rp_op *op = &p->ops[th->ops[k]];

			if (op->kind != RK_WAIT)
				continue;
			op->a[3] = -1;
			/* --order single waits for no dep */
			if (op->hold && wait_timed_out(op) && order != RO_SINGLE) {
				op->a[3] = cut;
				if (cut >= 0)
					p->ops[cut].cut_target = true;
			} else if (op->ndeps && wait_may_block(op)) {
				cut = th->ops[k]; /* a wait, not a wake's rendezvous */
			}
		}
	}
}

/* A call of a lazy-wait loop's: a busy poll, or a short sleep. */
static bool spin_op(const struct rp_op *op, bool *sleep)
{
	*sleep = op->kind == RK_SLEEP && op->ret == 0 && op->dur <= SPIN_SLEEP_MAX_NS;
	return *sleep || op__busy_poll(op);
}

/*
 * A lazy-wait loop (zero-timeout polls and short sleeps, the last a sleep)
 * before a call with deps waited for something those deps stand for: the
 * spin rule's flag, set after another thread's call.  Played call by call,
 * the loop would last its recorded time wherever that call comes in the
 * replay; an MPI rank that reached MPI_Init's fence first in the trace
 * slept in it until the last one came, a quarter of a second, and its
 * replay slept as long though the others were there.  So the loop ends
 * when the deps are done, and the calls left are not made, as the
 * application made no more checks once the flag was set.  The loop's
 * shape is the analyzer's (analyze/spin.c).  Causal order only: the
 * baselines' deps are not the flag.
 */
static uint32_t plan_spins(struct rp_plan *p, enum rp_order order)
{
	uint32_t loops = 0;

	for (uint32_t t = 0; order == RO_CAUSAL && t < p->nth; t++) {
		const struct rp_thread *th = &p->th[t];

		for (uint32_t k = 1; k < th->nops; k++) {
			uint32_t j = k, sleeps = 0;
			bool sleep, last_sleep;

			if (!p->ops[th->ops[k]].ndeps ||
			    !spin_op(&p->ops[th->ops[k - 1]], &last_sleep) || !last_sleep)
				continue;
			while (j > 0 && spin_op(&p->ops[th->ops[j - 1]], &sleep))
				sleeps += sleep, j--;
			if (k - j < SPIN_MIN_CALLS || sleeps < SPIN_MIN_SLEEPS)
				continue;
			for (; j < k; j++)
				p->ops[th->ops[j]].spin_to = th->ops[k];
			loops++;
		}
	}
	return loops;
}

/* A futex wake that may end many waits at once: a barrier's last arrival or a
 * condition's broadcast (glibc wakes INT_MAX), not a lock handed to one. */
static bool futex_broadcast(const struct rp_op *op)
{
	int64_t cmd = op->a[0] & 127;

	return op->kind == RK_WAIT && op->a[0] >= 0 &&
	       (cmd == 1 || cmd == 10) /* WAKE(_BITSET) */ && op->a[1] > 1 && op->ret > 0;
}

/*
 * A barrier is two edges, and the trace shows one.  The waiters' futex waits
 * depend on the last arriver's wake; but the arrivals themselves are atomic
 * updates, not calls, so the wake depends on nothing, and in the replay the
 * last arriver runs on before the others have reached the barrier.  The
 * threads then drift out of the lockstep they kept, and where the file
 * system commits fdatasyncs that arrive together in one go, the replay runs
 * slow because they no longer arrive together.  So a broadcast wake waits for each wait it ended to be reached: a
 * start dep on the wait, which exec.c releases on arrival, before the wait's
 * own deps.  Only waits that blocked before the wake began, in another
 * thread, and not a thread's first op (its arrival precedes its gate), nor
 * the wait whose wake cuts a timer before it (plan_cuts): the wake would
 * wait out the timer it is meant to cut.  A lock's wake (val 1) is left
 * alone: the unlocker never waited for its waiter.  Returns how many deps it
 * added.
 */
static uint32_t plan_rendezvous(struct rp_plan *p)
{
	uint32_t added = 0;

	for (uint32_t i = 0; i < p->nops; i++) {
		struct rp_op *w = &p->ops[i];

		if (w->kind != RK_WAIT || w->a[0] < 0 || !futex_may_block(w->a[0]) ||
		    p->th[w->tidx].ops[0] == i || w->cut_target)
			continue;
		for (uint32_t k = 0; k < w->ndeps; k++) {
			struct rp_op *x = &p->ops[w->deps[k] & ~RP_DEP_START];

			if (w->deps[k] & RP_DEP_START || !futex_broadcast(x) ||
			    x->tidx == w->tidx || w->ts >= x->ts)
				continue;
			if (plan_add_dep(x, i | RP_DEP_START))
				return added; /* out of memory: fewer rendezvous */
			w->arrive_waited = true;
			added++;
		}
	}
	return added;
}

/*
 * Who releases a barrier: the last thread to reach it, as in the
 * application, whichever thread made the recorded wake.  Each wait a wake's
 * rendezvous kept (graph__break_cycles may have cut some) counts the wake's
 * rdv_left down on arrival, and so does the wake's own thread once its other
 * deps are done; whoever brings it to zero releases the wake (exec.c).  When
 * the wake's thread instead waited for each arrival, a wake that arrived
 * early slept until the last arrival woke it, and only then woke the
 * waiters: two wakeups in a row where the application has one, on every
 * barrier the recorded waker did not reach last.  A wait in two wakes'
 * rendezvous counts for the first; the second waits for it to be reached.
 */
static void plan_rendezvous_counts(struct rp_plan *p)
{
	for (uint32_t i = 0; i < p->nops; i++)
		p->ops[i].rdv_wake = RP_NONE;
	for (uint32_t i = 0; i < p->nops; i++) {
		struct rp_op *x = &p->ops[i];

		for (uint32_t k = 0; k < x->ndeps; k++) {
			struct rp_op *w = &p->ops[x->deps[k] & ~RP_DEP_START];

			if (!(x->deps[k] & RP_DEP_START) || !w->arrive_waited ||
			    w->rdv_wake != RP_NONE)
				continue;
			w->rdv_wake = i;
			x->rdv_n++;
		}
		x->rdv_left = x->rdv_n + 1;
	}
}

/* The last op of thread T that began at or before TS, or RP_NONE. */
static uint32_t thread_op_at(const struct rp_plan *p, const struct rp_thread *t, uint64_t ts)
{
	uint32_t lo = 0, hi = t->nops;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (p->ops[t->ops[mid]].ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? t->ops[lo - 1] : RP_NONE;
}

/*
 * A lock's collision is not an order.  A thread that found a mutex taken
 * waits in FUTEX_WAIT until the holder's unlock wakes it (FUTEX_WAKE of 1),
 * and the trace has that as a dep: the waiter after the unlock.  But which
 * thread gets a lock first is the moment's: replayed on other storage, the
 * recorded holder may not have reached its lock yet when the waiter reaches
 * its wait, and the application's waiter would then have taken the lock and
 * gone on.  Held to the recorded order, it waits for a holder that is behind
 * (tens of ms, in RocksDB's readers onto btrfs), and the thread it holds
 * back is the late holder of the next collision (docs/BENCHMARKS.md).  So
 * such a wait's dep binds only once the holder has started the op it was
 * in, or had last ended, when the wait began (its gate): before that, the
 * waiter goes first.  A wait with other deps, or the one a held timer's cut
 * waits for, keeps its order; so do the waits of a condition (FUTEX_WAIT_BITSET) and
 * of another host.  Only where the analysis let no other dep rest on the
 * handover (the header's lock_deps_apart): a dep it implied, such as an
 * eventfd's write before the unlock and its read after the wait, would be
 * lost with it.
 */
static void plan_lock_gates(struct rp_plan *p, enum rp_order order)
{
	for (uint32_t i = 0; i < p->nops; i++) {
		struct rp_op *w = &p->ops[i];
		const struct rp_op *x;

		w->lock_gate = RP_NONE;
		if (order != RO_CAUSAL || !p->lock_deps_apart || w->kind != RK_WAIT ||
		    w->a[0] < 0 || (w->a[0] & 127) != 0 /* FUTEX_WAIT */ || w->ret != 0 ||
		    w->ndeps != 1 || w->deps[0] & RP_DEP_START || w->cut_target ||
		    w->arrive_waited || w->hold)
			continue;
		x = &p->ops[w->deps[0]];
		if (x->kind != RK_WAIT || x->a[0] < 0 || (x->a[0] & 127) != 1 /* FUTEX_WAKE */ ||
		    x->a[1] != 1 || x->ret < 1 || x->tidx == w->tidx || x->remote || x->ts < w->ts)
			continue;
		w->lock_gate = thread_op_at(p, &p->th[x->tidx], w->ts);
		if (w->lock_gate != RP_NONE)
			p->ops[w->lock_gate].start_waited = true;
	}
}

/* Which ops someone waits for: the others finish without an atomic exchange. */
static void plan_waited(struct rp_plan *p)
{
	for (uint32_t i = 0; i < p->nops; i++) {
		const struct rp_op *op = &p->ops[i];

		for (uint32_t k = 0; k < op->ndeps; k++) {
			struct rp_op *d = &p->ops[op->deps[k] & ~RP_DEP_START];

			if (op->deps[k] & RP_DEP_START)
				d->start_waited = !d->arrive_waited; /* else released on arrival */
			else
				d->waited = true;
		}
	}
}

static bool kind_moves_bytes(enum rp_kind k)
{
	return (k >= RK_READ && k <= RK_PWRITEV) || k == RK_GETDENTS || k == RK_READLINK ||
	       k == RK_SEND || k == RK_RECV || k == RK_SENDFILE;
}

static void plan_buffers(struct rp_plan *p)
{
	for (uint32_t t = 0; t < p->nth; t++)
		p->th[t].bufsz = 4096;
	for (uint32_t i = 0; i < p->nops; i++) {
		struct rp_op *op = &p->ops[i];
		struct rp_thread *t = &p->th[op->tidx];
		uint64_t n = op->a[0] > 0 ? (uint64_t)op->a[0] : 0;

		if (!kind_moves_bytes(op->kind))
			continue;
		if (n > RP_BUF_MAX)
			n = RP_BUF_MAX;
		/* page multiples, so O_DIRECT transfers are aligned at both ends,
		 * and a page more each side for widening a pread (fdops.c) */
		n = ((n + 4095) & ~4095ull) + (op->kind == RK_PREAD ? 8192 : 0);
		if (n > t->bufsz)
			t->bufsz = n;
	}
}

static void plan_single_nonblock(struct rp_plan *p)
{
	/* one thread cannot wait for itself: a read that blocked on a pipe in
	 * the trace fails with EAGAIN instead of hanging the replay */
	for (uint32_t i = 0; i < p->nops; i++)
		p->ops[i].nonblock = true;
}

int compile__plan(struct rp_plan *p, const struct rp_opts *o)
{
	uint32_t dropped = plan_resolve_deps(p), broken, rdv, spins;
	int err;

	if (dropped)
		dbg("%u deps name events not in the trace or the same thread: dropped", dropped);
	err = plan_thread_lists(p);
	plan_holds(p, o->order);
	if (!err && o->order == RO_THINK)
		plan_think_gaps(p);
	if (!err)
		err = plan_order(p, o->order);
	if (!err)
		err = graph__mmaps(p);
	if (!err)
		err = graph__expect_dirs(p);
	if (!err && o->order == RO_CAUSAL)
		err = graph__name_misses(p);
	if (!err)
		graph__roots(p, o);
	if (!err)
		err = net__plan(p);
	if (err)
		return err;
	broken = graph__break_cycles(p, false);
	if (broken)
		warn("%u deps would deadlock with thread order: dropped", broken);
	plan_cuts(p, o->order);
	if ((spins = plan_spins(p, o->order)))
		dbg("%u lazy-wait loops end when the call after them may go", spins);
	/* on an acyclic graph: a cycle now closes through a rendezvous, and
	 * only those are cut */
	if (o->order == RO_CAUSAL && (rdv = plan_rendezvous(p))) {
		broken = graph__break_cycles(p, true);
		dbg("%u barrier rendezvous, %u of them dropped: they would deadlock", rdv, broken);
	}
	plan_rendezvous_counts(p);
	plan_lock_gates(p, o->order);
	if (o->order == RO_SINGLE)
		plan_single_nonblock(p);
	plan_waited(p);
	plan_times(p);
	plan_buffers(p);
	return 0;
}

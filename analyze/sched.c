// SPDX-License-Identifier: GPL-2.0
/*
 * Process and wakeup edges from the scheduler records: a fork precedes the
 * child's first call, a child's exit precedes the wait that reaped it, and a
 * thread that woke another from a blocking call precedes that call.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "analyze/an.h"
#include "lib/record.h"
#include "lib/syscalls.h"

#define EVF_WOKEN     0x4 /* woken at least once by a traced thread's call */
#define EVF_WOKEN_ANY 0x8 /* woken at least once */

static int on_fork(struct analysis *an, const struct an_side *s)
{
	uint32_t parent = an__tidx(an, s->trace, s->tid), child = an__tidx(an, s->trace, s->b);
	uint32_t from;

	if (parent == AN_NONE || child == AN_NONE)
		return 0;
	from = an__call_at(an, parent, s->ts, false);
	return an__edge(an, from, an__thread(an, child)->first, AN_RULE_PROCESS, 0);
}

static bool reaps(const struct iot_syscall *sc, uint32_t pid)
{
	if (sc->nr == SYS_wait4)
		return sc->ret == (int64_t)pid;
	if (sc->nr != SYS_waitid || sc->ret != 0)
		return false;
	return sc->args[0] == P_ALL || (sc->args[0] == P_PID && sc->args[1] == pid);
}

/* The first wait of the parent process that returned after the exit and names the child. */
static int on_exit_rec(struct analysis *an, const struct an_side *s, const uint32_t *waits,
		       uint32_t nwaits, uint8_t *used)
{
	uint32_t tidx = an__tidx(an, s->trace, s->tid);
	uint32_t pi = htab__get(&an->pid_idx, an__key(s->trace, s->pid));
	const struct an_proc *p;
	uint32_t from;

	if (!s->a || tidx == AN_NONE || pi == AN_NONE)
		return 0;
	p = an_vec__at(&an->procs, pi);
	from = an__call_at(an, tidx, s->ts, false);
	for (uint32_t k = 0; k < nwaits; k++) {
		const struct iot_syscall *sc = an__rec(an, waits[k]);

		if (used[k] || sc->hdr.pid != p->ppid || an__trace_of(an, waits[k]) != s->trace ||
		    an__end(an, waits[k]) < s->ts || !reaps(sc, s->pid))
			continue;
		used[k] = 1;
		return an__edge(an, from, waits[k], AN_RULE_PROCESS, 0);
	}
	return 0;
}

/*
 * Whether a call deals with another thread rather than with the disk: a futex,
 * a poll, a socket or pipe, a process call, a sleep cut short (by a signal).
 * Only such a call wakes another thread's, and only such a call is woken by
 * another thread's.  sched_waking from an interrupt names whatever thread was
 * current, so a disk interrupt that lands while a thread exits or forks must
 * not look like that thread woke a pread.
 */
static bool peer_call(const struct analysis *an, uint32_t id)
{
	const struct iot_syscall *sc = an__rec(an, id);
	const struct syscall_info *si = syscall__by_nr(sc->nr);
	const struct iot_fd *f;
	struct sc_view v;

	if (!si)
		return false;
	switch (si->cls) {
	case SC_SYNCH:
		/* a sleep that ran its course was woken by its timer */
		return !((sc->nr == SYS_nanosleep || sc->nr == SYS_clock_nanosleep) &&
			 sc->ret == 0);
	case SC_SOCKET:
	case SC_PROCESS:
		return true;
	case SC_READ:
	case SC_WRITE:
	case SC_CLOSE:
		/* only through a stream or an event fd: a regular file's I/O
		 * wakes nobody but itself, and the timer or disk interrupt that
		 * lands while it runs must not look like it did */
		if (sc_view__parse(&sc->hdr, &v) || !(f = sc_view__fd(&v, 0)))
			return false;
		return f->ftype == IOT_FT_FIFO || f->ftype == IOT_FT_SOCK ||
		       f->ftype == IOT_FT_ANON || f->ftype == IOT_FT_CHR;
	default:
		return false;
	}
}

/* The waker's call in progress, or its exit (a call that did not return). */
static uint32_t waker_call(const struct analysis *an, uint32_t waker, uint64_t ts)
{
	uint32_t id = an__call_at(an, waker, ts, false);

	if (id == AN_NONE)
		return AN_NONE;
	if (an__end(an, id) < ts && !(an__rec(an, id)->flags & IOT_SCF_NO_RETURN))
		return AN_NONE;
	return peer_call(an, id) ? id : AN_NONE;
}

#define SIGINFO_SIZE 128 /* struct signalfd_siginfo */

/*
 * Whether a woken call shows that a signal woke it: cut short (-EINTR, a
 * handler ran), or a ready poll followed by the thread draining a signalfd
 * (an anon inode read in whole siginfos; an eventfd's or timerfd's count is
 * 8 bytes).  An interrupt names whatever thread was current; a signal was
 * sent by a call, kill, that the recorder does not trace.
 */
static bool signalled(const struct analysis *an, uint32_t woken)
{
	const struct an_event *e = &an->ev[woken];
	const struct an_thread *t = an__thread(an, e->tidx);
	const struct iot_syscall *sc = an__rec(an, woken), *next;
	const struct iot_fd *f;
	struct sc_view v;

	if (sc->ret == -EINTR)
		return true;
	if (sc->ret <= 0 || e->pos + 1 >= t->nev)
		return false;
	next = an__rec(an, t->ev[e->pos + 1]);
	if (next->nr != SYS_read || next->ret <= 0 || next->ret % SIGINFO_SIZE ||
	    sc_view__parse(&next->hdr, &v) || !(f = sc_view__fd(&v, 0)))
		return false;
	return f->ftype == IOT_FT_ANON;
}

/*
 * A waker between its calls: the wakeup came from an interrupt, or from kill
 * (PostgreSQL's backends set each other's latches so, a lock holder its
 * waiters' after the commit's fdatasync).  Only a woken call that shows the
 * signal takes the waker's last call as its cause.
 */
static uint32_t signal_sender(const struct analysis *an, uint32_t waker, uint32_t woken,
			      uint64_t ts)
{
	uint32_t id = an__call_at(an, waker, ts, false);

	if (id == AN_NONE || an__end(an, id) >= ts || an__rec(an, id)->flags & IOT_SCF_NO_RETURN ||
	    !signalled(an, woken))
		return AN_NONE;
	return id;
}

static int on_wakeup(struct analysis *an, const struct an_side *s)
{
	uint32_t wakee = an__tidx(an, s->trace, s->tid);
	uint32_t waker = s->b ? an__tidx(an, s->trace, s->b) : AN_NONE;
	uint32_t woken, from;

	if (wakee == AN_NONE)
		return 0;
	woken = an__call_at(an, wakee, s->ts, true);
	if (woken == AN_NONE) {
		an->wakeups_outside++;
		return 0;
	}
	an->evflags[woken] |= EVF_WOKEN_ANY;
	from = waker == AN_NONE ? AN_NONE : waker_call(an, waker, s->ts);
	if (from == AN_NONE && waker != AN_NONE)
		from = signal_sender(an, waker, woken, s->ts);
	if (from == AN_NONE || waker == wakee || !peer_call(an, woken)) {
		an->wakeups_untraced++;
		return 0;
	}
	an->evflags[woken] |= EVF_WOKEN;
	return an__edge(an, from, woken, AN_RULE_WAKEUP, 0);
}

static uint32_t *collect_waits(struct analysis *an, uint32_t *n)
{
	uint32_t *w = malloc((an->nev + 1) * sizeof(*w));

	*n = 0;
	for (uint32_t i = 0; w && i < an->nev; i++) {
		uint16_t nr = an__rec(an, i)->nr;

		if (nr == SYS_wait4 || nr == SYS_waitid)
			w[(*n)++] = i;
	}
	return w;
}

int an__sched(struct analysis *an)
{
	const struct an_side *side = an->side.v;
	uint32_t nwaits, *waits = collect_waits(an, &nwaits);
	uint8_t *used = calloc(nwaits + 1, 1);
	int err = 0;

	if (!waits || !used) {
		free(waits);
		free(used);
		return -ENOMEM;
	}
	for (size_t i = 0; !err && i < an->side.n; i++) {
		if (side[i].type == IOT_REC_FORK)
			err = on_fork(an, &side[i]);
		else if (side[i].type == IOT_REC_EXIT)
			err = on_exit_rec(an, &side[i], waits, nwaits, used);
		else if (side[i].type == IOT_REC_WAKEUP &&
			 (an->opts.rules & (1u << AN_RULE_WAKEUP)))
			err = on_wakeup(an, &side[i]);
	}
	for (uint32_t i = 0; i < an->nev; i++)
		if ((an->evflags[i] & (EVF_WOKEN_ANY | EVF_WOKEN)) == EVF_WOKEN_ANY) {
			an->evflags[i] |= EVF_BLOCKED_UNX;
			an->blocked_unexplained++;
		}
	free(waits);
	free(used);
	return err;
}

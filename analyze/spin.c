// SPDX-License-Identifier: GPL-2.0
/*
 * Spin edges: a lazy-wait loop ended by another thread's call.
 *
 * A thread that waits for a flag in memory makes no call the flag's setter
 * could wake: it checks, polls without blocking, sleeps a little, and checks
 * again (Open MPI's OMPI_LAZY_WAIT_FOR_COMPLETION in MPI_Init and
 * MPI_Finalize, while its progress thread reads the PMIx server's answer).
 * The trace shows a run of zero-timeout polls and short sleeps, and the
 * call after it.  The flag was not set at the loop's last check but one, and
 * was set by the last: another thread of the process set it in between,
 * after a call of its that ended there.  Open MPI checks right after a
 * sleep, before it polls: the last check but one is the end of the loop's
 * last sleep but one (of the call before the last sleep, in a loop that
 * only sleeps), and a setter's call may end during the poll after it.  That
 * call precedes the loop's next call.  Only when one thread of the process
 * ended a call there: with two, which one set the flag is not known, and no
 * edge is drawn.  A loop that nothing ended there ran its
 * course (a timed retry), and gets no edge either.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>

#include "analyze/an.h"
#include "lib/record.h"
#include "lib/spin.h"

static bool short_sleep(const struct analysis *an, uint32_t id)
{
	const struct iot_syscall *sc = an__rec(an, id);

	return (sc->nr == SYS_nanosleep || sc->nr == SYS_clock_nanosleep) && sc->ret == 0 &&
	       an__end(an, id) - an->ev[id].ts <= SPIN_SLEEP_MAX_NS;
}

/* A poll that returned at once with nothing ready (the recorder does not
 * trace sched_yield: a loop's yields are not in the trace). */
static bool busy_poll(const struct analysis *an, uint32_t id)
{
	const struct iot_syscall *sc = an__rec(an, id);

	if (sc->ret != 0)
		return false;
	if (sc->nr == SYS_poll)
		return sc->args[2] == 0;
	if (sc->nr == SYS_epoll_wait || sc->nr == SYS_epoll_pwait)
		return sc->args[3] == 0;
	return false;
}

static bool spin_call(const struct analysis *an, uint32_t id)
{
	return short_sleep(an, id) || busy_poll(an, id);
}

/* Thread t's last call that ended in (after, until], or AN_NONE.  Calls of
 * one thread end in the order they enter. */
static uint32_t ended_in(const struct analysis *an, uint32_t t, uint64_t after, uint64_t until)
{
	const struct an_thread *th = an__thread(an, t);
	uint32_t id = an__call_at(an, t, until, false);
	uint32_t pos = id == AN_NONE ? 0 : an->ev[id].pos + 1;

	while (pos-- > 0) {
		uint64_t end = an__end(an, th->ev[pos]);

		if (end > until)
			continue; /* still in it at the loop's end */
		return end > after && !spin_call(an, th->ev[pos]) ? th->ev[pos] : AN_NONE;
	}
	return AN_NONE;
}

/* The loop of thread t from position first to last: its ender, the one
 * call of another thread of the process that ended during its last turn
 * (from its last check but one to its last sleep's end), or AN_NONE. */
static uint32_t loop_ender(const struct analysis *an, uint32_t t, uint32_t first, uint32_t last)
{
	const struct an_thread *th = an__thread(an, t);
	uint32_t check = last - 1, found = AN_NONE;
	uint64_t after, until = an__end(an, th->ev[last]);

	while (check > first && !short_sleep(an, th->ev[check]))
		check--;
	if (!short_sleep(an, th->ev[check]))
		check = last - 1;
	after = an__end(an, th->ev[check]);

	for (uint32_t o = 0; o < an->threads.n; o++) {
		const struct an_thread *ot = an__thread(an, o);
		uint32_t id;

		if (o == t || ot->pid != th->pid || ot->trace != th->trace || ot->host != th->host)
			continue;
		id = ended_in(an, o, after, until);
		if (id == AN_NONE)
			continue;
		if (found != AN_NONE)
			return AN_NONE; /* two threads: which set the flag is not known */
		found = id;
	}
	return found;
}

static int spin_thread(struct analysis *an, uint32_t t)
{
	const struct an_thread *th = an__thread(an, t);
	uint32_t k = 0;

	while (k < th->nev) {
		uint32_t first = k, sleeps = 0, ender;
		int err;

		while (k < th->nev && spin_call(an, th->ev[k]))
			sleeps += short_sleep(an, th->ev[k++]);
		if (k == first) {
			k++;
			continue;
		}
		/* a loop that ended on a check after a sleep, and a call after it */
		if (k - first < SPIN_MIN_CALLS || sleeps < SPIN_MIN_SLEEPS || k == th->nev ||
		    !short_sleep(an, th->ev[k - 1]))
			continue;
		ender = loop_ender(an, t, first, k - 1);
		if (ender != AN_NONE && (err = an__edge(an, ender, th->ev[k], AN_RULE_SPIN, 0)))
			return err;
	}
	return 0;
}

int an__spin(struct analysis *an)
{
	if (!(an->opts.rules & (1u << AN_RULE_SPIN)))
		return 0;
	for (uint32_t t = 0; t < an->threads.n; t++) {
		int err = spin_thread(an, t);

		if (err)
			return err;
	}
	return 0;
}

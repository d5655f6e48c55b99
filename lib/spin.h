/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shape of a lazy-wait loop: zero-timeout polls and short sleeps, the
 * last call a sleep.  The analyzer draws the spin rule's edge to the call
 * after one (analyze/spin.c), and the replayer ends one when that call's
 * deps are done (replay/compile.c, plan_spins): both by these numbers.
 */
#ifndef IOTRACE_SPIN_H
#define IOTRACE_SPIN_H

/* A sleep longer than this is not a loop's: it waits for something itself. */
#define SPIN_SLEEP_MAX_NS 10000000ull
/* A loop: at least this many calls, this many of them sleeps. */
#define SPIN_MIN_CALLS	4
#define SPIN_MIN_SLEEPS 2

#endif

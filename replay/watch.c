// SPDX-License-Identifier: GPL-2.0
/*
 * Outcome accounting per op, and the main thread's watch over the replay:
 * a progress bar on a terminal, and a stall report when no op completes for
 * --stall-timeout seconds (a dep the trace got wrong, or a call that blocks
 * in the sandbox where it did not in the original).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/syscall.h>

#include "lib/log.h"
#include "replay/replay.h"
#include "replay/run.h"

static uint32_t fail_ids[RP_FAIL_SAMPLES], short_ids[RP_FAIL_SAMPLES];
static _Atomic uint32_t nfail, nshort;
static _Atomic uint64_t nreason[RR_NR][RO_NR];
static uint32_t reason_ids[RR_NR][RO_NR][RP_REASON_SAMPLES];

/* The reason the op's code named, or the one its outcome implies. */
static enum rp_reason reason_of(const struct rp_op *op, enum rp_outcome how)
{
	if (op->reason && op->reason < RR_NR)
		return op->reason;
	if (how == RO_SKIPPED)
		return RR_UNSUPPORTED;
	return how == RO_EMULATED ? RR_OUTSIDE : RR_NONE;
}

static void reason_count(struct rp_plan *p, const struct rp_op *op, enum rp_outcome how)
{
	enum rp_reason why = reason_of(op, how);
	uint64_t i = atomic_fetch_add(&nreason[why][how], 1);

	if (i < RP_REASON_SAMPLES)
		reason_ids[why][how][i] = op - p->ops;
}

uint64_t watch__reason(enum rp_reason why, enum rp_outcome how, const uint32_t **ids)
{
	*ids = reason_ids[why][how];
	return atomic_load(&nreason[why][how]);
}

static bool moves_bytes(enum rp_kind k)
{
	return (k >= RK_READ && k <= RK_PWRITEV) || k == RK_GETDENTS || k == RK_READLINK ||
	       k == RK_SEND || k == RK_RECV || k == RK_SENDFILE;
}

void watch__account(struct rp_plan *p, struct rp_thread *t, struct rp_op *op, bool emul)
{
	bool rec_err = op->ret < 0, got_err = op->got < 0;

	if (op->got == RP_SKIPPED) {
		t->skipped[op->call]++;
		reason_count(p, op, RO_SKIPPED);
		return;
	}
	if (!op__is_io(op->kind))
		return;
	t->issued++;
	t->emulated += emul;
	if (emul)
		reason_count(p, op, RO_EMULATED);
	if (rec_err != got_err || (rec_err && op->ret != op->got)) {
		uint32_t i = atomic_fetch_add(&nfail, 1);

		reason_count(p, op, RO_FAILED);
		t->failed++;
		if (i < RP_FAIL_SAMPLES)
			fail_ids[i] = op - p->ops;
		return;
	}
	if (!rec_err && moves_bytes(op->kind) && op->got != op->ret) {
		uint32_t i = atomic_fetch_add(&nshort, 1);

		reason_count(p, op, RO_SHORT);
		t->shrt++;
		if (i < RP_FAIL_SAMPLES)
			short_ids[i] = op - p->ops;
	}
}

uint32_t watch__failures(const uint32_t **ids, bool shorts)
{
	uint32_t n = atomic_load(shorts ? &nshort : &nfail);

	*ids = shorts ? short_ids : fail_ids;
	return n < RP_FAIL_SAMPLES ? n : RP_FAIL_SAMPLES;
}

static void watch_bar(const struct rp_plan *p, uint64_t done)
{
	unsigned int pct = p->nops ? done * 100 / p->nops : 100, w = pct * 30 / 100;
	char bar[31];

	memset(bar, '#', w);
	memset(bar + w, ' ', 30 - w);
	bar[30] = '\0';
	fprintf(stderr, "\r  [%s] %3u%% %llu/%u ops", bar, pct, (unsigned long long)done, p->nops);
}

static void watch_stall(const struct rp_plan *p, const struct rp_opts *o)
{
	err("replay stalled: no call completed for %u s", o->stall_sec);
	for (uint32_t i = 0; i < p->nth; i++) {
		const struct rp_thread *t = &p->th[i];
		const struct rp_op *op;

		uint32_t cur = atomic_load_explicit(&t->cur, memory_order_relaxed);

		if (o->order == RO_SINGLE)
			op = cur < p->nops && i == 0 ? &p->ops[cur] : NULL;
		else
			op = cur < t->nops ? &p->ops[t->ops[cur]] : NULL;
		if (!op)
			continue;
		err("  thread %d at event %u (%s)%s", t->tid, op->id, p->calls[op->call],
		    atomic_load_explicit(&t->incall, memory_order_relaxed) ?
			    ": inside the call" :
			    ": waiting for its deps");
		for (uint32_t k = 0; k < op->ndeps && k < 8; k++) {
			const struct rp_op *d = &p->ops[op->deps[k] & ~RP_DEP_START];
			bool start = op->deps[k] & RP_DEP_START;

			if ((atomic_load(&d->state) & RS_MASK) < (start ? RS_STARTED : RS_DONE))
				err("    dep event %u (%s) not %s", d->id, p->calls[d->call],
				    !start	     ? "done" :
				    d->arrive_waited ? "reached" :
						       "started");
		}
	}
}

/* Calls done: each replay thread publishes its position, no shared counter. */
static uint64_t watch_progress(const struct rp_plan *p)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < p->nth; i++)
		n += atomic_load_explicit(&p->th[i].cur, memory_order_relaxed);
	return n;
}

/* true when every thread finished, false on a stall. */
bool watch__run(const struct rp_plan *p, const struct rp_opts *o, _Atomic uint32_t *running,
		_Atomic uint32_t *pacing)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	uint64_t last = 0, idle = 0;
	uint32_t n;

	while ((n = atomic_load(running))) {
		uint64_t now = watch_progress(p);

		/* the last thread out wakes us */
		syscall(SYS_futex, running, FUTEX_WAIT_PRIVATE, n, &tick, NULL, 0);
		if (o->progress)
			watch_bar(p, now);
		idle = now == last && !atomic_load(pacing) ? idle + 20 : 0;
		last = now;
		if (o->stall_sec && idle >= o->stall_sec * 1000ull) {
			if (o->progress)
				fputc('\n', stderr);
			watch_stall(p, o);
			return false;
		}
	}
	if (o->progress) {
		watch_bar(p, watch_progress(p));
		fputc('\n', stderr);
	}
	return true;
}

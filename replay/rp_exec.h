/* SPDX-License-Identifier: GPL-2.0 */
/* Replay execution internals shared by exec.c and watch.c. */
#ifndef IOTRACE_RP_EXEC_H
#define IOTRACE_RP_EXEC_H

#include "replay.h"

#define RP_FAIL_SAMPLES 32

/* Counts an op's outcome against the trace in its thread's counters. */
void exec__account(struct rp_plan *p, struct rp_thread *t, struct rp_op *op, bool emul);
/* The first failed (or short) ops, as indexes, for the report. */
uint32_t exec__failures(const uint32_t **ids, bool shorts);

/* What became of a call that was not reproduced as recorded. */
enum rp_outcome { RO_FAILED, RO_SHORT, RO_EMULATED, RO_SKIPPED, RO_NR };
#define RP_REASON_SAMPLES 4
/* How many calls had reason WHY and outcome HOW; *IDS: the first few, as op
 * indexes, up to RP_REASON_SAMPLES (how many: the smaller). */
uint64_t exec__reason(enum rp_reason why, enum rp_outcome how, const uint32_t **ids);
/* Main thread: progress and stall detection; false when the replay stalled. */
bool exec__watch(const struct rp_plan *p, const struct rp_opts *o, _Atomic uint32_t *running,
		 _Atomic uint32_t *pacing);

#endif

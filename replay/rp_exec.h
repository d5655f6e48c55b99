/* SPDX-License-Identifier: GPL-2.0 */
/* Replay execution internals shared by exec.c and watch.c. */
#ifndef IOTRACE_RP_EXEC_H
#define IOTRACE_RP_EXEC_H

#include "replay/replay.h"

#define RP_FAIL_SAMPLES 32

/* Counts an op's outcome against the trace in its thread's counters. */
void exec__account(struct rp_plan *p, struct rp_thread *t, struct rp_op *op, bool emul);
/* The first failed (or short) ops, as indexes, for the report. */
uint32_t exec__failures(const uint32_t **ids, bool shorts);
/* Main thread: progress and stall detection; false when the replay stalled. */
bool exec__watch(const struct rp_plan *p, const struct rp_opts *o, _Atomic uint32_t *running,
		 _Atomic uint32_t *pacing);

#endif

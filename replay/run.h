/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running the plan, shared by the files that issue ops (ops.c, fdops.c,
 * netops.c, net.c, attr.c, peer.c, loopback.c), the sandbox (sandbox.c,
 * prepare.c) and the execution and its accounting (exec.c, watch.c,
 * report.c).
 */
#ifndef IOTRACE_REPLAY_RUN_H
#define IOTRACE_REPLAY_RUN_H

#include <errno.h>

#include "replay/replay.h"

/* fdops.c */
/* The replay fd of recorded fd RFD in op's process, or an RP_FD_* value. */
int fd__get(const struct rp_plan *p, const struct rp_op *op, int32_t rfd);
int64_t fd__missing(struct rp_op *op, int fd);
void fd__set(struct rp_plan *p, uint32_t pidx, int64_t rfd, int fd, uint8_t fl);
/* Every op that names an fd (close, I/O, dup, fcntl, mmap). */
int64_t fd__op(struct rp_plan *p, struct rp_thread *t, struct rp_op *op, bool *emul);

/* A libc call's result as the op's result: >= 0, or -errno. */
static inline int64_t sys_res(int64_t r)
{
	return r < 0 ? -(int64_t)errno : r;
}

/* loopback.c */
struct sockaddr_storage;
/* Loopback address of FAMILY with PORT; returns its length. */
unsigned int loopback__addr(struct sockaddr_storage *ss, int family, int port);
/* Local port of a bound socket, or -errno. */
int loopback__port(int fd);
/* A loopback port where connects are refused, or 0. */
int loopback__refusing_port(void);
/* TCP_NODELAY on FD (multi-host replays: every connection). */
void loopback__nodelay(int fd);

/* sandbox.c: the sandbox roots, also for prepare.c */
/* O_PATH fds of the sandbox roots (0 --root, then each --dev-root), their
 * names for messages, and how many there are. */
extern int sb_root_fd[];
extern const char *sb_root_name[];
extern unsigned int sb_nroots;

/* watch.c: outcome accounting, for exec.c and report.c */
#define RP_FAIL_SAMPLES 32

/* Counts an op's outcome against the trace in its thread's counters. */
void watch__account(struct rp_plan *p, struct rp_thread *t, struct rp_op *op, bool emul);
/* The first failed (or short) ops, as indexes, for the report. */
uint32_t watch__failures(const uint32_t **ids, bool shorts);

/* What became of a call that was not reproduced as recorded. */
enum rp_outcome { RO_FAILED, RO_SHORT, RO_EMULATED, RO_SKIPPED, RO_NR };
#define RP_REASON_SAMPLES 4
/* How many calls had reason WHY and outcome HOW; *IDS: the first few, as op
 * indexes, up to RP_REASON_SAMPLES (how many: the smaller). */
uint64_t watch__reason(enum rp_reason why, enum rp_outcome how, const uint32_t **ids);
/* Main thread: progress and stall detection; false when the replay stalled. */
bool watch__run(const struct rp_plan *p, const struct rp_opts *o, _Atomic uint32_t *running,
		_Atomic uint32_t *pacing);

#endif

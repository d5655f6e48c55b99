/* SPDX-License-Identifier: GPL-2.0 */
/* Opening, configuring, loading and attaching the capture programs. */
#ifndef IOTRACE_BPFSETUP_H
#define IOTRACE_BPFSETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct capture;

struct capture_opts {
	bool follow_children;
	size_t ring_bytes; /* power of two, multiple of the page size */
	uint32_t families; /* enum iot_family bits: the calls to trace */
};

/* Loads and attaches everything; NULL with errno set and the reason logged.
 * Owned by the caller, freed with capture__free(). */
struct capture *capture__new(const struct capture_opts *opts);
/* Puts a process into the kernel filter.  0 or -errno. */
int capture__add_pid(struct capture *c, pid_t pid);
/* The ring buffer's map fd, for ring_buffer__new(). */
int capture__ring_fd(const struct capture *c);
/* Map of exited threads' final sequence numbers (tid -> struct iot_seqend_val). */
int capture__seq_end_fd(const struct capture *c);
/* Sums the per-CPU loss counters into loss[IOT_LOSS_NR]. */
int capture__loss(const struct capture *c, uint64_t *loss);
/* Detaches every program and waits out the runs in flight: nothing more is
 * recorded, and the per-CPU batches hold what never reached the ring. */
void capture__stop(struct capture *c);
/* After capture__stop(): hands each CPU's leftover records, as one span of
 * whole records, to fn.  0, -errno, or the first non-zero fn result. */
int capture__drain_batches(struct capture *c, int (*fn)(void *ctx, void *data, size_t len),
			   void *ctx);
void capture__free(struct capture *c);

#endif

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
	size_t ring_bytes;	/* power of two, multiple of the page size */
};

/* Loads and attaches everything; NULL with errno set and the reason logged.
 * Owned by the caller, freed with capture__free(). */
struct capture *capture__new(const struct capture_opts *opts);
/* Puts a process into the kernel filter.  0 or -errno. */
int capture__add_pid(struct capture *c, pid_t pid);
/* The ring buffer's map fd, for ring_buffer__new(). */
int capture__ring_fd(const struct capture *c);
/* Sums the per-CPU loss counters into loss[IOT_LOSS_NR]. */
/* Map of exited threads' final sequence numbers (tid -> struct iot_seqend_val). */
int capture__seq_end_fd(const struct capture *c);
int capture__loss(const struct capture *c, uint64_t *loss);
void capture__free(struct capture *c);

#endif

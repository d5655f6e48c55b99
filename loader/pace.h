/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recorder's pace: it drains the ring at the idle policy while it keeps
 * up, and a watcher at its own policy lifts it back before the ring fills.
 */
#ifndef IOTRACE_LOADER_PACE_H
#define IOTRACE_LOADER_PACE_H

#include <stddef.h>
#include <sys/types.h>

struct pace;

/*
 * Puts the calling thread, the one that drains the ring of ring_fd
 * (ring_bytes long), at SCHED_IDLE while the ring stays nearly empty, and
 * starts its watcher.  Returns NULL when the drain keeps its policy: the
 * recorder runs at a real-time or idle policy, could not leave SCHED_IDLE
 * again, or IOTRACE_RECORD_NO_IDLE is set.
 */
struct pace *pace__start(int ring_fd, size_t ring_bytes);
/* The watcher's thread id, once it has started; 0 before, or with no pace. */
pid_t pace__watcher(const struct pace *p);
/* Stops the watcher and gives the drain its policy back; NULL is a no-op. */
void pace__stop(struct pace *p);

#endif

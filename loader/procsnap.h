/* SPDX-License-Identifier: GPL-2.0 */
/* Snapshots of /proc/PID written into the trace at attach. */
#ifndef IOTRACE_PROCSNAP_H
#define IOTRACE_PROCSNAP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct trace_writer;
struct pidset;

/*
 * Writes PROC, THREAD, FDSNAP and MAPSNAP records for pid.  pre_exec: pid is
 * about to exec, so only what survives an exec is written (no close-on-exec
 * fds, no mappings).  0 or -errno (-ESRCH when the process is gone).
 */
int procsnap__write(struct trace_writer *w, pid_t pid, uint64_t ts, bool pre_exec);
/* Parent of pid from /proc/PID/stat, or -1. */
pid_t procsnap__ppid(pid_t pid);
/* Adds to set every process whose ancestor is in it, scanning /proc until
 * nothing new turns up.  0 or -errno. */
int procsnap__descendants(struct pidset *set);

#endif

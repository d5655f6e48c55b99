/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace's records in time order.  The recorder writes them as the CPUs
 * hand them over: per-CPU batches, and a call only once it returns, so the
 * file is not in time order and a long call can come any time after the
 * calls it overlapped.  This is an external merge sort: records are held up
 * to a byte budget, sorted, and spilled to a temporary file as a sorted run;
 * the runs are then merged.  A trace that fits the budget never touches disk.
 */
#ifndef IOTRACE_TIMEORDER_H
#define IOTRACE_TIMEORDER_H

#include <stddef.h>
#include "include/iotrace_abi.h"

struct timeorder;

/* run_bytes of records are held before a run is spilled (at least one record
 * always is).  Free with timeorder__free().  NULL when out of memory. */
struct timeorder *timeorder__new(size_t run_bytes);
/* Copies one record in.  0 or -errno (a spill that could not be written). */
int timeorder__add(struct timeorder *o, const struct iot_hdr *h);
/*
 * The next record by hdr.ts, records of equal ts in the order they were
 * added: 1 and *h set (valid until the next call), 0 after the last, -errno
 * when a spilled run cannot be read back.  The first call ends the adding.
 */
int timeorder__next(struct timeorder *o, const struct iot_hdr **h);
/* Sorted runs spilled to disk so far. */
unsigned int timeorder__spilled(const struct timeorder *o);
void timeorder__free(struct timeorder *o);

#endif

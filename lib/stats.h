/* SPDX-License-Identifier: GPL-2.0 */
/* Order statistics over arrays of 64-bit samples, shared by every report. */
#ifndef IOTRACE_STATS_H
#define IOTRACE_STATS_H

#include <stddef.h>
#include <stdint.h>

/* qsort comparator for uint64_t, ascending. */
int stats__u64_cmp(const void *a, const void *b);
/* Sorts n samples ascending, in place. */
void stats__sort(uint64_t *v, size_t n);
/*
 * Nearest-rank percentile (q in [0, 1]) of n sorted samples: the smallest
 * sample at or above a fraction q of them, so every figure a report prints
 * is a latency that was measured.  0 when n is 0.
 */
uint64_t stats__percentile(const uint64_t *sorted, size_t n, double q);

#endif

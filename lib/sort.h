/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stable radix sort of (key, value) pairs: the orders the analysis needs
 * (enter time, exit time, data items) over a million events, where qsort's
 * comparisons cost more than the rest of the pass.
 */
#ifndef IOTRACE_SORT_H
#define IOTRACE_SORT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Orders val[0..n) by key[0..n) ascending; values of equal keys keep their
 * order, so sorting by a minor key first and then by the major one orders by
 * both.  key[] is scratch: its contents are undefined afterwards.  0 or
 * -ENOMEM.
 */
int sort__by_key(uint64_t *key, uint32_t *val, size_t n);

#endif

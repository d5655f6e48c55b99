/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A map from non-zero 32-bit ids (pids, tids) to a 64-bit value, usable as a
 * plain set: open addressing, grows by doubling.
 */
#ifndef IOTRACE_IDSET_H
#define IOTRACE_IDSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct idset {
	uint32_t *key;	/* 0 = empty */
	uint64_t *val;
	size_t cap;	/* power of two */
	size_t n;
};

/* Adds id (not 0) with value 0; 1 if it was new, 0 if present, -ENOMEM. */
int idset__add(struct idset *s, uint32_t id);
bool idset__has(const struct idset *s, uint32_t id);
/* The value of id, adding it if new; NULL on ENOMEM or id 0. */
uint64_t *idset__val(struct idset *s, uint32_t id);
void idset__free(struct idset *s);

#endif

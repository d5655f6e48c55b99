/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two small containers: a map from 64-bit keys to 32-bit values
 * (open addressing, grows by doubling) and a string interner built on it.
 */
#ifndef IOTRACE_HTAB_H
#define IOTRACE_HTAB_H

#include <stddef.h>
#include <stdint.h>

struct htab {
	uint64_t *key;
	uint32_t *val;
	uint8_t *used; /* 1 where key/val hold an entry */
	size_t cap;    /* power of two, or 0 */
	size_t n;
};

/* Value of key, or UINT32_MAX. */
uint32_t htab__get(const struct htab *h, uint64_t key);
/* Sets key to val.  0 or -ENOMEM. */
int htab__set(struct htab *h, uint64_t key, uint32_t val);
void htab__free(struct htab *h);
uint64_t hash64(const void *p, size_t len);

struct strtab {
	struct htab idx; /* hash of the string -> id */
	char **s;	 /* id -> string */
	uint32_t n, cap;
};

/* Id of s, interned on first use; UINT32_MAX on ENOMEM or s NULL. */
uint32_t strtab__intern(struct strtab *t, const char *s);
const char *strtab__str(const struct strtab *t, uint32_t id);
size_t strtab__bytes(const struct strtab *t);
void strtab__free(struct strtab *t);

#endif

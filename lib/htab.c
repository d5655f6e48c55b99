// SPDX-License-Identifier: GPL-2.0
/* Open-addressing map u64 -> u32, and a string interner on top of it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/htab.h"

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return key & (cap - 1);
}

uint64_t hash64(const void *p, size_t len)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ s[i]) * 0x100000001b3ull;
	return h;
}

uint32_t htab__get(const struct htab *h, uint64_t key)
{
	if (!h->cap)
		return UINT32_MAX;
	for (size_t i = slot_of(key, h->cap);; i = (i + 1) & (h->cap - 1)) {
		if (!h->used[i])
			return UINT32_MAX;
		if (h->key[i] == key)
			return h->val[i];
	}
}

static int grow(struct htab *h)
{
	struct htab n = { .cap = h->cap ? h->cap * 2 : 64 };

	n.key = malloc(n.cap * sizeof(*n.key));
	n.val = malloc(n.cap * sizeof(*n.val));
	n.used = calloc(n.cap, 1);
	if (!n.key || !n.val || !n.used) {
		htab__free(&n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < h->cap; i++)
		if (h->used[i])
			htab__set(&n, h->key[i], h->val[i]);
	htab__free(h);
	*h = n;
	return 0;
}

int htab__set(struct htab *h, uint64_t key, uint32_t val)
{
	size_t i;

	if ((h->n + 1) * 4 > h->cap * 3 && grow(h))
		return -ENOMEM;
	for (i = slot_of(key, h->cap); h->used[i]; i = (i + 1) & (h->cap - 1)) {
		if (h->key[i] == key) {
			h->val[i] = val;
			return 0;
		}
	}
	h->n++;
	h->used[i] = 1;
	h->key[i] = key;
	h->val[i] = val;
	return 0;
}

void htab__free(struct htab *h)
{
	free(h->key);
	free(h->val);
	free(h->used);
	memset(h, 0, sizeof(*h));
}

/* Probe sequence of a string: its hash, then rehashes while another string holds it. */
static uint64_t str_key(const char *s, unsigned int attempt)
{
	return hash64(s, strlen(s)) + attempt * 0x9e3779b97f4a7c15ull;
}

uint32_t strtab__intern(struct strtab *t, const char *s)
{
	uint32_t id;
	unsigned int a;

	if (!s)
		return UINT32_MAX;
	for (a = 0;; a++) {
		id = htab__get(&t->idx, str_key(s, a));
		if (id == UINT32_MAX)
			break;
		if (!strcmp(t->s[id], s))
			return id;
	}
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 256;
		char **n = realloc(t->s, cap * sizeof(*n));

		if (!n)
			return UINT32_MAX;
		t->s = n;
		t->cap = cap;
	}
	t->s[t->n] = strdup(s);
	if (!t->s[t->n] || htab__set(&t->idx, str_key(s, a), t->n)) {
		free(t->s[t->n]);
		return UINT32_MAX;
	}
	return t->n++;
}

const char *strtab__str(const struct strtab *t, uint32_t id)
{
	return id < t->n ? t->s[id] : NULL;
}

size_t strtab__bytes(const struct strtab *t)
{
	size_t b = t->cap * sizeof(char *) + t->idx.cap * 13;

	for (uint32_t i = 0; i < t->n; i++)
		b += strlen(t->s[i]) + 1;
	return b;
}

void strtab__free(struct strtab *t)
{
	for (uint32_t i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	htab__free(&t->idx);
	memset(t, 0, sizeof(*t));
}

// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>

#include "lib/idset.h"

static size_t probe(const uint32_t *key, size_t cap, uint32_t id)
{
	size_t i = (id * 2654435761u) & (cap - 1);

	while (key[i] && key[i] != id)
		i = (i + 1) & (cap - 1);
	return i;
}

static int grow(struct idset *s)
{
	size_t cap = s->cap ? s->cap * 2 : 64;
	uint32_t *key = calloc(cap, sizeof(*key));
	uint64_t *val = calloc(cap, sizeof(*val));

	if (!key || !val) {
		free(key);
		free(val);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->cap; i++) {
		if (s->key[i]) {
			size_t j = probe(key, cap, s->key[i]);

			key[j] = s->key[i];
			val[j] = s->val[i];
		}
	}
	free(s->key);
	free(s->val);
	s->key = key;
	s->val = val;
	s->cap = cap;
	return 0;
}

static int slot_of(struct idset *s, uint32_t id, size_t *slot)
{
	size_t i;

	if ((s->n + 1) * 2 > s->cap && grow(s))
		return -ENOMEM;
	i = probe(s->key, s->cap, id);
	*slot = i;
	if (s->key[i])
		return 0;
	s->key[i] = id;
	s->val[i] = 0;
	s->n++;
	return 1;
}

int idset__add(struct idset *s, uint32_t id)
{
	size_t i;

	return id ? slot_of(s, id, &i) : 0;
}

uint64_t *idset__val(struct idset *s, uint32_t id)
{
	size_t i;

	if (!id || slot_of(s, id, &i) < 0)
		return NULL;
	return &s->val[i];
}

bool idset__has(const struct idset *s, uint32_t id)
{
	return s->cap && id && s->key[probe(s->key, s->cap, id)] == id;
}

void idset__free(struct idset *s)
{
	free(s->key);
	free(s->val);
	s->key = NULL;
	s->val = NULL;
	s->cap = s->n = 0;
}

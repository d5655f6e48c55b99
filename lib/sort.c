// SPDX-License-Identifier: GPL-2.0
/*
 * Stable LSD radix sort, 11 bits a pass, over the digits the keys' range
 * spans.  Keys within 2^32 of each other (a thread index; the times of a
 * trace shorter than four seconds) are sorted as 32-bit offsets from the
 * smallest, in the caller's key array itself: the sort then takes no memory
 * but a second array of values, which matters next to a million events.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sort.h"

#define DIGIT_BITS 11
#define NDIGITS	   ((64 + DIGIT_BITS - 1) / DIGIT_BITS)
#define NBUCKETS   (1u << DIGIT_BITS)

static unsigned int digit(uint64_t k, unsigned int d)
{
	return (k >> (d * DIGIT_BITS)) & (NBUCKETS - 1);
}

/* Turns counts into starting offsets; false when one bucket holds all n (nothing moves). */
static bool offsets(uint32_t *hist, size_t n)
{
	uint32_t sum = 0;

	for (unsigned int b = 0; b < NBUCKETS; b++) {
		uint32_t c = hist[b];

		if (c == n)
			return false;
		hist[b] = sum;
		sum += c;
	}
	return true;
}

/* Passes over 32-bit offsets ks[0..n), ping-ponging with kd[] and vd[]; where the values end. */
static uint32_t *sort32(uint32_t *ks, uint32_t *kd, uint32_t *vs, uint32_t *vd, size_t n,
			unsigned int nd, uint32_t (*hist)[NBUCKETS])
{
	for (size_t i = 0; i < n; i++)
		for (unsigned int d = 0; d < nd; d++)
			hist[d][digit(ks[i], d)]++;
	for (unsigned int d = 0; d < nd; d++) {
		uint32_t *t;

		if (!offsets(hist[d], n))
			continue;
		for (size_t i = 0; i < n; i++) {
			uint32_t at = hist[d][digit(ks[i], d)]++;

			kd[at] = ks[i];
			vd[at] = vs[i];
		}
		t = ks, ks = kd, kd = t;
		t = vs, vs = vd, vd = t;
	}
	return vs;
}

/* Offsets from min, packed as 32-bit words at the front of the same array. */
static uint32_t *pack32(uint64_t *key, size_t n, uint64_t min)
{
	char *p = (char *)key;

	/* word i lies at or before key i, read already: bytes, so no aliasing games */
	for (size_t i = 0; i < n; i++) {
		uint64_t k;
		uint32_t o;

		memcpy(&k, p + i * sizeof(k), sizeof(k));
		o = k - min;
		memcpy(p + i * sizeof(o), &o, sizeof(o));
	}
	return (uint32_t *)key;
}

static int sort64(uint64_t *key, uint32_t *val, uint32_t *v2, size_t n, uint64_t min,
		  unsigned int nd, uint32_t (*hist)[NBUCKETS])
{
	uint64_t *k2 = malloc(n * sizeof(*k2) + 1), *ks = key, *kd = k2, *kt;
	uint32_t *vs = val, *vd = v2, *vt;

	if (!k2)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		for (unsigned int d = 0; d < nd; d++)
			hist[d][digit(key[i] - min, d)]++;
	for (unsigned int d = 0; d < nd; d++) {
		if (!offsets(hist[d], n))
			continue;
		for (size_t i = 0; i < n; i++) {
			uint32_t at = hist[d][digit(ks[i] - min, d)]++;

			kd[at] = ks[i];
			vd[at] = vs[i];
		}
		kt = ks, ks = kd, kd = kt;
		vt = vs, vs = vd, vd = vt;
	}
	if (vs != val)
		memcpy(val, vs, n * sizeof(*val));
	free(k2);
	return 0;
}

int sort__by_key(uint64_t *key, uint32_t *val, size_t n)
{
	uint32_t(*hist)[NBUCKETS] = calloc(NDIGITS, sizeof(*hist));
	uint32_t *v2 = malloc(n * sizeof(*v2) + 1);
	uint64_t min = UINT64_MAX, max = 0, span;
	unsigned int nd = 0;
	int err = 0;

	if (!hist || !v2) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		min = key[i] < min ? key[i] : min;
		max = key[i] > max ? key[i] : max;
	}
	for (span = n ? max - min : 0; span; span >>= DIGIT_BITS)
		nd++;
	if (n && max - min <= UINT32_MAX) {
		uint32_t *k32 = pack32(key, n, min), *vs;

		vs = sort32(k32, k32 + n, val, v2, n, nd, hist);
		if (vs != val)
			memcpy(val, vs, n * sizeof(*val));
	} else if (n) {
		err = sort64(key, val, v2, n, min, nd, hist);
	}
out:
	free(hist);
	free(v2);
	return err;
}

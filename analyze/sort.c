// SPDX-License-Identifier: GPL-2.0
/* Stable LSD radix sort, 11 bits a pass, skipping the digits all keys share. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sort.h"

#define DIGIT_BITS	11
#define NDIGITS		((64 + DIGIT_BITS - 1) / DIGIT_BITS)
#define NBUCKETS	(1u << DIGIT_BITS)

static unsigned int digit(uint64_t k, unsigned int d)
{
	return (k >> (d * DIGIT_BITS)) & (NBUCKETS - 1);
}

/*
 * Keys are taken relative to the smallest, so a clock's high bits (the same
 * in every key of a trace) cost no pass; one read fills the histograms of the
 * digits the range spans.  Returns how many digits that is.
 */
static unsigned int histograms(const uint64_t *key, size_t n, uint32_t (*hist)[NBUCKETS],
			       uint64_t *minp)
{
	uint64_t min = UINT64_MAX, max = 0;
	unsigned int nd = 0;

	for (size_t i = 0; i < n; i++) {
		if (key[i] < min)
			min = key[i];
		if (key[i] > max)
			max = key[i];
	}
	for (uint64_t span = max - min; n && span; span >>= DIGIT_BITS)
		nd++;
	for (size_t i = 0; i < n; i++)
		for (unsigned int d = 0; d < nd; d++)
			hist[d][digit(key[i] - min, d)]++;
	*minp = min;
	return nd;
}

int sort__by_key(uint64_t *key, uint32_t *val, size_t n)
{
	uint32_t (*hist)[NBUCKETS] = calloc(NDIGITS, sizeof(*hist));
	uint64_t *k2 = malloc(n * sizeof(*k2) + 1), *ks = key, *kd = k2, *kt, min;
	uint32_t *v2 = malloc(n * sizeof(*v2) + 1), *vs = val, *vd = v2, *vt;
	unsigned int nd;

	if (!hist || !k2 || !v2) {
		free(hist);
		free(k2);
		free(v2);
		return -ENOMEM;
	}
	nd = histograms(key, n, hist, &min);
	for (unsigned int d = 0; d < nd; d++) {
		uint32_t sum = 0;

		if (hist[d][digit(ks[0] - min, d)] == n)
			continue;	/* every key has this digit: nothing moves */
		for (unsigned int b = 0; b < NBUCKETS; b++) {
			uint32_t c = hist[d][b];

			hist[d][b] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++) {
			uint32_t at = hist[d][digit(ks[i] - min, d)]++;

			kd[at] = ks[i];
			vd[at] = vs[i];
		}
		kt = ks, ks = kd, kd = kt;
		vt = vs, vs = vd, vd = vt;
	}
	if (ks != key) {
		memcpy(key, ks, n * sizeof(*key));
		memcpy(val, vs, n * sizeof(*val));
	}
	free(hist);
	free(k2);
	free(v2);
	return 0;
}

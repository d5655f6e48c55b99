// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "lib/stats.h"

int stats__u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void stats__sort(uint64_t *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), stats__u64_cmp);
}

uint64_t stats__percentile(const uint64_t *sorted, size_t n, double q)
{
	size_t i = (size_t)(q * n);

	if (!n)
		return 0;
	if ((double)i < q * n)
		i++;
	if (i < 1)
		i = 1;
	return sorted[(i > n ? n : i) - 1];
}

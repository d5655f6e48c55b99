// SPDX-License-Identifier: GPL-2.0
/*
 * dioruns: how the physical layout of a direct read's buffer changes its
 * device time (docs/replay.md, I/O buffers).
 *
 * A direct I/O request carries a segment for each physically contiguous run
 * of its buffer's pages.  This reads LEN bytes (default 64 KiB) with O_DIRECT
 * at random aligned offsets of FILE into two buffers in turn: one in a
 * single run (a transparent huge page, its 2 MiB region aligned for it) and
 * one laid out as the replay lays out its own (replay/iobuf.c: no page
 * physically after the one before it).  Rounds alternate which goes first;
 * each prints the mean µs a read of both, and the last line the medians and
 * the median of the rounds' ratios.
 *
 * Usage: dioruns FILE [-l LEN] [-n READS_PER_ROUND] [-r ROUNDS]
 * Needs root (/proc/self/pagemap's frames) and THP not set to "never".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "replay/replay.h"

#define HUGE (2UL << 20)

static void die(const char *what)
{
	fprintf(stderr, "dioruns: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* LEN bytes at the start of a huge page: one physical run. */
static char *one_run(size_t len)
{
	char *p = mmap(NULL, 2 * HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;

	if (p == MAP_FAILED)
		die("mmap");
	a = (char *)(((uintptr_t)p + HUGE - 1) & ~(HUGE - 1));
	if (madvise(a, HUGE, MADV_HUGEPAGE))
		die("madvise(MADV_HUGEPAGE)");
	memset(a, 'h', HUGE);
	if (iobuf__runs(a, len) != 1) {
		fprintf(stderr, "dioruns: no huge page for the one-run buffer (%zu runs)\n",
			iobuf__runs(a, len));
		exit(1);
	}
	return a;
}

/* Mean µs a read of n reads of len into buf at random aligned offsets. */
static double reads(int fd, char *buf, size_t len, off_t nchunks, long n, unsigned int *seed)
{
	double t0 = now_us();

	for (long i = 0; i < n; i++)
		if (pread(fd, buf, len, (off_t)(rand_r(seed) % nchunks) * (off_t)len) !=
		    (ssize_t)len)
			die("pread");
	return (now_us() - t0) / n;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	size_t len = 64 << 10;
	long n = 500, rounds = 10;
	unsigned int seed = 1;
	struct stat st;
	off_t nchunks;
	double *one, *sc, *ratio;
	char *a, *b;
	int fd, c;

	while ((c = getopt(argc, argv, "l:n:r:")) != -1) {
		if (c == 'l')
			len = strtoul(optarg, NULL, 0);
		else if (c == 'n')
			n = atol(optarg);
		else if (c == 'r')
			rounds = atol(optarg);
		else
			return 2;
	}
	if (optind != argc - 1 || !len || len > HUGE || len % 4096 || n < 1 || rounds < 1) {
		fprintf(stderr, "usage: dioruns FILE [-l LEN] [-n READS_PER_ROUND] [-r ROUNDS]\n");
		return 2;
	}
	fd = open(argv[optind], O_RDONLY | O_DIRECT);
	if (fd < 0 || fstat(fd, &st))
		die(argv[optind]);
	if (st.st_size < (off_t)len) {
		fprintf(stderr, "dioruns: %s is shorter than one read\n", argv[optind]);
		return 1;
	}
	nchunks = st.st_size / (off_t)len;
	a = one_run(len);
	b = iobuf__alloc(len);
	if (!b)
		die("iobuf__alloc");
	one = calloc(rounds, sizeof(*one));
	sc = calloc(rounds, sizeof(*sc));
	ratio = calloc(rounds, sizeof(*ratio));
	if (!one || !sc || !ratio)
		die("calloc");
	printf("len=%zu runs: one-run %zu, scattered %zu\n", len, iobuf__runs(a, len),
	       iobuf__runs(b, len));
	for (long r = 0; r < rounds; r++) {
		/* alternate which goes first: the storage drifts */
		if (r % 2) {
			sc[r] = reads(fd, b, len, nchunks, n, &seed);
			one[r] = reads(fd, a, len, nchunks, n, &seed);
		} else {
			one[r] = reads(fd, a, len, nchunks, n, &seed);
			sc[r] = reads(fd, b, len, nchunks, n, &seed);
		}
		ratio[r] = sc[r] / one[r];
		printf("round %ld: one-run %.1f us, scattered %.1f us, ratio %.3f\n", r, one[r],
		       sc[r], ratio[r]);
	}
	qsort(one, rounds, sizeof(*one), cmp);
	qsort(sc, rounds, sizeof(*sc), cmp);
	qsort(ratio, rounds, sizeof(*ratio), cmp);
	printf("median: one-run %.1f us, scattered %.1f us a read, scattered / one-run %.3f\n",
	       one[rounds / 2], sc[rounds / 2], ratio[rounds / 2]);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The accuracy workloads (DESIGN §7): small, storage-bound programs whose run
 * time the replay must predict on another storage configuration.
 *
 *   work prep DIR THREADS MB      create DIR/fN, one MB-sized file per thread
 *   work readers DIR THREADS N    ARTC's parallel readers: each thread preads N
 *                                 random 4 KiB blocks of its own file, O_DIRECT
 *   work pseudosync DIR THREADS N //TRACE's PseudoSync: each thread writes a
 *                                 4 KiB block and fdatasyncs it, then all meet
 *                                 at a barrier; N rounds
 *   work fitness DIR THREADS N    //TRACE's Fitness: the threads pass a token;
 *                                 the holder reads the next 64 KiB of its own
 *                                 file (O_DIRECT), N turns each
 *
 * Prints the elapsed seconds from the first thread's creation to the last
 * one's join.  bench/accuracy.sh times the whole process instead, as the
 * trace and its replay span it.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "replay/replay.h"

#define BLK   4096
#define CHUNK (64 * 1024)

static const char *dir;
static int nthreads;
static long n;
static pthread_barrier_t bar;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long turn;

/* A workload that fails must say so: the benchmark would only see "-" */
static void die(const char *what)
{
	perror(what);
	exit(1);
}

static int open_own(long k, int flags)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/f%ld", dir, k);
	fd = open(path, flags, 0644);
	if (fd < 0)
		die(path);
	return fd;
}

/*
 * A filled, page-aligned buffer whose pages are not physically contiguous,
 * as the replay's are (replay/iobuf.c): a direct read's time on the VMs'
 * storage depends on how many runs of pages its buffer is in
 * (docs/BENCHMARKS.md), and the page allocator's luck at the start of a run
 * must not decide a row of the accuracy table.
 */
static void *aligned(size_t len)
{
	void *p = iobuf__alloc(len);

	if (!p)
		die("iobuf__alloc");
	return p;
}

static void *readers(void *arg)
{
	long k = (long)arg;
	int fd = open_own(k, O_RDONLY | O_DIRECT);
	off_t blocks = lseek(fd, 0, SEEK_END) / BLK;
	unsigned int seed = k + 1;
	char *buf = aligned(BLK);

	for (long i = 0; i < n; i++)
		if (pread(fd, buf, BLK, (off_t)(rand_r(&seed) % blocks) * BLK) != BLK)
			die("readers: pread");
	close(fd);
	iobuf__free(buf, BLK);
	return NULL;
}

static void *pseudosync(void *arg)
{
	long k = (long)arg;
	int fd = open_own(k, O_WRONLY);
	char *buf = aligned(BLK);

	for (long i = 0; i < n; i++) {
		if (pwrite(fd, buf, BLK, i * BLK) != BLK || fdatasync(fd))
			die("pseudosync: pwrite or fdatasync");
		pthread_barrier_wait(&bar);
	}
	close(fd);
	iobuf__free(buf, BLK);
	return NULL;
}

static void *fitness(void *arg)
{
	long k = (long)arg;
	int fd = open_own(k, O_RDONLY | O_DIRECT);
	off_t chunks = lseek(fd, 0, SEEK_END) / CHUNK;
	char *buf = aligned(CHUNK);

	if (chunks < 1)
		die("fitness: file shorter than one chunk");
	for (long i = 0; i < n; i++) {
		pthread_mutex_lock(&mu);
		while (turn % nthreads != k)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
		/* Round the file: n turns may read more than it holds */
		if (pread(fd, buf, CHUNK, (i % chunks) * CHUNK) != CHUNK)
			die("fitness: pread");
		pthread_mutex_lock(&mu);
		turn++;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	}
	close(fd);
	iobuf__free(buf, CHUNK);
	return NULL;
}

static void prep(long mb)
{
	char *buf = aligned(1 << 20);

	for (long k = 0; k < nthreads; k++) {
		int fd = open_own(k, O_CREAT | O_TRUNC | O_WRONLY);

		for (long m = 0; m < mb; m++) {
			for (size_t i = 0; i < (1 << 20); i += 64)
				buf[i] = (char)(k + m + i);
			if (write(fd, buf, 1 << 20) != 1 << 20)
				die("prep: write");
		}
		fsync(fd);
		close(fd);
	}
	iobuf__free(buf, 1 << 20);
}

int main(int argc, char **argv)
{
	void *(*fn)(void *) = NULL;
	pthread_t th[64];
	struct timespec a, b;

	if (argc != 5 || (nthreads = atoi(argv[3])) < 1 || nthreads > 64) {
		fprintf(stderr, "usage: work prep|readers|pseudosync|fitness DIR THREADS N\n");
		return 2;
	}
	dir = argv[2];
	n = atol(argv[4]);
	if (!strcmp(argv[1], "prep")) {
		prep(n);
		return 0;
	}
	fn = !strcmp(argv[1], "readers")    ? readers :
	     !strcmp(argv[1], "pseudosync") ? pseudosync :
	     !strcmp(argv[1], "fitness")    ? fitness :
					      NULL;
	if (!fn)
		return 2;
	pthread_barrier_init(&bar, NULL, nthreads);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, fn, (void *)i);
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.6f\n", (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
	return 0;
}

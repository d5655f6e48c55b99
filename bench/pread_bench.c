// SPDX-License-Identifier: GPL-2.0
/*
 * pread_bench: the capture microbenchmark of DESIGN §7 / issue 2.
 *
 * T threads (default 2) each do N (default 500000) pread()s of 4 KiB at
 * random 4 KiB-aligned offsets of their own 64 MiB file, which is created
 * if missing and read through once first so every call hits the page cache.
 * Only the pread loop is timed (from a barrier all threads pass to the last
 * join), so a tracer's start-up and the file set-up do not count.
 *
 * Usage: pread_bench [-t THREADS] [-n CALLS_PER_THREAD] [-d DIR]
 * Prints one line: threads=.. calls=.. elapsed_s=.. calls_per_s=..
 *                  user_s=.. sys_s=..   (the process's own CPU, getrusage)
 *                  loop_cpu_s=..        (the threads' CPU in the timed loop)
 * loop_cpu_s leaves out the file set-up and, on a loaded machine, the time
 * the threads waited for a CPU: it is what a tracer's per-call cost adds to.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BLOCK	  4096
#define FILE_SIZE (64L << 20)
#define NBLOCKS	  (FILE_SIZE / BLOCK)

struct worker {
	pthread_t th;
	int fd;
	long calls;
	uint64_t seed;
	long errors;
	double cpu_s; /* CPU time of the loop */
};

static pthread_barrier_t start_barrier;

static double clock_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "pread_bench: %s %s: %s\n", what, path ? path : "", strerror(errno));
	exit(1);
}

/* Create (or reuse) a FILE_SIZE file and read it once so it is cached. */
static int prepare_file(const char *path, int idx)
{
	static char buf[1 << 20];
	struct stat st;
	int fd = open(path, O_RDWR | O_CREAT, 0644);

	if (fd < 0)
		die("open", path);
	if (fstat(fd, &st) < 0)
		die("fstat", path);
	if (st.st_size != FILE_SIZE) {
		/* Distinct non-zero contents, so no sparse or zero-page shortcut. */
		memset(buf, 'a' + idx % 26, sizeof(buf));
		if (ftruncate(fd, 0) < 0)
			die("ftruncate", path);
		for (long off = 0; off < FILE_SIZE; off += sizeof(buf))
			if (pwrite(fd, buf, sizeof(buf), off) != (ssize_t)sizeof(buf))
				die("pwrite", path);
	}
	for (long off = 0; off < FILE_SIZE; off += sizeof(buf))
		if (pread(fd, buf, sizeof(buf), off) != (ssize_t)sizeof(buf))
			die("pread (warm-up)", path);
	return fd;
}

/* xorshift64*: cheap enough not to show next to a 0.5 us syscall. */
static inline uint64_t next_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static void *run(void *arg)
{
	struct worker *w = arg;
	char buf[BLOCK] __attribute__((aligned(BLOCK)));

	double cpu0;

	pthread_barrier_wait(&start_barrier);
	cpu0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	for (long i = 0; i < w->calls; i++) {
		off_t off = (off_t)(next_rand(&w->seed) % NBLOCKS) * BLOCK;

		if (pread(w->fd, buf, BLOCK, off) != BLOCK)
			w->errors++;
	}
	w->cpu_s = clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = 2, opt;
	long calls = 500000, errors = 0;
	double loop_cpu = 0;
	const char *dir = ".";
	struct rusage ru;

	while ((opt = getopt(argc, argv, "t:n:d:")) != -1) {
		switch (opt) {
		case 't':
			threads = atoi(optarg);
			break;
		case 'n':
			calls = atol(optarg);
			break;
		case 'd':
			dir = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-t THREADS] [-n CALLS] [-d DIR]\n", argv[0]);
			return 2;
		}
	}
	if (threads < 1 || calls < 1) {
		fprintf(stderr, "pread_bench: threads and calls must be positive\n");
		return 2;
	}

	struct worker *w = calloc(threads, sizeof(*w));
	if (!w)
		die("calloc", NULL);
	for (int i = 0; i < threads; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/pread_bench.%d", dir, i);
		w[i].fd = prepare_file(path, i);
		w[i].calls = calls;
		w[i].seed = 0x9E3779B97F4A7C15ULL * (i + 1);
	}

	/* threads + 1: main passes the barrier too, and starts the clock then. */
	pthread_barrier_init(&start_barrier, NULL, threads + 1);
	for (int i = 0; i < threads; i++)
		if ((errno = pthread_create(&w[i].th, NULL, run, &w[i])))
			die("pthread_create", NULL);
	pthread_barrier_wait(&start_barrier);
	double t0 = now();
	for (int i = 0; i < threads; i++) {
		pthread_join(w[i].th, NULL);
		errors += w[i].errors;
		loop_cpu += w[i].cpu_s;
	}
	double el = now() - t0;

	getrusage(RUSAGE_SELF, &ru);
	printf("threads=%d calls=%ld elapsed_s=%.6f calls_per_s=%.0f user_s=%.3f sys_s=%.3f "
	       "loop_cpu_s=%.6f\n",
	       threads, calls * threads, el, calls * threads / el,
	       ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, loop_cpu);
	for (int i = 0; i < threads; i++)
		close(w[i].fd);
	free(w);
	if (errors) {
		fprintf(stderr, "pread_bench: %ld short or failed preads\n", errors);
		return 1;
	}
	return 0;
}

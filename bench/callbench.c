// SPDX-License-Identifier: GPL-2.0
/*
 * callbench: one family of calls in a tight loop, for the capture-cost
 * benchmark (bench/cost.sh, issue 22): what a tracer adds to each call.
 *
 * Usage: callbench -m MODE [-n ITERATIONS] [-d DIR]
 *   pread     4 KiB pread at random offsets of a cached 16 MiB file in DIR
 *   pwrite    4 KiB pwrite at random offsets of the same (page cache only)
 *   sendrecv  64-byte send then recv over an AF_UNIX socketpair: 2 calls
 *   epoll     epoll_wait, timeout 0, on an always-ready eventfd
 *   futex     two threads handing a token back and forth with FUTEX_WAKE
 *             and FUTEX_WAIT: a wake and a wait per hand-over, each a switch
 *   null      getppid: what any syscall pays
 *   ctxsw     two processes pinned to one CPU ping-ponging a byte over two
 *             pipes: a hop is a write, a read and a context switch
 * Only the loop is timed.  Prints one line:
 *   mode=.. calls=.. elapsed_s=.. loop_cpu_s=..
 * calls counts syscalls (hops for ctxsw); loop_cpu_s is the CPU time of the
 * loop's threads (both processes for ctxsw), which leaves out the time spent
 * waiting for a CPU on a loaded machine.  A bench tool, not part of iotrace.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BLOCK	  4096
#define FILE_SIZE (16L << 20)

static long iters = 200000;
static const char *dir = ".";
static int file_fd = -1; /* the cached file of pread and pwrite, opened before the clock */

static double clock_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "callbench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

/* A FILE_SIZE file in DIR, written and read through once so it is cached. */
static int file__cached(void)
{
	static char buf[1 << 20];
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/callbench.dat", dir);
	fd = open(path, O_RDWR | O_CREAT, 0644);
	if (fd < 0)
		die(path);
	memset(buf, 'c', sizeof(buf));
	for (long off = 0; off < FILE_SIZE; off += sizeof(buf))
		if (pwrite(fd, buf, sizeof(buf), off) != sizeof(buf) ||
		    pread(fd, buf, sizeof(buf), off) != sizeof(buf))
			die("preparing the file");
	return fd;
}

static long run_file(int write)
{
	static char buf[BLOCK];
	uint64_t seed = 0x9E3779B97F4A7C15ULL;
	int fd = file_fd;

	for (long i = 0; i < iters; i++) {
		off_t off = (off_t)(next_rand(&seed) % (FILE_SIZE / BLOCK)) * BLOCK;
		ssize_t n = write ? pwrite(fd, buf, BLOCK, off) : pread(fd, buf, BLOCK, off);

		if (n != BLOCK)
			die(write ? "pwrite" : "pread");
	}
	return iters;
}

static long run_sendrecv(void)
{
	char buf[64] = { 0 };
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		die("socketpair");
	for (long i = 0; i < iters; i++)
		if (send(sv[0], buf, sizeof(buf), 0) != sizeof(buf) ||
		    recv(sv[1], buf, sizeof(buf), 0) != sizeof(buf))
			die("send or recv");
	return 2 * iters;
}

static long run_epoll(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(0), efd = eventfd(1, 0);

	if (ep < 0 || efd < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev) < 0)
		die("epoll and eventfd");
	for (long i = 0; i < iters; i++)
		if (epoll_wait(ep, &ev, 1, 0) != 1)
			die("epoll_wait");
	return iters;
}

static long run_null(void)
{
	for (long i = 0; i < iters; i++)
		syscall(SYS_getppid);
	return iters;
}

static _Atomic uint32_t token; /* whose turn: 0 main, 1 the other thread */
static _Atomic long futex_calls;
static double peer_cpu;

static long futex(_Atomic uint32_t *uaddr, int op, uint32_t val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

/* Wait for the token to be ME, then hand it to the other side. */
static long futex__pass(uint32_t me, long rounds)
{
	long calls = 0;

	for (long i = 0; i < rounds; i++) {
		while (token != me) {
			futex(&token, FUTEX_WAIT_PRIVATE, !me);
			calls++;
		}
		token = !me;
		futex(&token, FUTEX_WAKE_PRIVATE, 1);
		calls++;
	}
	return calls;
}

static void *futex__peer(void *arg)
{
	double cpu0 = clock_s(CLOCK_THREAD_CPUTIME_ID);

	futex_calls += futex__pass(1, *(long *)arg);
	peer_cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	return NULL;
}

static long run_futex(void)
{
	pthread_t th;
	long rounds = iters / 2;

	if ((errno = pthread_create(&th, NULL, futex__peer, &rounds)))
		die("pthread_create");
	futex_calls += futex__pass(0, rounds);
	pthread_join(th, NULL);
	return futex_calls;
}

static void cpu__pin(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(sched_getcpu(), &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		die("sched_setaffinity");
}

/* Echo a byte from IN to OUT, ROUNDS times; then send back the CPU it took. */
static void ctxsw__child(int in, int out, int res, long rounds)
{
	double cpu0 = clock_s(CLOCK_THREAD_CPUTIME_ID), cpu;
	char c;

	for (long i = 0; i < rounds; i++)
		if (read(in, &c, 1) != 1 || write(out, &c, 1) != 1)
			_exit(1);
	cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	_exit(write(res, &cpu, sizeof(cpu)) != sizeof(cpu));
}

static long run_ctxsw(void)
{
	int a[2], b[2], r[2], status;
	long rounds = iters / 2;
	char c = 'x';
	pid_t pid;

	cpu__pin();
	if (pipe(a) < 0 || pipe(b) < 0 || pipe(r) < 0)
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0)
		ctxsw__child(a[0], b[1], r[1], rounds);
	for (long i = 0; i < rounds; i++)
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			die("the pipe ping-pong");
	if (read(r[0], &peer_cpu, sizeof(peer_cpu)) != sizeof(peer_cpu) ||
	    waitpid(pid, &status, 0) < 0 || status)
		die("the ping-pong's other process");
	return 2 * rounds;
}

static long run(const char *mode)
{
	if (!strcmp(mode, "pread") || !strcmp(mode, "pwrite"))
		return run_file(mode[1] == 'w');
	if (!strcmp(mode, "sendrecv"))
		return run_sendrecv();
	if (!strcmp(mode, "epoll"))
		return run_epoll();
	if (!strcmp(mode, "futex"))
		return run_futex();
	if (!strcmp(mode, "null"))
		return run_null();
	if (!strcmp(mode, "ctxsw"))
		return run_ctxsw();
	fprintf(stderr, "callbench: unknown mode %s\n", mode);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *mode = NULL;
	double t0, cpu0, el, cpu;
	long calls;
	int opt;

	while ((opt = getopt(argc, argv, "m:n:d:")) != -1) {
		switch (opt) {
		case 'm':
			mode = optarg;
			break;
		case 'n':
			iters = atol(optarg);
			break;
		case 'd':
			dir = optarg;
			break;
		default:
			mode = NULL;
			optind = argc;
			break;
		}
	}
	if (!mode || iters < 2 || optind != argc) {
		fprintf(stderr, "usage: callbench -m pread|pwrite|sendrecv|epoll|futex|null|ctxsw "
				"[-n ITERATIONS] [-d DIR]\n");
		return 2;
	}
	if (!strcmp(mode, "pread") || !strcmp(mode, "pwrite"))
		file_fd = file__cached();
	t0 = clock_s(CLOCK_MONOTONIC);
	cpu0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	calls = run(mode);
	cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu0 + peer_cpu;
	el = clock_s(CLOCK_MONOTONIC) - t0;
	printf("mode=%s calls=%ld elapsed_s=%.6f loop_cpu_s=%.6f\n", mode, calls, el, cpu);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The compute floor: the on-CPU time a traced thread shows between two calls
 * when it does nothing between them.  It is the kernel's syscall exit and
 * entry and the tracer's own programs, all of which a replay pays again its
 * own way, so analyze takes it off every call's compute.  Measured once per
 * recording, before any target runs, by a child that makes CALIB_CALLS
 * zero-byte preads of /dev/null in a tight loop while traced; its records
 * never reach the trace.
 *
 * After a call the thread was switched out in, the return to user does more
 * (rseq's update, a CPU back from idle), and a replay that blocks in its own
 * call pays that again too: the child then sleeps CALIB_SWITCHES times, a
 * zero-byte pread after each, and the preads that follow a sleep it left the
 * CPU in give the floor after a switch.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/stats.h"
#include "loader/bpfsetup.h"
#include "loader/calib.h"

#define CALIB_CALLS    2000
#define CALIB_SWITCHES 500
#define CALIB_SLEEP_NS 20000 /* long enough that the CPU idles */

/* Says it is ready, then waits for the go without a traced call (none may
 * be in progress when it enters the filter), makes the calls and leaves. */
static void calib_child(int *flag)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	char b;

	__atomic_store_n(&flag[0], 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&flag[1], __ATOMIC_ACQUIRE))
		sched_yield();
	for (int i = 0; fd >= 0 && i < CALIB_CALLS; i++)
		if (pread(fd, &b, 0, 0) < 0)
			_exit(1);
	for (int i = 0; fd >= 0 && i < CALIB_SWITCHES; i++) {
		struct timespec ts = { .tv_nsec = CALIB_SLEEP_NS };

		if (nanosleep(&ts, NULL) < 0 || pread(fd, &b, 0, 0) < 0)
			_exit(1);
	}
	_exit(0);
}

int calib__run(struct calib *k, struct capture *cap)
{
	/* [0]: the child is ready, [1]: go */
	int *flag = mmap(NULL, 2 * sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			 -1, 0);
	int e = 0, status;
	pid_t pid;

	memset(k, 0, sizeof(*k));
	if (flag == MAP_FAILED)
		return -errno;
	k->cpu = calloc(CALIB_CALLS, sizeof(*k->cpu));
	k->sw = calloc(CALIB_SWITCHES, sizeof(*k->sw));
	if (!k->cpu || !k->sw) {
		e = -ENOMEM;
		goto out_unmap;
	}
	pid = fork();
	if (pid < 0) {
		e = -errno;
		goto out_unmap;
	}
	if (!pid)
		calib_child(flag);
	while (!__atomic_load_n(&flag[0], __ATOMIC_ACQUIRE))
		sched_yield();
	k->pid = pid;
	e = capture__add_pid(cap, pid);
	__atomic_store_n(&flag[1], 1, __ATOMIC_RELEASE);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
out_unmap:
	munmap(flag, 2 * sizeof(int));
	return e;
}

bool calib__take(struct calib *k, const struct iot_hdr *h)
{
	const struct iot_syscall *sc = (const void *)h;

	if (!k->pid || h->pid != (uint32_t)k->pid)
		return false;
	if (h->type != IOT_REC_SYSCALL || h->size < sizeof(*sc))
		return true;
	if (sc->nr == SYS_pread64 && !(sc->flags & (IOT_SCF_NO_CPU | IOT_SCF_NO_ENTER))) {
		if (!k->switched && k->n < CALIB_CALLS)
			k->cpu[k->n++] = sc->cpu_ns;
		else if (k->switched && k->nsw < CALIB_SWITCHES)
			k->sw[k->nsw++] = sc->cpu_ns;
	}
	/* the records of the child's one thread come in its order */
	k->switched = sc->offcpu_ns > 0;
	return true;
}

/* The median of n samples, 0 when fewer than want / 2 (too few to trust:
 * no correction). */
static uint32_t calib_median(uint64_t *v, uint32_t n, uint32_t want)
{
	uint64_t m;

	if (n < want / 2)
		return 0;
	stats__sort(v, n);
	m = v[n / 2];
	return m > UINT32_MAX ? 0 : m;
}

uint32_t calib__floor_ns(struct calib *k)
{
	return calib_median(k->cpu, k->n, CALIB_CALLS);
}

uint32_t calib__floor_switch_ns(struct calib *k)
{
	return calib_median(k->sw, k->nsw, CALIB_SWITCHES);
}

void calib__free(struct calib *k)
{
	free(k->cpu);
	free(k->sw);
	k->cpu = k->sw = NULL;
}

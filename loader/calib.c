// SPDX-License-Identifier: GPL-2.0
/*
 * The compute floor: the on-CPU time a traced thread shows between two calls
 * when it does nothing between them.  It is the kernel's syscall exit and
 * entry and the tracer's own programs, all of which a replay pays again its
 * own way, so analyze takes it off every call's compute.  Measured once per
 * recording, before any target runs, by a child that makes CALIB_CALLS
 * zero-byte preads of /dev/null in a tight loop while traced; its records
 * never reach the trace.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/stats.h"
#include "loader/bpfsetup.h"
#include "loader/calib.h"

#define CALIB_CALLS 2000

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
			break;
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
	if (!k->cpu) {
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
	if (h->type == IOT_REC_SYSCALL && h->size >= sizeof(*sc) && sc->nr == SYS_pread64 &&
	    !(sc->flags & (IOT_SCF_NO_CPU | IOT_SCF_NO_ENTER)) && k->n < CALIB_CALLS)
		k->cpu[k->n++] = sc->cpu_ns;
	return true;
}

uint32_t calib__floor_ns(struct calib *k)
{
	uint64_t m;

	/* too few calls seen to trust a median: no correction */
	if (k->n < CALIB_CALLS / 2)
		return 0;
	stats__sort(k->cpu, k->n);
	m = k->cpu[k->n / 2];
	return m > UINT32_MAX ? 0 : m;
}

void calib__free(struct calib *k)
{
	free(k->cpu);
	k->cpu = NULL;
}

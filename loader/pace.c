// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder's CPU comes in bursts: every poll it drains the ring,
 * compresses and writes.  At the recorder's own policy such a burst, woken
 * on the CPU of a traced server, preempts the server for as long as it
 * lasts, and the requests that arrive meanwhile wait: at half of
 * saturation redis's p99 went from ~0.1 to ~2 ms (docs/BENCHMARKS.md).  So
 * the drain runs as SCHED_IDLE, on CPU time nothing else wants.
 *
 * An idle-policy thread is not run at all while every CPU is busy, so it
 * cannot notice itself that it fell behind (a recorder that tried lost
 * 800,000 events under nginx at saturation).  The watcher can: a thread
 * above the fray (watcher_start) that sleeps WATCH_MS at a time, reads how full
 * the ring is from its mapped positions, lifts the drain back to the
 * recorder's policy once it holds LIFT_DIV-th of the ring, and lets it go
 * idle again once the ring has stayed nearly empty for CALM_NS.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"
#include "loader/pace.h"

#define WATCH_MS 4
#define LIFT_DIV 16	     /* lift at a 16th of the ring: 4 MiB of the default 64 */
#define CALM_DIV 256	     /* nearly empty: under a 256th */
#define CALM_NS	 50000000ull /* for 50 ms */

struct pace {
	pthread_t thread;
	pid_t drain;   /* the draining thread's tid */
	pid_t watcher; /* the watcher's tid, once it runs */
	int policy;    /* its own policy, to be lifted back to */
	struct sched_param param;
	const volatile uint64_t *cons, *prod; /* the ring's positions, mapped */
	void *map;
	size_t map_len, ring_bytes;
	volatile bool stop;
	bool idle;
};

static uint64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Whether this process may leave SCHED_IDLE for its policy again: what the
 * kernel asks (can_nice), CAP_SYS_NICE or an RLIMIT_NICE that allows its nice. */
static bool may_leave_idle(void)
{
	struct rlimit rl;
	char line[256];
	bool cap = false;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7))
			cap = strtoull(line + 7, NULL, 16) & (1ull << 23 /* CAP_SYS_NICE */);
	if (f)
		fclose(f);
	return cap || (!getrlimit(RLIMIT_NICE, &rl) &&
		       (rl.rlim_cur == RLIM_INFINITY ||
			20 - getpriority(PRIO_PROCESS, 0) <= (long)rl.rlim_cur));
}

static int set_idle(struct pace *p, bool idle)
{
	static const struct sched_param zero;

	if (sched_setscheduler(p->drain, idle ? SCHED_IDLE : p->policy, idle ? &zero : &p->param))
		return -errno;
	p->idle = idle;
	return 0;
}

static uint64_t ring_fill(const struct pace *p)
{
	uint64_t prod = __atomic_load_n(p->prod, __ATOMIC_ACQUIRE);
	uint64_t cons = __atomic_load_n(p->cons, __ATOMIC_ACQUIRE);

	return prod - cons;
}

static void *watch(void *arg)
{
	struct pace *p = arg;
	const struct timespec nap = { .tv_nsec = WATCH_MS * 1000000l };
	uint64_t calm_since = 0;
	int e;

	__atomic_store_n(&p->watcher, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	e = set_idle(p, true);
	if (e) {
		warn("cannot set the recorder's scheduling policy: %s", strerror(-e));
		return NULL;
	}
	while (!p->stop) {
		uint64_t fill, now;

		nanosleep(&nap, NULL);
		fill = ring_fill(p);
		if (p->idle && fill >= p->ring_bytes / LIFT_DIV) {
			e = set_idle(p, false);
			if (e) {
				warn("cannot give the recorder its scheduling policy back, it may "
				     "fall behind: %s",
				     strerror(-e));
				break;
			}
			calm_since = 0;
			continue;
		}
		if (p->idle || fill >= p->ring_bytes / CALM_DIV) {
			calm_since = 0;
			continue;
		}
		now = mono_now();
		if (!calm_since)
			calm_since = now;
		else if (now - calm_since >= CALM_NS && set_idle(p, true))
			break;
	}
	return NULL;
}

static bool pace_wanted(struct pace *p)
{
	const char *no = getenv("IOTRACE_RECORD_NO_IDLE");

	p->policy = sched_getscheduler(0);
	if (no && *no && strcmp(no, "0"))
		return false;
	if (p->policy != SCHED_OTHER && p->policy != SCHED_BATCH)
		return false;
	return !sched_getparam(0, &p->param) && may_leave_idle();
}

/* The watcher runs at the drain's own policy, not the idle one it would inherit. */
static int watcher_create(struct pace *p, int policy, const struct sched_param *param)
{
	pthread_attr_t attr;
	int e = pthread_attr_init(&attr);

	if (e)
		return e;
	e = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	if (!e)
		e = pthread_attr_setschedpolicy(&attr, policy);
	if (!e)
		e = pthread_attr_setschedparam(&attr, param);
	if (!e) {
		sigset_t all, old;

		/* signals go to the drain, whose poll they cut short */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		e = pthread_create(&p->thread, &attr, watch, p);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	pthread_attr_destroy(&attr);
	return e;
}

/*
 * On a host whose CPUs are all busy a watcher at the normal policy waited up
 * to 36 ms for a CPU after its nap, long enough for a small ring to fill; at
 * the lowest real-time priority it runs when its nap ends.  It takes a few
 * microseconds every WATCH_MS.  Without the right to it, it runs at the
 * drain's own policy.
 */
static int watcher_start(struct pace *p)
{
	const struct sched_param rt = { .sched_priority = 1 };

	if (!watcher_create(p, SCHED_FIFO, &rt))
		return 0;
	return watcher_create(p, p->policy, &p->param);
}

struct pace *pace__start(int ring_fd, size_t ring_bytes)
{
	struct pace *p = calloc(1, sizeof(*p));
	long page = sysconf(_SC_PAGESIZE);
	int e;

	if (!p || !pace_wanted(p))
		goto keep;
	/* the consumer's page, then the producer's: read-only is allowed for both */
	p->map_len = 2 * page;
	p->map = mmap(NULL, p->map_len, PROT_READ, MAP_SHARED, ring_fd, 0);
	if (p->map == MAP_FAILED) {
		dbg("ring positions not mapped, the recorder keeps its policy: %s",
		    strerror(errno));
		p->map = NULL;
		goto keep;
	}
	p->cons = p->map;
	p->prod = (const volatile uint64_t *)((char *)p->map + page);
	p->ring_bytes = ring_bytes;
	p->drain = syscall(SYS_gettid);
	/* Only the watcher sets the drain's policy, from its first act on: made
	 * by a drain already idle, it might wait for a CPU as long as the drain. */
	e = watcher_start(p);
	if (!e)
		return p;
	warn("no watcher for the recorder's pace, it keeps its policy: %s", strerror(e));
keep:
	if (p && p->map)
		munmap(p->map, p->map_len);
	free(p);
	return NULL;
}

pid_t pace__watcher(const struct pace *p)
{
	return p ? __atomic_load_n(&p->watcher, __ATOMIC_ACQUIRE) : 0;
}

void pace__stop(struct pace *p)
{
	if (!p)
		return;
	p->stop = true;
	pthread_join(p->thread, NULL);
	/* the last drain and the summary at full speed */
	if (p->idle) {
		int e = set_idle(p, false);

		if (e)
			warn("cannot give the recorder its scheduling policy back: %s",
			     strerror(-e));
	}
	munmap(p->map, p->map_len);
	free(p);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The replayer's plan and executor on hand-written annotated traces: deps
 * become op indexes, orders change them as documented, threads get their
 * programs, and under many threads every dep is released in order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <CUnit/Basic.h>

#include "replay/graph.h"
#include "replay/replay.h"

/* Writes lines to a temp file and loads and compiles it with opts. */
static int plan_with(struct rp_plan *p, const char *text, const struct rp_opts *opts)
{
	char path[] = "/tmp/iotrace-test-replay.XXXXXX";
	int fd = mkstemp(path), err;

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	memset(p, 0, sizeof(*p));
	err = parse__file(p, path);
	if (!err)
		err = compile__plan(p, opts);
	unlink(path);
	return err;
}

/* ... in order o. */
static int plan_of(struct rp_plan *p, const char *text, enum rp_order o)
{
	struct rp_opts opts = { .timing = RT_AFAP, .order = o, .speed = 1, .root = "/nonexistent" };

	return plan_with(p, text, &opts);
}

#define HDR(n)                                                                                     \
	"{\"type\":\"header\",\"version\":1,\"events\":" #n ",\"threads\":[{\"tid\":1,\"pid\":1}," \
	"{\"tid\":2,\"pid\":1}],\"processes\":[{\"pid\":1,\"ppid\":0}],\"files\":[]}\n"

/* futex waits replay as their deps: a pure dependency graph, no sandbox */
#define FUTEX(id, tid, ts, deps)                                                            \
	"{\"type\":\"event\",\"id\":" #id ",\"pid\":1,\"tid\":" #tid ",\"call\":\"futex\"," \
	"\"args\":{\"uaddr\":4096,\"futex_op\":128,\"val\":0},\"ret\":0,\"ts\":" #ts        \
	",\"dur\":10,\"compute_ns\":0,\"deps\":[" deps "]}\n"

static const char two_threads[] =
	HDR(4) FUTEX(0, 1, 100, "") FUTEX(1, 2, 110, "{\"id\":0,\"kind\":\"wakeup\"}")
		FUTEX(2, 1, 120, "") FUTEX(3, 2, 130, "{\"id\":2,\"kind\":\"wakeup\"}");

static bool has_dep(const struct rp_plan *p, uint32_t op, uint32_t on)
{
	for (uint32_t k = 0; k < p->ops[op].ndeps; k++)
		if ((p->ops[op].deps[k] & ~RP_DEP_START) == on)
			return true;
	return false;
}

static void test_replay__causal_deps(void)
{
	struct rp_plan p;

	CU_ASSERT_FATAL(plan_of(&p, two_threads, RO_CAUSAL) == 0);
	CU_ASSERT_EQUAL(p.nops, 4);
	CU_ASSERT_EQUAL(p.nth, 2);
	CU_ASSERT_EQUAL(p.th[0].nops + p.th[1].nops, 4);
	CU_ASSERT(has_dep(&p, 1, 0));
	CU_ASSERT(has_dep(&p, 3, 2));
	CU_ASSERT_FALSE(has_dep(&p, 2, 1)); /* nothing recorded, nothing invented */
	plan__free(&p);
}

/* //TRACE's think-limited baseline: no deps, every wait held for its recorded
 * time, and the time between two calls of a thread is the recorded wall gap. */
static void test_replay__order_think(void)
{
	struct rp_plan p;

	CU_ASSERT_FATAL(plan_of(&p, two_threads, RO_THINK) == 0);
	for (uint32_t i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(p.ops[i].ndeps, 0);
		CU_ASSERT(p.ops[i].hold); /* futex waits, explained or not */
	}
	CU_ASSERT_EQUAL(p.ops[0].compute, 0);  /* a thread's first call keeps its own */
	CU_ASSERT_EQUAL(p.ops[2].compute, 10); /* 120 - (100 + 10) */
	CU_ASSERT_EQUAL(p.ops[3].compute, 10); /* 130 - (110 + 10) */
	plan__free(&p);
	CU_ASSERT_FATAL(plan_of(&p, two_threads, RO_CAUSAL) == 0);
	CU_ASSERT_FALSE(p.ops[1].hold); /* explained by its dep */
	CU_ASSERT_EQUAL(p.ops[2].compute, 0);
	plan__free(&p);
}

static void test_replay__order_none_and_temporal(void)
{
	struct rp_plan p;

	CU_ASSERT_FATAL(plan_of(&p, two_threads, RO_NONE) == 0);
	for (uint32_t i = 0; i < p.nops; i++)
		for (uint32_t k = 0; k < p.ops[i].ndeps; k++)
			CU_ASSERT_EQUAL(p.ops[p.ops[i].deps[k] & ~RP_DEP_START].tidx,
					p.ops[i].tidx);
	plan__free(&p);

	/* temporal: each call after the one before it in trace order, any thread */
	CU_ASSERT_FATAL(plan_of(&p, two_threads, RO_TEMPORAL) == 0);
	CU_ASSERT(has_dep(&p, 1, 0));
	CU_ASSERT(has_dep(&p, 2, 1));
	CU_ASSERT(has_dep(&p, 3, 2));
	plan__free(&p);
}

/* A dep on a later call of the same thread's future would deadlock: dropped. */
static void test_replay__deadlock_dropped(void)
{
	static const char cyc[] = HDR(4) FUTEX(0, 1, 100, "{\"id\":3,\"kind\":\"wakeup\"}")
		FUTEX(1, 2, 110, "{\"id\":0,\"kind\":\"wakeup\"}") FUTEX(2, 1, 120, "")
			FUTEX(3, 2, 130, "");
	struct rp_plan p;

	CU_ASSERT_FATAL(plan_of(&p, cyc, RO_CAUSAL) == 0);
	/* 0 waits for 3, which follows 1, which waits for 0: one of them must go */
	CU_ASSERT_FALSE(has_dep(&p, 0, 3) && has_dep(&p, 1, 0));
	plan__free(&p);
}

static void test_replay__bad_input(void)
{
	struct rp_plan p;

	CU_ASSERT_NOT_EQUAL(plan_of(&p, "{\"type\":\"other\"}\n", RO_CAUSAL), 0);
	plan__free(&p);
	CU_ASSERT_NOT_EQUAL(plan_of(&p, HDR(1) "{\"type\":\"event\",\"id\":", RO_CAUSAL), 0);
	plan__free(&p);
	/* a dep on an event that does not exist: dropped, never dangling */
	CU_ASSERT_EQUAL_FATAL(
		plan_of(&p, HDR(1) FUTEX(0, 1, 100, "{\"id\":7,\"kind\":\"data\"}"), RO_CAUSAL), 0);
	for (uint32_t k = 0; k < p.ops[0].ndeps; k++)
		CU_ASSERT((p.ops[0].deps[k] & ~RP_DEP_START) < p.nops);
	plan__free(&p);
}

/*
 * 16 threads, a chain of deps that hops thread at every call: the executor
 * must release each dep, in order, with no call issued before its dep ended.
 */
static void test_replay__release_under_many_threads(void)
{
	const uint32_t nthreads = 16, nev = 16 * 500;
	size_t cap = 64 + (size_t)nev * 256, len = 0;
	char *text = malloc(cap);
	struct rp_opts opts = { .timing = RT_AFAP,
				.order = RO_CAUSAL,
				.speed = 1,
				.root = "/nonexistent",
				.stall_sec = 30 };
	struct rp_run r = { 0 };
	struct rp_plan p;

	CU_ASSERT_FATAL(text != NULL);
	len += snprintf(text + len, cap - len,
			"{\"type\":\"header\",\"version\":1,\"events\":%u,\"threads\":[", nev);
	for (uint32_t t = 0; t < nthreads; t++)
		len += snprintf(text + len, cap - len, "%s{\"tid\":%u,\"pid\":1}", t ? "," : "",
				t + 1);
	len += snprintf(text + len, cap - len,
			"],\"processes\":[{\"pid\":1,\"ppid\":0}],\"files\":[]}\n");
	for (uint32_t i = 0; i < nev; i++) {
		char dep[64] = "";

		if (i)
			snprintf(dep, sizeof(dep), "{\"id\":%u,\"kind\":\"wakeup\"}", i - 1);
		len += snprintf(
			text + len, cap - len,
			"{\"type\":\"event\",\"id\":%u,\"pid\":1,\"tid\":%u,\"call\":\"futex\","
			"\"args\":{\"uaddr\":4096,\"futex_op\":128,\"val\":0},\"ret\":0,"
			"\"ts\":%u,\"dur\":1,\"compute_ns\":0,\"deps\":[%s]}\n",
			i, i % nthreads + 1, 100 + i * 10, dep);
	}
	CU_ASSERT_FATAL(plan_of(&p, text, RO_CAUSAL) == 0);
	CU_ASSERT_EQUAL_FATAL(p.nth, nthreads);
	CU_ASSERT_EQUAL_FATAL(exec__run(&p, &opts, &r), 0);
	for (uint32_t i = 1; i < p.nops; i++) {
		CU_ASSERT_EQUAL(p.ops[i].state & RS_MASK, RS_DONE);
		if (p.ops[i].t_issue < p.ops[i - 1].t_end) {
			CU_FAIL("a call was issued before its dep ended");
			break;
		}
	}
	free(r.lag);
	plan__free(&p);
	free(text);
}

/* One event of thread TID: CALL with no arguments that matter. */
#define EV(id, tid, call, ts, dur, compute, deps)                                              \
	"{\"type\":\"event\",\"id\":" #id ",\"pid\":1,\"tid\":" #tid ",\"call\":\"" call "\"," \
	"\"args\":{\"uaddr\":4096,\"futex_op\":128,\"val\":0},\"ret\":0,\"ts\":" #ts           \
	",\"dur\":" #dur ",\"compute_ns\":" #compute ",\"deps\":[" deps "]}\n"

static int run_natural(struct rp_plan *p, struct rp_run *r)
{
	struct rp_opts opts = { .timing = RT_NATURAL,
				.order = RO_CAUSAL,
				.speed = 1,
				.root = "/nonexistent",
				.stall_sec = 30 };

	memset(r, 0, sizeof(*r));
	return exec__run(p, &opts, r);
}

/* The replayer's own cost that a compute spin leaves out (exec.c OVH_MAX). */
#define OVH_MAX_NS 5000

/* Natural timing: a call with a recorded compute of N starts no earlier than
 * N after the thread's previous call ended, less the replayer's own cost. */
static void test_replay__natural_compute_lower_bound(void)
{
	static const char text[] =
		HDR(2) EV(0, 1, "brk", 100, 10, 0, "") EV(1, 1, "brk", 200, 10, 20000000, "");
	struct rp_plan p;
	struct rp_run r;

	CU_ASSERT_FATAL(plan_of(&p, text, RO_CAUSAL) == 0);
	CU_ASSERT_EQUAL_FATAL(run_natural(&p, &r), 0);
	CU_ASSERT(p.ops[1].t_issue + OVH_MAX_NS >= p.ops[0].t_end + 20000000);
	CU_ASSERT(p.th[0].compute > 0);
	free(r.lag);
	plan__free(&p);
}

/*
 * Natural timing is not a timestamp replay: calls that were slow when
 * recorded (here 40 ms each, 50 ms apart, no compute) and are fast now do
 * not wait for their recorded times: a timestamp replay would take 200 ms of
 * the trace's 240, this one takes what five calls take.
 */
static void test_replay__natural_faster_than_slow_trace(void)
{
	static const char text[] = HDR(5) EV(0, 1, "brk", 0, 40000000, 0, "")
		EV(1, 1, "brk", 50000000, 40000000, 0, "")
			EV(2, 1, "brk", 100000000, 40000000, 0, "")
				EV(3, 1, "brk", 150000000, 40000000, 0, "")
					EV(4, 1, "brk", 200000000, 40000000, 0, "");
	struct rp_plan p;
	struct rp_run r;

	CU_ASSERT_FATAL(plan_of(&p, text, RO_CAUSAL) == 0);
	CU_ASSERT_EQUAL(p.trace_wall, 240000000);
	CU_ASSERT_EQUAL_FATAL(run_natural(&p, &r), 0);
	CU_ASSERT(r.wall < p.trace_wall / 2);
	free(r.lag);
	plan__free(&p);
}

/*
 * A wait with no traced waker keeps its recorded duration, from the end of
 * the thread's previous call (two threads on 2 CPUs: the hold only sleeps,
 * to the learned margin, so it may end up to OVERSLEEP_MAX, 0.5 ms, early);
 * a wait with a dep is its dep, and storage I/O and futex wakes are never
 * held.  Which calls are held does not depend on the
 * order (but think's, which holds every wait: test_replay__order_think).
 */
static void test_replay__unexplained_wait_held(void)
{
	static const char text[] =
		HDR(5) EV(0, 1, "brk", 100, 10, 0, "") EV(1, 1, "futex", 200, 30000000, 0, "")
			EV(2, 2, "futex", 300, 30000000, 0, "{\"id\":0,\"kind\":\"wakeup\"}")
				EV(3, 2, "pread64", 400, 30000000, 0, "")
		/* FUTEX_WAKE_PRIVATE never blocks: its time is the kernel's work */
		"{\"type\":\"event\",\"id\":4,\"pid\":1,\"tid\":2,\"call\":\"futex\","
		"\"args\":{\"uaddr\":4096,\"futex_op\":129,\"val\":1},\"ret\":1,\"ts\":500,"
		"\"dur\":30000000,\"compute_ns\":0,\"deps\":[]}\n";
	struct rp_plan p;
	struct rp_run r;

	CU_ASSERT_FATAL(plan_of(&p, text, RO_NONE) == 0);
	CU_ASSERT_TRUE(p.ops[1].hold);
	CU_ASSERT_FALSE(p.ops[2].hold);
	CU_ASSERT_FALSE(p.ops[3].hold);
	CU_ASSERT_FALSE(p.ops[4].hold);
	plan__free(&p);

	CU_ASSERT_FATAL(plan_of(&p, text, RO_CAUSAL) == 0);
	CU_ASSERT_TRUE(p.ops[1].hold);
	CU_ASSERT_FALSE(p.ops[2].hold);
	CU_ASSERT_EQUAL_FATAL(run_natural(&p, &r), 0);
	CU_ASSERT(p.ops[1].t_end >= p.ops[0].t_end + 30000000 - 500000);
	CU_ASSERT(p.ops[2].t_issue >= p.ops[0].t_end);
	CU_ASSERT(p.th[0].hold > 0);
	free(r.lag);
	plan__free(&p);
}

/*
 * A periodic thread: thread 1's first wait timed out after 200 ms (a timer),
 * its second was woken by thread 2.  Replayed, thread 2 wakes it at once:
 * the timer ends with the wake instead of lasting its 200 ms.  --order none
 * has no deps, so no wake to end it.
 */
static void test_replay__timed_out_wait_cut(void)
{
	static const char text[] = HDR(
		3) "{\"type\":\"event\",\"id\":0,\"pid\":1,\"tid\":1,\"call\":\"futex\","
		   "\"args\":{\"uaddr\":4096,\"futex_op\":393,\"val\":0},\"ret\":-110,\"ts\":100,"
		   "\"dur\":200000000,\"compute_ns\":0,\"deps\":[]}\n" EV(1, 2, "brk", 200, 10, 0,
									  "")
			   EV(2, 1, "futex", 200000200, 10, 0, "{\"id\":1,\"kind\":\"wakeup\"}");
	struct rp_plan p;
	struct rp_run r;

	CU_ASSERT_FATAL(plan_of(&p, text, RO_CAUSAL) == 0);
	CU_ASSERT_TRUE(p.ops[0].hold);
	CU_ASSERT_EQUAL(p.ops[0].a[3], 2);
	CU_ASSERT_EQUAL(p.ops[2].a[3], -1);
	CU_ASSERT_EQUAL_FATAL(run_natural(&p, &r), 0);
	CU_ASSERT(p.ops[0].t_end < p.ops[0].t_issue + 100000000);
	CU_ASSERT(p.ops[0].t_end >= p.ops[1].t_end);
	free(r.lag);
	plan__free(&p);

	CU_ASSERT_FATAL(plan_of(&p, text, RO_NONE) == 0);
	CU_ASSERT_TRUE(p.ops[0].hold);
	CU_ASSERT_EQUAL(p.ops[0].a[3], -1);
	plan__free(&p);
}

/* A poll of thread 1 with TIMEOUT (ms) that returned RET after DUR. */
#define POLL(id, ts, dur, timeout, ret)                                                            \
	"{\"type\":\"event\",\"id\":" #id ",\"pid\":1,\"tid\":1,\"call\":\"poll\","                \
	"\"args\":{\"fds\":4096,\"nfds\":5,\"timeout\":" #timeout "},\"ret\":" #ret ",\"ts\":" #ts \
	",\"dur\":" #dur ",\"compute_ns\":0,\"compute_src\":\"spin\",\"deps\":[]}\n"

/*
 * Open MPI's progress loop: polls with timeout 0, a busy wait's turns, then
 * the one that found the message.  They cannot block, so none is held (nor
 * is it a timer that a later wait's deps cut): held, each slept the timer's
 * minimum, some 8 us, instead of the microsecond it took, and a rank's tens
 * of thousands of them made its replay twice the trace.  A poll that may
 * block (timeout -1 or 5 ms) and an epoll_wait with a timeout are held.
 */
static void test_replay__zero_timeout_poll_not_held(void)
{
	static const char text[] = HDR(6) POLL(0, 100, 100000, 0, 0) POLL(
		1, 200200, 100000, 0, 0) POLL(2, 400300, 100000, 0, 1) POLL(3, 600400, 100000, -1,
									    1)
		POLL(4, 800500, 100000, 5,
		     0) "{\"type\":\"event\",\"id\":5,\"pid\":1,\"tid\":1,\"call\":\"epoll_wait\","
			"\"args\":{\"epfd\":7,\"events\":4096,\"maxevents\":32,\"timeout\":0},"
			"\"ret\":0,\"ts\":1000000,\"dur\":100000,\"compute_ns\":0,\"deps\":[]}\n";
	static const char polls[] = HDR(3) POLL(0, 100, 100000, 0, 0) POLL(1, 200200, 100000, 0, 0)
		POLL(2, 400300, 100000, 0, 1);
	struct rp_plan p;
	struct rp_run r;

	CU_ASSERT_FATAL(plan_of(&p, text, RO_CAUSAL) == 0);
	CU_ASSERT_FALSE(p.ops[0].hold);
	CU_ASSERT_FALSE(p.ops[1].hold);
	CU_ASSERT_FALSE(p.ops[2].hold);
	CU_ASSERT_TRUE(p.ops[3].hold);
	CU_ASSERT_TRUE(p.ops[4].hold);
	CU_ASSERT_FALSE(p.ops[5].hold);
	CU_ASSERT_EQUAL(p.ops[0].a[3], -1);
	plan__free(&p);

	/* replayed, the zero-timeout ones are not held at all */
	CU_ASSERT_FATAL(plan_of(&p, polls, RO_CAUSAL) == 0);
	CU_ASSERT_EQUAL_FATAL(run_natural(&p, &r), 0);
	CU_ASSERT_EQUAL(p.th[0].hold, 0);
	free(r.lag);
	plan__free(&p);
}

/*
 * A lazy-wait loop: thread 1 polls (timeout 0) and sleeps 8 ms, three
 * times, for a flag thread 2 set at once (its brk, the call after the loop's
 * dep).  Replayed, the loop ends as soon as the dep is done, and the calls
 * left are not made: the call after it comes at once, not 24 ms later.
 * The baselines' deps are not the flag: there the loop plays in full.
 */
static void test_replay__lazy_wait_loop_ends_with_its_dep(void)
{
	static const char text[] = HDR(8) POLL(0, 100, 1000, 0, 0) EV(1, 2, "brk", 1500, 10, 0, "")
		EV(2, 1, "clock_nanosleep", 2000, 8000000, 0, "") POLL(3, 8003000, 1000, 0, 0)
			EV(4, 1, "clock_nanosleep", 8005000, 8000000, 0, "")
				POLL(5, 16006000, 1000, 0, 0)
					EV(6, 1, "clock_nanosleep", 16008000, 8000000, 0, "")
						EV(7, 1, "brk", 24009000, 10, 0,
						   "{\"id\":1,\"kind\":\"spin\"}");
	static const uint32_t loop[] = { 0, 2, 3, 4, 5, 6 };
	struct rp_plan p;
	struct rp_run r;

	CU_ASSERT_FATAL(plan_of(&p, text, RO_CAUSAL) == 0);
	for (size_t i = 0; i < sizeof(loop) / sizeof(loop[0]); i++)
		CU_ASSERT_EQUAL(p.ops[loop[i]].spin_to, 7);
	CU_ASSERT_EQUAL(p.ops[7].spin_to, RP_NONE);
	CU_ASSERT_EQUAL_FATAL(run_natural(&p, &r), 0);
	CU_ASSERT(p.ops[7].t_end < 8000000);
	CU_ASSERT(p.th[0].sleep < 8000000);
	free(r.lag);
	plan__free(&p);

	CU_ASSERT_FATAL(plan_of(&p, text, RO_TEMPORAL) == 0);
	for (size_t i = 0; i < sizeof(loop) / sizeof(loop[0]); i++)
		CU_ASSERT_EQUAL(p.ops[loop[i]].spin_to, RP_NONE);
	plan__free(&p);
}

/* A futex wake of thread TID waking up to VAL waiters (glibc's barrier and
 * broadcast: INT_MAX; a lock: 1), RET of them woken. */
#define WAKE(id, tid, ts, val, ret)                                                                \
	"{\"type\":\"event\",\"id\":" #id ",\"pid\":1,\"tid\":" #tid ",\"call\":\"futex\","        \
	"\"args\":{\"uaddr\":4096,\"futex_op\":129,\"val\":" #val "},\"ret\":" #ret ",\"ts\":" #ts \
	",\"dur\":5,\"compute_ns\":0,\"deps\":[]}\n"

/*
 * A barrier: thread 2 computes 20 ms, then waits; thread 1 arrives last and
 * wakes it.  The wake waits for the wait to be reached (a start dep), not
 * for it to end, which would deadlock: the wait ends with the wake.  A lock's
 * wake gets nothing, nor does any baseline order, and a rendezvous that would
 * close a cycle is the dep that goes, not the recorded one.
 */
static void test_replay__barrier_rendezvous(void)
{
	static const char barrier[] = HDR(3) EV(0, 2, "brk", 100, 10, 0, "")
		EV(1, 2, "futex", 200, 100, 20000000, "{\"id\":2,\"kind\":\"wakeup\"}")
			WAKE(2, 1, 300, 2147483647, 1);
	static const char lock[] = HDR(3) EV(0, 2, "brk", 100, 10, 0, "")
		EV(1, 2, "futex", 200, 100, 0, "{\"id\":2,\"kind\":\"wakeup\"}")
			WAKE(2, 1, 300, 1, 1);
	static const char cycle[] =
		HDR(3) EV(0, 2, "futex", 100, 10, 0, "{\"id\":2,\"kind\":\"wakeup\"}")
			EV(1, 2, "futex", 200, 100, 0, "{\"id\":2,\"kind\":\"wakeup\"}")
				WAKE(2, 1, 300, 2147483647, 2);
	/* a timer (timed out after 200 ms), then a wait a broadcast ends */
	static const char timer[] = HDR(
		3) "{\"type\":\"event\",\"id\":0,\"pid\":1,\"tid\":1,\"call\":\"futex\","
		   "\"args\":{\"uaddr\":4096,\"futex_op\":393,\"val\":0},\"ret\":-110,\"ts\":100,"
		   "\"dur\":200000000,\"compute_ns\":0,\"deps\":[]}\n" EV(
			   1, 1, "futex", 200000200, 10, 0, "{\"id\":2,\"kind\":\"wakeup\"}")
			   WAKE(2, 2, 200000300, 2147483647, 1);
	struct rp_plan p;
	struct rp_run r;

	CU_ASSERT_FATAL(plan_of(&p, barrier, RO_CAUSAL) == 0);
	CU_ASSERT_EQUAL(p.ops[2].ndeps, 1);
	CU_ASSERT(p.ops[2].ndeps == 1 && p.ops[2].deps[0] == (1 | RP_DEP_START));
	CU_ASSERT_TRUE(p.ops[1].arrive_waited);
	CU_ASSERT_FALSE(p.ops[1].start_waited);
	CU_ASSERT(has_dep(&p, 1, 2));
	CU_ASSERT_EQUAL(p.ops[1].a[3], -1); /* a rendezvous does not cut a timer */
	CU_ASSERT_EQUAL_FATAL(run_natural(&p, &r), 0);
	CU_ASSERT_EQUAL(p.ops[1].state & RS_MASK, RS_DONE);
	CU_ASSERT(p.ops[2].t_issue >= p.ops[1].t_arrive);
	CU_ASSERT(p.ops[1].t_arrive + OVH_MAX_NS >= p.ops[0].t_end + 20000000);
	CU_ASSERT(p.ops[1].t_issue >= p.ops[2].t_end);
	free(r.lag);
	plan__free(&p);

	for (enum rp_order o = RO_TEMPORAL; o <= RO_THINK; o++) {
		CU_ASSERT_FATAL(plan_of(&p, barrier, o) == 0);
		CU_ASSERT_FALSE(p.ops[1].arrive_waited);
		plan__free(&p);
	}
	CU_ASSERT_FATAL(plan_of(&p, lock, RO_CAUSAL) == 0);
	CU_ASSERT_EQUAL(p.ops[2].ndeps, 0);
	CU_ASSERT_FALSE(p.ops[1].arrive_waited);
	plan__free(&p);

	/* the wake cuts the timer short: waiting for the wait after the timer
	 * to be reached would wait the timer out */
	CU_ASSERT_FATAL(plan_of(&p, timer, RO_CAUSAL) == 0);
	CU_ASSERT_EQUAL(p.ops[0].a[3], 1);
	CU_ASSERT_EQUAL(p.ops[2].ndeps, 0);
	CU_ASSERT_FALSE(p.ops[1].arrive_waited);
	CU_ASSERT_EQUAL_FATAL(run_natural(&p, &r), 0);
	CU_ASSERT(p.ops[0].t_end < p.ops[0].t_issue + 100000000);
	free(r.lag);
	plan__free(&p);

	/* thread 2 reaches its second wait only after the wake ends its first */
	CU_ASSERT_FATAL(plan_of(&p, cycle, RO_CAUSAL) == 0);
	CU_ASSERT_EQUAL(p.ops[2].ndeps, 0);
	CU_ASSERT(has_dep(&p, 0, 2));
	CU_ASSERT(has_dep(&p, 1, 2));
	CU_ASSERT_EQUAL_FATAL(run_natural(&p, &r), 0);
	free(r.lag);
	plan__free(&p);
}

/* The latest t_arrive of ops [from, to). */
static uint64_t last_arrival(const struct rp_plan *p, uint32_t from, uint32_t to)
{
	uint64_t t = 0;

	for (uint32_t i = from; i < to; i++)
		t = p->ops[i].t_arrive > t ? p->ops[i].t_arrive : t;
	return t;
}

/* The wake (op 6) of the waits 3-5 ends when the last of them arrives, or,
 * when its own thread comes after them all, after that thread issues it. */
static void check_last_releases(const struct rp_plan *p)
{
	uint64_t last = last_arrival(p, 3, 6);

	if (p->ops[6].t_issue > last) {
		CU_ASSERT(p->ops[6].t_end > last);
	} else {
		CU_ASSERT_EQUAL(p->ops[6].t_end, last);
	}
}

/*
 * A barrier of four threads that a waiter reaches last: the recorded waker
 * (thread 1) arrives at once, the waiters after 5, 10 and 20 ms of compute.
 * The last arrival (thread 4) releases the wake on the waker's behalf, at
 * its arrival, and goes on without sleeping, as the application's last
 * arriver does; the waker's thread, asleep meanwhile, makes no call.  With
 * the waker's compute at 30 ms it is last again and releases it itself.
 */
static void test_replay__barrier_last_arriver(void)
{
#define HDR4                                                                                  \
	"{\"type\":\"header\",\"version\":1,\"events\":7,\"threads\":[{\"tid\":1,\"pid\":1}," \
	"{\"tid\":2,\"pid\":1},{\"tid\":3,\"pid\":1},{\"tid\":4,\"pid\":1}],"                 \
	"\"processes\":[{\"pid\":1,\"ppid\":0}],\"files\":[]}\n"
#define WAITS                                                                   \
	EV(0, 2, "brk", 100, 10, 0, "")                                         \
	EV(1, 3, "brk", 110, 10, 0, "")                                         \
	EV(2, 4, "brk", 120, 10, 0, "")                                         \
	EV(3, 2, "futex", 200, 100, 5000000, "{\"id\":6,\"kind\":\"wakeup\"}")  \
	EV(4, 3, "futex", 210, 100, 10000000, "{\"id\":6,\"kind\":\"wakeup\"}") \
	EV(5, 4, "futex", 220, 100, 20000000, "{\"id\":6,\"kind\":\"wakeup\"}")
	static const char early[] = HDR4 WAITS
		"{\"type\":\"event\",\"id\":6,\"pid\":1,\"tid\":1,\"call\":\"futex\","
		"\"args\":{\"uaddr\":4096,\"futex_op\":129,\"val\":2147483647},\"ret\":3,"
		"\"ts\":300,\"dur\":5,\"compute_ns\":0,\"deps\":[]}\n";
	static const char late[] = HDR4 WAITS
		"{\"type\":\"event\",\"id\":6,\"pid\":1,\"tid\":1,\"call\":\"futex\","
		"\"args\":{\"uaddr\":4096,\"futex_op\":129,\"val\":2147483647},\"ret\":3,"
		"\"ts\":300,\"dur\":5,\"compute_ns\":30000000,\"deps\":[]}\n";
#undef WAITS
#undef HDR4
	struct rp_plan p;
	struct rp_run r;

	CU_ASSERT_FATAL(plan_of(&p, early, RO_CAUSAL) == 0);
	CU_ASSERT_EQUAL(p.ops[6].rdv_n, 3);
	for (uint32_t i = 3; i < 6; i++) {
		CU_ASSERT_TRUE(p.ops[i].arrive_waited);
		CU_ASSERT_EQUAL(p.ops[i].rdv_wake, 6);
	}
	CU_ASSERT_EQUAL_FATAL(run_natural(&p, &r), 0);
	CU_ASSERT_FALSE(r.stalled);
	for (uint32_t i = 0; i < 7; i++)
		CU_ASSERT_EQUAL(p.ops[i].state & RS_MASK, RS_DONE);
	/* released at the last arrival, by the thread that made it: on a busy
	 * machine the threads may arrive in another order than their computes */
	check_last_releases(&p);
	CU_ASSERT(last_arrival(&p, 3, 6) + OVH_MAX_NS >= p.ops[2].t_end + 20000000);
	for (uint32_t i = 3; i < 6; i++)
		CU_ASSERT(p.ops[i].t_issue >= p.ops[6].t_end);
	/* the waker's thread only waited */
	CU_ASSERT(p.th[p.ops[6].tidx].wait + 5000000 >= 20000000);
	free(r.lag);
	plan__free(&p);

	CU_ASSERT_FATAL(plan_of(&p, late, RO_CAUSAL) == 0);
	CU_ASSERT_EQUAL(p.ops[6].rdv_n, 3);
	CU_ASSERT_EQUAL_FATAL(run_natural(&p, &r), 0);
	CU_ASSERT(p.ops[6].t_issue + OVH_MAX_NS >= 30000000);
	check_last_releases(&p);
	for (uint32_t i = 3; i < 6; i++)
		CU_ASSERT(p.ops[i].t_issue >= p.ops[6].t_end);
	free(r.lag);
	plan__free(&p);
}

/* An unlock (FUTEX_WAKE of 1) by thread TID after COMPUTE ns of compute. */
#define UNLOCK(id, tid, ts, compute)                                                        \
	"{\"type\":\"event\",\"id\":" #id ",\"pid\":1,\"tid\":" #tid ",\"call\":\"futex\"," \
	"\"args\":{\"uaddr\":4096,\"futex_op\":129,\"val\":1},\"ret\":1,\"ts\":" #ts        \
	",\"dur\":5,\"compute_ns\":" #compute ",\"deps\":[]}\n"

/* HDR of a trace whose analysis kept lock handovers apart (lock_deps_apart) */
#define HDR_LOCKS(n)                                                                           \
	"{\"type\":\"header\",\"version\":1,\"events\":" #n ",\"lock_deps_apart\":true,"       \
	"\"threads\":[{\"tid\":1,\"pid\":1},{\"tid\":2,\"pid\":1}],\"processes\":[{\"pid\":1," \
	"\"ppid\":0}],\"files\":[]}\n"

/*
 * A lock's collision: thread 2 waited on the mutex (op 1, at 200) that
 * thread 1 held from its op 0 (at 100) to its unlock (op 2).  Its dep binds
 * once thread 1 has started op 0 (the gate); a thread 1 that comes 20 ms
 * late to op 0 has not taken the lock yet, and thread 2 goes first.  A
 * condition's wait (FUTEX_WAIT_BITSET) and the baseline orders keep the
 * recorded order.
 */
static void test_replay__lock_collision_not_order(void)
{
#define LATE                                                             \
	EV(0, 1, "brk", 100, 10, 20000000, "")                           \
	EV(1, 2, "futex", 200, 100, 0, "{\"id\":2,\"kind\":\"wakeup\"}") \
	UNLOCK(2, 1, 300, 0)
	static const char late[] = HDR_LOCKS(3) LATE;
	/* analyzed before handovers were kept apart: another dep may rest on one */
	static const char late_unsure[] = HDR(3) LATE;
#undef LATE
	static const char held[] = HDR_LOCKS(3) EV(0, 1, "brk", 100, 10, 0, "")
		EV(1, 2, "futex", 200, 100, 10000000, "{\"id\":2,\"kind\":\"wakeup\"}")
			UNLOCK(2, 1, 300, 30000000);
	static const char cond[] = HDR_LOCKS(3) EV(
		0, 1, "brk", 100, 10, 20000000,
		"") "{\"type\":\"event\",\"id\":1,"
		    "\"pid\":1,\"tid\":2,\"call\":\"futex\",\"args\":{\"uaddr\":4096,\"futex_op\":393,"
		    "\"val\":0},\"ret\":0,\"ts\":200,\"dur\":100,\"compute_ns\":0,"
		    "\"deps\":[{\"id\":2,\"kind\":\"wakeup\"}]}\n" UNLOCK(2, 1, 300, 0);
	struct rp_plan p;
	struct rp_run r;

	CU_ASSERT_FATAL(plan_of(&p, late, RO_CAUSAL) == 0);
	CU_ASSERT_EQUAL(p.ops[1].lock_gate, 0);
	CU_ASSERT_TRUE(p.ops[0].start_waited);
	CU_ASSERT(has_dep(&p, 1, 2));
	CU_ASSERT_EQUAL_FATAL(run_natural(&p, &r), 0);
	CU_ASSERT_EQUAL(p.th[p.ops[1].tidx].lock_first, 1);
	CU_ASSERT(p.ops[1].t_end <= p.ops[0].t_issue);
	free(r.lag);
	plan__free(&p);

	/* thread 1 holds the lock when thread 2 comes: thread 2 waits for it */
	CU_ASSERT_FATAL(plan_of(&p, held, RO_CAUSAL) == 0);
	CU_ASSERT_EQUAL(p.ops[1].lock_gate, 0);
	CU_ASSERT_EQUAL_FATAL(run_natural(&p, &r), 0);
	CU_ASSERT_EQUAL(p.th[p.ops[1].tidx].lock_first, 0);
	CU_ASSERT(p.ops[1].t_issue >= p.ops[2].t_end);
	free(r.lag);
	plan__free(&p);

	CU_ASSERT_FATAL(plan_of(&p, cond, RO_CAUSAL) == 0);
	CU_ASSERT_EQUAL(p.ops[1].lock_gate, RP_NONE);
	CU_ASSERT_EQUAL_FATAL(run_natural(&p, &r), 0);
	CU_ASSERT(p.ops[1].t_issue >= p.ops[2].t_end);
	free(r.lag);
	plan__free(&p);

	for (enum rp_order o = RO_TEMPORAL; o <= RO_THINK; o++) {
		CU_ASSERT_FATAL(plan_of(&p, late, o) == 0);
		CU_ASSERT_EQUAL(p.ops[1].lock_gate, RP_NONE);
		plan__free(&p);
	}
	CU_ASSERT_FATAL(plan_of(&p, late_unsure, RO_CAUSAL) == 0);
	CU_ASSERT_EQUAL(p.ops[1].lock_gate, RP_NONE);
	plan__free(&p);
}

#define OPEN(id, tid, path, ret, ts, dur)                                                     \
	"{\"type\":\"event\",\"id\":" #id ",\"pid\":1,\"tid\":" #tid ",\"call\":\"openat\","  \
	"\"args\":{\"dirfd\":\"AT_FDCWD\",\"pathname\":\"" path "\",\"flags\":2,\"mode\":0}," \
	"\"ret\":" #ret ",\"ts\":" #ts ",\"dur\":" #dur ",\"compute_ns\":0,\"deps\":[]}\n"
#define FDCALL(id, tid, call, fd, ts, args)                                                    \
	"{\"type\":\"event\",\"id\":" #id ",\"pid\":1,\"tid\":" #tid ",\"call\":\"" call "\"," \
	"\"args\":{\"fd\":{\"fd\":" #fd ",\"type\":\"file\"}" args "},\"ret\":0,\"ts\":" #ts   \
	",\"dur\":5,\"compute_ns\":0,\"deps\":[]}\n"

/*
 * fd slots: every generation of a recorded fd number has its own.  Thread
 * 2's open of /c enters before thread 1's close of fd 4 and returns 4 after
 * it: the close names the old generation, the read after it the new one.
 * dup2 onto an open fd ends that fd's generation and starts another.
 */
static void test_replay__fd_generations(void)
{
	static const char text[] = HDR(8) OPEN(0, 1, "/a", 4, 100, 10) OPEN(
		1, 1, "/b", 5, 150,
		10) FDCALL(2, 1, "pwrite64", 4, 200,
			   ",\"count\":1,\"offset\":0") OPEN(3, 2, "/c", 4, 290,
							     50) FDCALL(4, 1, "close", 4, 300, "")
		FDCALL(5, 2, "read", 4, 400,
		       ",\"count\":1") "{\"type\":\"event\",\"id\":6,\"pid\":1,\"tid\":2,\"call\":\"dup2\",\"args\":"
				       "{\"oldfd\":{\"fd\":4,\"type\":\"file\"},\"newfd\":{\"fd\":5,\"type\":\"file\"}},"
				       "\"ret\":5,\"ts\":500,\"dur\":5,\"compute_ns\":0,\"deps\":[]}\n" FDCALL(
					       7, 1, "read", 5, 600, ",\"count\":1");
	struct rp_plan p;
	struct rp_op *o;

	CU_ASSERT_FATAL(plan_of(&p, text, RO_CAUSAL) == 0);
	o = p.ops;
	CU_ASSERT_FATAL(o[0].fd2 >= 0 && o[1].fd2 >= 0 && o[3].fd2 >= 0 && o[6].fd2 >= 0);
	CU_ASSERT_EQUAL(o[2].fd, o[0].fd2);
	CU_ASSERT_EQUAL(o[4].fd, o[0].fd2);
	CU_ASSERT_NOT_EQUAL(o[3].fd2, o[0].fd2);
	CU_ASSERT_EQUAL(o[5].fd, o[3].fd2);
	CU_ASSERT_EQUAL(o[6].fd, o[3].fd2);
	CU_ASSERT_EQUAL(o[6].a[1], o[1].fd2);
	CU_ASSERT_NOT_EQUAL(o[6].fd2, o[1].fd2);
	CU_ASSERT_NOT_EQUAL(o[6].fd2, o[3].fd2);
	CU_ASSERT_EQUAL(o[7].fd, o[6].fd2);
	CU_ASSERT_EQUAL(p.pr[0].nslot, 4);
	CU_ASSERT_EQUAL(p.pr[0].slot_fd[o[3].fd2], 4);
	CU_ASSERT_EQUAL(p.pr[0].slot_fd[o[6].fd2], 5);
	plan__free(&p);
}

#define MEMCALL(id, call, args, ret, ts)                                                  \
	"{\"type\":\"event\",\"id\":" #id ",\"pid\":1,\"tid\":1,\"call\":\"" call "\","   \
	"\"args\":{" args "},\"ret\":" #ret ",\"ts\":" #ts ",\"dur\":5,\"compute_ns\":0," \
	"\"deps\":[]}\n"

/*
 * A munmap that reaches past a file mapping (into the application's
 * anonymous memory after it) unmaps no more than the replay's own mapping:
 * past it is the replayer's memory.  One inside it keeps its offset, and
 * only one that takes the whole mapping is played as a munmap.
 */
static void test_replay__munmap_within_mapping(void)
{
	static const char text[] = HDR(4) OPEN(0, 1, "/a", 4, 100, 10)
		MEMCALL(1, "mmap",
			"\"addr\":0,\"length\":5000,\"prot\":1,\"flags\":2,\"fd\":{\"fd\":4,"
			"\"type\":\"file\"},\"offset\":0",
			1048576, 200)
			MEMCALL(2, "munmap", "\"addr\":1052672,\"length\":4096", 0, 300)
				MEMCALL(3, "munmap", "\"addr\":1048576,\"length\":65536", 0, 400);
	struct rp_plan p;

	CU_ASSERT_FATAL(plan_of(&p, text, RO_CAUSAL) == 0);
	CU_ASSERT_EQUAL(p.ops[2].kind, RK_MUNMAP);
	CU_ASSERT_EQUAL(p.ops[2].fd2, p.ops[1].fd2);
	CU_ASSERT_EQUAL(p.ops[2].a[2], 4096);
	CU_ASSERT_EQUAL(p.ops[2].a[0], 4096);
	CU_ASSERT_EQUAL(p.ops[2].a[1], 0); /* a part: reserved, not unmapped */
	CU_ASSERT_EQUAL(p.ops[3].a[2], 0);
	CU_ASSERT_EQUAL(p.ops[3].a[0], 8192);
	CU_ASSERT_EQUAL(p.ops[3].a[1], 1); /* the whole mapping */
	plan__free(&p);
}

/*
 * make's jobserver: pipe2 returns [3, 4], both ends are fcntl'd before
 * either is read or written.  The ends are the numbers in ret_fds, not a
 * guess from the first use; a later fcntl that failed EBADF on the closed
 * number 3 names no fd (it is no fd from before the trace).
 */
static void test_replay__pipe_ends_from_ret_fds(void)
{
	static const char text[] = HDR(
		7) "{\"type\":\"event\",\"id\":0,\"pid\":1,\"tid\":1,\"call\":\"pipe2\","
		   "\"args\":{\"pipefd\":4096,\"flags\":0},\"ret_fds\":[3,4],\"ret\":0,\"ts\":100,"
		   "\"dur\":5,\"compute_ns\":0,\"deps\":[]}\n" FDCALL(
			   1, 1, "fcntl", 3, 200,
			   ",\"cmd\":1,\"arg\":0") FDCALL(2, 1, "fcntl", 4, 210,
							  ",\"cmd\":1,\"arg\":0") FDCALL(3, 1,
											 "write", 4,
											 300,
											 ",\"count\":1")
			   FDCALL(4, 1, "read", 3, 400, ",\"count\":1") FDCALL(
				   5, 1, "close", 3, 500,
				   "") "{\"type\":\"event\",\"id\":6,\"pid\":1,\"tid\":1,\"call\":\"fcntl\",\"args\":"
				       "{\"fd\":{\"fd\":3,\"type\":\"none\"},\"cmd\":1,\"arg\":0},\"ret\":-9,\"ts\":600,"
				       "\"dur\":5,\"compute_ns\":0,\"deps\":[]}\n";
	struct rp_plan p;
	struct rp_op *o;

	CU_ASSERT_FATAL(plan_of(&p, text, RO_CAUSAL) == 0);
	o = p.ops;
	CU_ASSERT_EQUAL(o[0].kind, RK_PIPE);
	CU_ASSERT_FATAL(o[0].fd >= 0 && o[0].fd2 >= 0);
	CU_ASSERT_EQUAL(p.pr[0].slot_fd[o[0].fd], 3);
	CU_ASSERT_EQUAL(p.pr[0].slot_fd[o[0].fd2], 4);
	CU_ASSERT_EQUAL(o[1].fd, o[0].fd);
	CU_ASSERT_EQUAL(o[2].fd, o[0].fd2);
	CU_ASSERT_EQUAL(o[3].fd, o[0].fd2);
	CU_ASSERT_EQUAL(o[4].fd, o[0].fd);
	CU_ASSERT_EQUAL(o[6].fd, -1);
	CU_ASSERT_EQUAL(p.pr[0].ninh, 0);
	plan__free(&p);
}

/* A socket call: sockfd FD, result RET, then EXTRA (e.g. a passed_fd). */
#define SOCKCALL(id, call, fd, ret, ts, extra)                                              \
	"{\"type\":\"event\",\"id\":" #id ",\"pid\":1,\"tid\":1,\"call\":\"" call "\","     \
	"\"args\":{\"sockfd\":{\"fd\":" #fd ",\"type\":\"socket\",\"ino\":9},\"msg\":4096," \
	"\"len\":16,\"flags\":0},\"ret\":" #ret extra ",\"ts\":" #ts                        \
	",\"dur\":5,\"compute_ns\":0,\"deps\":[]}\n"

/*
 * SCM_RIGHTS: the fd a recvmsg received (5) is made by that recvmsg, and the
 * calls on it use its slot, not one from before the trace; the fd a sendmsg
 * passed (4, from before the trace) is a use of its slot.  A recvmsg that
 * failed made nothing.
 */
static void test_replay__fd_passed_with_scm_rights(void)
{
	static const char text[] = HDR(5) SOCKCALL(0, "sendmsg", 3, 1, 100, ",\"passed_fd\":4")
		SOCKCALL(1, "recvmsg", 3, 1, 200, ",\"passed_fd\":5")
			SOCKCALL(2, "recvfrom", 5, 6, 300, "")
				SOCKCALL(3, "recvmsg", 3, -11, 400, ",\"passed_fd\":6")
					SOCKCALL(4, "recvfrom", 6, 6, 500, "");
	struct rp_plan p;
	struct rp_op *o;

	CU_ASSERT_FATAL(plan_of(&p, text, RO_CAUSAL) == 0);
	o = p.ops;
	CU_ASSERT_EQUAL(o[0].kind, RK_SEND);
	CU_ASSERT_FATAL(o[0].fd2 >= 0 && o[1].fd2 >= 0);
	CU_ASSERT_EQUAL(p.pr[0].slot_fd[o[0].fd2], 4);
	CU_ASSERT_EQUAL(p.pr[0].slot_fd[o[1].fd2], 5);
	CU_ASSERT_EQUAL(o[2].fd, o[1].fd2);
	CU_ASSERT_EQUAL(o[3].fd2, -1);
	/* 3 and 4 from before the trace; 6, which the failed recvmsg did not make, too */
	CU_ASSERT_EQUAL(p.pr[0].ninh, 3);
	plan__free(&p);
}

/*
 * --dev-root: regular files the header puts on a mapped device (2049 is
 * 8:1, 2050 8:2) live in that device's root, and so do the calls naming
 * them, however the path is spelt; directories, symlinks, files of other
 * devices and files the trace creates stay in --root.
 */
static void test_replay__dev_roots(void)
{
	static const char text[] =
		"{\"type\":\"header\",\"version\":1,\"events\":5,\"threads\":[{\"tid\":1,"
		"\"pid\":1}],\"processes\":[{\"pid\":1,\"ppid\":0}],\"files\":["
		"{\"path\":\"/lib\",\"type\":\"dir\",\"dev\":2049},"
		"{\"path\":\"/lib/libc.so\",\"type\":\"file\",\"size\":10,\"dev\":2049},"
		"{\"path\":\"/etc/conf\",\"type\":\"file\",\"size\":10,\"dev\":2050},"
		"{\"path\":\"/data/a\",\"type\":\"file\",\"size\":10,\"dev\":1792},"
		"{\"path\":\"/l\",\"type\":\"symlink\",\"target\":\"lib\",\"dev\":2049},"
		"{\"path\":\"/lib/libc.so.6\",\"type\":\"symlink\",\"target\":\"./libc.so\"},"
		"{\"path\":\"/lib/x\",\"type\":\"symlink\",\"target\":\"../l/libc.so\"},"
		"{\"path\":\"/usr/libc\",\"type\":\"symlink\",\"target\":\"/lib/libc.so.6\"}]}\n" OPEN(
			0, 1, "/lib/../lib//libc.so", 3, 100,
			10) OPEN(1, 1, "/data/a", 4, 200, 10) OPEN(2, 1, "/etc/conf", 5, 300, 10)
			OPEN(3, 1, "/data/new", 6, 400,
			     10) "{\"type\":\"event\",\"id\":4,\"pid\":1,\"tid\":1,\"call\":\"rename\","
				 "\"args\":{\"oldpath\":\"/data/a\",\"newpath\":\"/lib/libc.so\"},\"ret\":0,"
				 "\"ts\":500,\"dur\":5,\"compute_ns\":0,\"deps\":[]}\n";
	struct rp_opts opts = { .timing = RT_AFAP, .order = RO_CAUSAL, .speed = 1, .root = "/r" };
	struct rp_plan p;
	const struct rp_file *f;

	opts.devroot[opts.ndevroot++] = (struct rp_devroot){ .dev = 2050, .dir = "/e" };
	opts.devroot[opts.ndevroot++] = (struct rp_devroot){ .dev = 2049, .dir = "/s" };
	CU_ASSERT_FATAL(plan_with(&p, text, &opts) == 0);
	CU_ASSERT_EQUAL(p.ops[0].root, 2);
	CU_ASSERT_EQUAL(p.ops[1].root, 0);
	CU_ASSERT_EQUAL(p.ops[2].root, 1);
	CU_ASSERT_EQUAL(p.ops[3].root, 0);
	CU_ASSERT_EQUAL(p.ops[4].root, 0);
	CU_ASSERT_EQUAL(p.ops[4].root2, 2);
	f = graph__file(&p, "/lib");
	CU_ASSERT(f && f->type == 'd' && f->root == 0);
	f = graph__file(&p, "/l");
	CU_ASSERT(f && f->type == 'l' && f->root == 0);
	/* links whose chains end at a file of a mapped device go with it */
	f = graph__file(&p, "/lib/libc.so.6");
	CU_ASSERT(f && f->type == 'l' && f->root == 2);
	f = graph__file(&p, "/usr/libc");
	CU_ASSERT(f && f->type == 'l' && f->root == 2);
	/* joined lexically, as the recorder did: /l/libc.so is no file */
	f = graph__file(&p, "/lib/x");
	CU_ASSERT(f && f->type == 'l' && f->root == 0);
	f = graph__file(&p, "/lib/libc.so");
	CU_ASSERT(f && f->root == 2 && f->dev == 2049);
	CU_ASSERT_PTR_NULL(graph__file(&p, "/data/new"));
	plan__free(&p);
	/* without --dev-root everything is in --root */
	opts.ndevroot = 0;
	CU_ASSERT_FATAL(plan_with(&p, text, &opts) == 0);
	for (uint32_t i = 0; i < p.nops; i++)
		CU_ASSERT(p.ops[i].root == 0 && p.ops[i].root2 == 0);
	for (uint32_t i = 0; i < p.nfiles; i++)
		CU_ASSERT_EQUAL(p.files[i].root, 0);
	plan__free(&p);
}

/*
 * --dev-root: an open of a directory whose files are in a device's root,
 * and that the trace makes nothing in, opens it there, so that a getdents
 * lists them (Open MPI's plugin directories; in --root it was empty, 12
 * short reads a replay).  A directory the trace creates a file in, or one
 * on a device not mapped, stays in --root.
 */
static void test_replay__dev_root_dir_listing(void)
{
#define DIR_OPEN(id, path, flags)                                                      \
	"{\"type\":\"event\",\"id\":" #id ",\"pid\":1,\"tid\":1,\"call\":\"openat\","  \
	"\"args\":{\"dirfd\":\"AT_FDCWD\",\"pathname\":\"" path "\",\"flags\":" #flags \
	",\"mode\":420},\"ret\":3,\"ts\":" #id ",\"dur\":10,\"compute_ns\":0,\"deps\":[]}\n"
	static const char text[] =
		"{\"type\":\"header\",\"version\":1,\"events\":4,\"threads\":[{\"tid\":1,"
		"\"pid\":1}],\"processes\":[{\"pid\":1,\"ppid\":0}],\"files\":["
		"{\"path\":\"/lib\",\"type\":\"dir\",\"dev\":2049},"
		"{\"path\":\"/lib/a.so\",\"type\":\"file\",\"size\":10,\"dev\":2049},"
		"{\"path\":\"/tmp\",\"type\":\"dir\",\"dev\":2049},"
		"{\"path\":\"/tmp/b\",\"type\":\"file\",\"size\":10,\"dev\":2049},"
		"{\"path\":\"/etc\",\"type\":\"dir\",\"dev\":2050},"
		"{\"path\":\"/etc/x\",\"type\":\"file\",\"size\":10,\"dev\":2050}]}\n" DIR_OPEN(
			0, "/lib/", 589824) DIR_OPEN(1, "/tmp", 589824) DIR_OPEN(2, "/tmp/c", 66)
			DIR_OPEN(3, "/etc", 589824);
#undef DIR_OPEN
	struct rp_opts opts = { .timing = RT_AFAP, .order = RO_CAUSAL, .speed = 1, .root = "/r" };
	struct rp_plan p;

	opts.devroot[opts.ndevroot++] = (struct rp_devroot){ .dev = 2049, .dir = "/s" };
	CU_ASSERT_FATAL(plan_with(&p, text, &opts) == 0);
	CU_ASSERT_EQUAL(p.ops[0].root, 1);
	CU_ASSERT_EQUAL(p.ops[1].root, 0); /* /tmp/c is made in it */
	CU_ASSERT_EQUAL(p.ops[2].root, 0);
	CU_ASSERT_EQUAL(p.ops[3].root, 0); /* 2050 is not mapped */
	CU_ASSERT_EQUAL(graph__file(&p, "/lib")->root, 0);
	plan__free(&p);
}

/* A multi-host file: the hosts and each thread's host are read; a thread of
 * no host, a host named twice or a tid listed twice on one host are
 * refused.  Two hosts may both have a thread 1: each event names its host. */
static void test_replay__hosts(void)
{
#define MH_HDR(hosts, threads, events)                                             \
	"{\"type\":\"header\",\"version\":1,\"events\":2,\"hosts\":[" hosts "],"   \
	"\"threads\":[" threads "],\"processes\":[{\"pid\":1,\"ppid\":0,\"host\":" \
	"\"b\"},{\"pid\":2,\"ppid\":0,\"host\":\"a\"}],\"files\":[]}\n" events
#define EVS FUTEX(0, 1, 100, "") FUTEX(1, 2, 110, "{\"id\":0,\"kind\":\"data\"}")
#define AB  "{\"name\":\"a\"},{\"name\":\"b\"}"
/* thread 1 of each host; b's event first, a's depends on it */
#define HOSTEV(id, host, deps)                                                               \
	"{\"type\":\"event\",\"id\":" #id ",\"pid\":1,\"tid\":1,\"host\":\"" host "\","      \
	"\"call\":\"futex\",\"args\":{\"uaddr\":4096,\"futex_op\":128,\"val\":0},\"ret\":0," \
	"\"ts\":" #id "00,\"dur\":10,\"compute_ns\":0,\"deps\":[" deps "]}\n"
	static const char good[] = MH_HDR(AB,
					  "{\"tid\":1,\"pid\":1,\"host\":\"b\"},"
					  "{\"tid\":2,\"pid\":2,\"host\":\"a\"}",
					  EVS);
	static const char same_tid[] =
		"{\"type\":\"header\",\"version\":1,\"events\":2,\"hosts\":[" AB "],"
		"\"threads\":[{\"tid\":1,\"pid\":1,\"host\":\"b\"},{\"tid\":1,\"pid\":1,"
		"\"host\":\"a\"}],\"processes\":[{\"pid\":1,\"ppid\":0,\"host\":\"b\"},"
		"{\"pid\":1,\"ppid\":0,\"host\":\"a\"}],\"files\":[]}\n" HOSTEV(1, "b", "")
			HOSTEV(2, "a", "{\"id\":1,\"kind\":\"data\"}");
	static const char *const bad[] = {
		MH_HDR(AB, "{\"tid\":1,\"pid\":1,\"host\":\"b\"},{\"tid\":2,\"pid\":2}", EVS),
		MH_HDR(AB,
		       "{\"tid\":1,\"pid\":1,\"host\":\"c\"},"
		       "{\"tid\":2,\"pid\":2,\"host\":\"a\"}",
		       EVS),
		MH_HDR("{\"name\":\"a\"},{\"name\":\"a\"}",
		       "{\"tid\":1,\"pid\":1,\"host\":\"a\"},{\"tid\":2,\"pid\":2,\"host\":\"a\"}",
		       EVS),
		MH_HDR(AB,
		       "{\"tid\":1,\"pid\":1,\"host\":\"a\"},{\"tid\":1,\"pid\":2,\"host\":\"a\"}",
		       EVS),
		/* an event naming a host the file does not have */
		MH_HDR(AB,
		       "{\"tid\":1,\"pid\":1,\"host\":\"b\"},"
		       "{\"tid\":2,\"pid\":2,\"host\":\"a\"}",
		       HOSTEV(0, "c", "")),
	};
#undef HOSTEV
#undef AB
#undef EVS
#undef MH_HDR
	struct rp_plan p;

	CU_ASSERT_FATAL(plan_of(&p, good, RO_CAUSAL) == 0);
	CU_ASSERT_EQUAL(p.nhosts, 2);
	CU_ASSERT_STRING_EQUAL(p.hosts[0], "a");
	CU_ASSERT_STRING_EQUAL(p.hosts[1], "b");
	CU_ASSERT_EQUAL(p.th[0].host, 1);
	CU_ASSERT_EQUAL(p.th[1].host, 0);
	/* the cross-host dep is an ordinary dep of the plan */
	CU_ASSERT(has_dep(&p, 1, 0));
	plan__free(&p);

	CU_ASSERT_FATAL(plan_of(&p, same_tid, RO_CAUSAL) == 0);
	CU_ASSERT_EQUAL_FATAL(p.nth, 2);
	CU_ASSERT_EQUAL_FATAL(p.npr, 2);
	CU_ASSERT_EQUAL(p.th[0].tid, 1);
	CU_ASSERT_EQUAL(p.th[1].tid, 1);
	CU_ASSERT_EQUAL(p.th[0].host, 1);
	CU_ASSERT_EQUAL(p.th[1].host, 0);
	CU_ASSERT_EQUAL(p.pr[p.th[0].pidx].host, 1);
	CU_ASSERT_EQUAL(p.pr[p.th[1].pidx].host, 0);
	/* each event went to its own host's thread 1 */
	CU_ASSERT_EQUAL(p.ops[0].tidx, 0);
	CU_ASSERT_EQUAL(p.ops[1].tidx, 1);
	CU_ASSERT(has_dep(&p, 1, 0));
	plan__free(&p);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CU_ASSERT(plan_of(&p, bad[i], RO_CAUSAL) != 0);
		plan__free(&p);
	}
	/* a single-host file has no hosts, and needs none */
	CU_ASSERT_FATAL(plan_of(&p, two_threads, RO_CAUSAL) == 0);
	CU_ASSERT_EQUAL(p.nhosts, 0);
	plan__free(&p);
}

/* A thread's I/O buffer: filled, and no page physically after the one before
 * it (the frames are read from /proc/self/pagemap: the tests run as root). */
static void test_replay__iobuf_scattered(void)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), sizes[] = { 1, 4096, 73728, 1 << 20 };

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t len = sizes[k], n = (len + pg - 1) / pg;
		char *b = iobuf__alloc(len);

		CU_ASSERT_FATAL(b != NULL);
		CU_ASSERT(b[0] == 'r' && b[len - 1] == 'r' && b[n * pg - 1] == 'r');
		CU_ASSERT_EQUAL(iobuf__runs(b, len), n);
		iobuf__free(b, len);
	}
}

static CU_TestInfo tests[] = {
	{ "causal deps become op indexes", test_replay__causal_deps },
	{ "orders none and temporal", test_replay__order_none_and_temporal },
	{ "order think", test_replay__order_think },
	{ "a deadlocking dep is dropped", test_replay__deadlock_dropped },
	{ "a barrier's wake waits for its waiters to arrive", test_replay__barrier_rendezvous },
	{ "a barrier is released by its last arrival", test_replay__barrier_last_arriver },
	{ "a lock's collision is not an order", test_replay__lock_collision_not_order },
	{ "bad input refused", test_replay__bad_input },
	{ "dep release under 16 threads", test_replay__release_under_many_threads },
	{ "natural: compute is a lower bound", test_replay__natural_compute_lower_bound },
	{ "natural: faster than a slow trace", test_replay__natural_faster_than_slow_trace },
	{ "natural: unexplained waits held", test_replay__unexplained_wait_held },
	{ "fd slots: one per generation", test_replay__fd_generations },
	{ "munmap: within the replay's mapping", test_replay__munmap_within_mapping },
	{ "natural: a timed-out wait ends with the wake", test_replay__timed_out_wait_cut },
	{ "natural: a poll with timeout 0 is not held", test_replay__zero_timeout_poll_not_held },
	{ "natural: a lazy-wait loop ends with its dep",
	  test_replay__lazy_wait_loop_ends_with_its_dep },
	{ "--dev-root: files and calls in their device's root", test_replay__dev_roots },
	{ "--dev-root: a directory listed where its files are", test_replay__dev_root_dir_listing },
	{ "pipe ends from ret_fds", test_replay__pipe_ends_from_ret_fds },
	{ "fd passed with SCM_RIGHTS", test_replay__fd_passed_with_scm_rights },
	{ "multi-host: hosts, threads' hosts, one tid on two hosts", test_replay__hosts },
	{ "I/O buffers: no two pages physically in a run", test_replay__iobuf_scattered },
	CU_TEST_INFO_NULL,
};

#define SUITE "replay"
#include "tests/cu_main.h"

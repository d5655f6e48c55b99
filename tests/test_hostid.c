// SPDX-License-Identifier: GPL-2.0
/*
 * Host identity and clock pairs (loader/hostid.c): what a merge of several
 * hosts' traces relies on to tell them apart and line their clocks up.
 */
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <CUnit/Basic.h>

#include "lib/record.h"
#include "loader/hostid.h"

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The pair lies inside the reads around it, on both clocks. */
static void test_hostid__clock_pair_bracketed(void)
{
	uint64_t m0 = now_ns(CLOCK_MONOTONIC), r0 = now_ns(CLOCK_REALTIME);
	struct iot_clock c;
	uint64_t r1, m1;

	hostid__clock(&c, IOT_CLOCK_END);
	r1 = now_ns(CLOCK_REALTIME);
	m1 = now_ns(CLOCK_MONOTONIC);
	CU_ASSERT_EQUAL(c.hdr.type, IOT_REC_CLOCK);
	CU_ASSERT_EQUAL(c.hdr.size, sizeof(c));
	CU_ASSERT_EQUAL(c.when, IOT_CLOCK_END);
	CU_ASSERT(c.hdr.ts >= m0 && c.hdr.ts <= m1);
	CU_ASSERT(c.realtime_ns >= r0 && c.realtime_ns <= r1);
	CU_ASSERT(c.bracket_ns <= m1 - m0);
	CU_ASSERT_EQUAL(c.hdr.pid | c.hdr.tid | c.hdr.seq, 0);
}

/* Host name, boot id and machine id as the system gives them, and our netns. */
static void test_hostid__host_record(void)
{
	char buf[2048] __attribute__((aligned(8))), name[256] = "";
	const char *s[3] = {};
	struct iot_host *h = (void *)buf;
	struct stat st;
	size_t n = hostid__build(buf, sizeof(buf), 12345);

	CU_ASSERT_FATAL(n > sizeof(*h));
	CU_ASSERT_EQUAL(h->hdr.size, n);
	CU_ASSERT_EQUAL(n % 8, 0);
	CU_ASSERT_EQUAL(h->hdr.type, IOT_REC_HOST);
	CU_ASSERT_EQUAL(h->hdr.ts, 12345);
	CU_ASSERT_EQUAL(rec__min_size(IOT_REC_HOST), sizeof(*h));
	CU_ASSERT_EQUAL_FATAL(rec__strings(&h->hdr, sizeof(*h), h->nstr, s, 3), 3);
	gethostname(name, sizeof(name) - 1);
	CU_ASSERT_STRING_EQUAL(s[0], name);
	CU_ASSERT_EQUAL(strlen(s[1]), 36); /* a UUID, without its newline */
	CU_ASSERT_EQUAL(s[1][8], '-');
	if (access("/etc/machine-id", R_OK) == 0)
		CU_ASSERT_EQUAL(strlen(s[2]), 32);
	CU_ASSERT_FATAL(stat("/proc/self/ns/net", &st) == 0);
	CU_ASSERT_EQUAL(h->netns, (uint32_t)st.st_ino);
	CU_ASSERT(h->netns != 0);
	CU_ASSERT_EQUAL(hostid__build(buf, 40, 0), 0); /* no room: nothing half-built */
	CU_ASSERT_EQUAL(hostid__netns("/nonexistent/ns/net"), 0);
}

static CU_TestInfo tests[] = {
	{ "clock pair bracketed", test_hostid__clock_pair_bracketed },
	{ "host record", test_hostid__host_record },
	CU_TEST_INFO_NULL,
};

#define SUITE "hostid"
#include "tests/cu_main.h"

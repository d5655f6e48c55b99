// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the clock offset estimator: edges made from a known offset
 * and known latencies, and the answer checked against the truth.
 */
#include <errno.h>
#include <stdlib.h>
#include <CUnit/Basic.h>

#include "analyze/clockfit.h"

/* An edge from host a to b: the send begins at t (true time), the receive ends lat later;
 * each host reads its clock as true time minus its offset. */
static struct cf_obs OBS(uint32_t a, uint32_t b, const int64_t *off, int64_t t, int64_t lat) {
	return (struct cf_obs){ .from = a,
				.to = b,
				.send_begin = t - off[a],
				.recv_end = t + lat - off[b] };
}

static void
test_clockfit__known_offset(void)
{
	const int64_t off[2] = { 0, -5000000 }; /* host 1's clock runs 5 ms ahead */
	struct cf_obs o[4] = { OBS(0, 1, off, 1000, 30000), OBS(1, 0, off, 90000, 20000),
			       OBS(0, 1, off, 200000, 12000), OBS(1, 0, off, 300000, 16000) };
	struct cf_host h[2] = { { 0 } };
	uint32_t a, b;

	CU_ASSERT_EQUAL_FATAL(clockfit__solve(o, 4, h, 2, &a, &b), 0);
	CU_ASSERT_EQUAL(h[0].offset, 0);
	CU_ASSERT_EQUAL(h[0].src, CF_REF);
	CU_ASSERT_EQUAL(h[1].src, CF_EDGES);
	/* bounds [off - 12000, off + 16000]: the midpoint is 2 us off the truth */
	CU_ASSERT_EQUAL(h[1].offset, off[1] + 2000);
	CU_ASSERT_EQUAL(h[1].residual, 14000);
	CU_ASSERT(h[1].offset - h[1].residual <= off[1] && off[1] <= h[1].offset + h[1].residual);
}

/* Edges one way only bound the offset from one side: the realtime estimate
 * is used where it lies within the bound, and held to the bound where not. */
static void test_clockfit__one_direction(void)
{
	const int64_t off[2] = { 0, 700000 };
	struct cf_obs o[1] = { OBS(0, 1, off, 5000, 1000) };
	struct cf_host h[2] = { { .have_rt = true, .rt_offset = 100 },
				{ .have_rt = true, .rt_offset = 100 + 900000 } };
	uint32_t a, b;

	CU_ASSERT_EQUAL_FATAL(clockfit__solve(o, 1, h, 2, &a, &b), 0);
	CU_ASSERT_EQUAL(h[1].src, CF_ONE_SIDED);
	CU_ASSERT_EQUAL(h[1].offset, 900000); /* above the lower bound off - 1000 */
	CU_ASSERT_EQUAL(h[1].residual, -1);
	h[1].rt_offset = 100; /* realtime says 0: below the bound, held at it */
	CU_ASSERT_EQUAL_FATAL(clockfit__solve(o, 1, h, 2, &a, &b), 0);
	CU_ASSERT_EQUAL(h[1].offset, off[1] - 1000);
}

/* Three hosts in a ring, one clock: host 2 aligned against host 0 alone
 * would sit at the middle of wide bounds, 95 us off, and the tight edges
 * between hosts 1 and 2 would run backwards; held within every host's
 * bounds, each edge keeps its receive after its send. */
static void test_clockfit__ring(void)
{
	const int64_t off[3] = { 0, 0, 0 };
	struct cf_obs o[6] = { OBS(0, 1, off, 1000, 5000),   OBS(1, 0, off, 2000, 5000),
			       OBS(0, 2, off, 3000, 10000),  OBS(2, 0, off, 4000, 200000),
			       OBS(1, 2, off, 500000, 5000), OBS(2, 1, off, 600000, 5000) };
	struct cf_host h[3] = { { 0 } };
	uint32_t a, b;

	CU_ASSERT_EQUAL_FATAL(clockfit__solve(o, 6, h, 3, &a, &b), 0);
	CU_ASSERT_EQUAL(h[2].src, CF_EDGES);
	CU_ASSERT(h[2].offset >= -5000 && h[2].offset <= 5000);
	for (int i = 0; i < 6; i++)
		CU_ASSERT(o[i].recv_end + h[o[i].to].offset >=
			  o[i].send_begin + h[o[i].from].offset);
}

static void test_clockfit__contradiction(void)
{
	/* each says the other's receive ended before the send began */
	struct cf_obs o[2] = { { .from = 0, .to = 1, .send_begin = 1000, .recv_end = 0 },
			       { .from = 1, .to = 0, .send_begin = 1000, .recv_end = 0 } };
	struct cf_host h[2] = { { 0 } };
	uint32_t a = 9, b = 9;

	CU_ASSERT_EQUAL(clockfit__solve(o, 2, h, 2, &a, &b), -EDOM);
	CU_ASSERT_EQUAL(a, 0);
	CU_ASSERT_EQUAL(b, 1);
}

/* A host with no edge falls back to realtime; one with neither is left at 0,
 * and a chain of edges reaches a host through another. */
static void test_clockfit__fallbacks_and_chain(void)
{
	const int64_t off[4] = { 0, 40000, -30000, 0 };
	struct cf_obs o[4] = { OBS(0, 1, off, 1000, 500), OBS(1, 0, off, 9000, 700),
			       OBS(1, 2, off, 20000, 300), OBS(2, 1, off, 30000, 300) };
	struct cf_host h[5] = { { .have_rt = true, .rt_offset = 10 },
				{ 0 },
				{ 0 },
				{ .have_rt = true, .rt_offset = 10 + 123 },
				{ 0 } };
	uint32_t a, b;

	CU_ASSERT_EQUAL_FATAL(clockfit__solve(o, 4, h, 5, &a, &b), 0);
	CU_ASSERT_EQUAL(h[1].src, CF_EDGES);
	CU_ASSERT_EQUAL(h[2].src, CF_EDGES);
	CU_ASSERT_EQUAL(h[2].via, 1);
	CU_ASSERT(llabs(h[2].offset - off[2]) <= h[1].residual + h[2].residual);
	CU_ASSERT_EQUAL(h[3].src, CF_REALTIME);
	CU_ASSERT_EQUAL(h[3].offset, 123);
	CU_ASSERT_EQUAL(h[4].src, CF_NONE);
	CU_ASSERT_EQUAL(h[4].offset, 0);
}

/*
 * Three hosts, each pair with edges both ways: the bounds form a cycle.
 * Clocks shifted by known amounts; each pair's bounds are 2 us wide, but
 * the 0-2 pair's midpoint is 30 us off the truth (slow receives one way).
 * The spanning tree would take 2's offset from that pair alone; least
 * squares over the cycle weighs it against 0-1 and 1-2.
 */
static void test_clockfit__cycle_least_squares(void)
{
	const int64_t off[3] = { 0, 12345678, -7654321 };
	struct cf_obs o[6] = {
		OBS(0, 1, off, 1000, 1000),   OBS(1, 0, off, 50000, 3000),
		OBS(1, 2, off, 100000, 2000), OBS(2, 1, off, 150000, 2000),
		OBS(0, 2, off, 200000, 1000), OBS(2, 0, off, 250000, 61000),
	};
	struct cf_host h[3] = { { 0 } };
	uint32_t a, b;

	CU_ASSERT_EQUAL_FATAL(clockfit__solve(o, 6, h, 3, &a, &b), 0);
	CU_ASSERT_EQUAL(h[1].src, CF_EDGES);
	CU_ASSERT_EQUAL(h[2].src, CF_EDGES);
	/* within 50 us, and well inside what the 0-2 pair alone gives (30 us) */
	CU_ASSERT(llabs(h[1].offset - off[1]) <= 50000);
	CU_ASSERT(llabs(h[2].offset - off[2]) <= 50000);
	CU_ASSERT(llabs(h[2].offset - off[2]) < 25000);
	/* the truth within what the residual says, against the host named */
	CU_ASSERT(llabs(h[2].offset - h[h[2].via].offset - (off[2] - off[h[2].via])) <=
		  h[2].residual);
	CU_ASSERT(llabs(h[1].offset - h[h[1].via].offset - (off[1] - off[h[1].via])) <=
		  h[1].residual);
}

static CU_TestInfo tests[] = {
	{ "a known offset recovered", test_clockfit__known_offset },
	{ "bounds from one direction only", test_clockfit__one_direction },
	{ "three hosts in a ring", test_clockfit__ring },
	{ "contradicting bounds", test_clockfit__contradiction },
	{ "fallbacks and a chain of hosts", test_clockfit__fallbacks_and_chain },
	{ "a cycle of bounds, least squares", test_clockfit__cycle_least_squares },
	CU_TEST_INFO_NULL,
};

#define SUITE "clockfit"
#include "tests/cu_main.h"

// SPDX-License-Identifier: GPL-2.0
/*
 * dump's time order: records come back by ts whatever order they went in,
 * equal times in arrival order, intact, whether they fitted in memory or
 * were spilled to sorted runs and merged.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/Basic.h>

#include "cli/timeorder.h"

#define N 5000

/* A record of 24 to 24 + 8 * 7 bytes whose body repeats its seq. */
static void make(uint8_t *buf, uint64_t ts, uint32_t seq)
{
	struct iot_hdr *h = (struct iot_hdr *)buf;

	memset(buf, 0, 128);
	h->ts = ts;
	h->seq = seq;
	h->type = IOT_REC_WAKEUP;
	h->size = sizeof(*h) + 8 * (seq % 8);
	memset(h + 1, seq & 0xff, h->size - sizeof(*h));
}

/* Feeds N records with times out of order and many repeats; checks what comes back. */
static unsigned int round_trip(size_t run_bytes)
{
	struct timeorder *o = timeorder__new(run_bytes);
	const struct iot_hdr *h;
	uint8_t buf[128];
	uint64_t last_ts = 0;
	uint32_t last_seq = 0;
	unsigned int n = 0, spilled;

	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	srand(17);
	for (uint32_t i = 1; i <= N; i++) {
		/* times drift forward with records up to 300 steps late, a third repeated */
		make(buf, i * 10 / 3 + 1000 - rand() % 1000, i);
		CU_ASSERT_EQUAL_FATAL(timeorder__add(o, (struct iot_hdr *)buf), 0);
	}
	while (timeorder__next(o, &h) == 1) {
		const uint8_t *body = (const uint8_t *)(h + 1);

		CU_ASSERT(h->ts > last_ts || (h->ts == last_ts && h->seq > last_seq));
		CU_ASSERT_EQUAL(h->size, sizeof(*h) + 8 * (h->seq % 8));
		for (unsigned int b = 0; b < h->size - sizeof(*h); b++)
			CU_ASSERT_EQUAL(body[b], h->seq & 0xff);
		last_ts = h->ts;
		last_seq = h->seq;
		n++;
	}
	CU_ASSERT_EQUAL(n, N);
	CU_ASSERT_EQUAL(timeorder__next(o, &h), 0);
	spilled = timeorder__spilled(o);
	timeorder__free(o);
	return spilled;
}

static void test_timeorder__in_memory(void)
{
	CU_ASSERT_EQUAL(round_trip(1 << 20), 0);
}

static void test_timeorder__spilled_runs_merge(void)
{
	/* about 250 records a run: twenty runs */
	CU_ASSERT(round_trip(12000) >= 10);
}

static void test_timeorder__empty(void)
{
	struct timeorder *o = timeorder__new(1024);
	const struct iot_hdr *h;

	CU_ASSERT_EQUAL(timeorder__next(o, &h), 0);
	timeorder__free(o);
	timeorder__free(NULL);
}

static CU_TestInfo tests[] = {
	{ "in memory", test_timeorder__in_memory },
	{ "spilled runs merge", test_timeorder__spilled_runs_merge },
	{ "empty", test_timeorder__empty },
	CU_TEST_INFO_NULL,
};

#define SUITE "timeorder"
#include "tests/cu_main.h"

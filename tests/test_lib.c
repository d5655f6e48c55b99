// SPDX-License-Identifier: GPL-2.0
/* The shared helpers of lib/: paths, order statistics, the hash table. */
#include <stdint.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "lib/htab.h"
#include "lib/path.h"
#include "lib/stats.h"

static void check_norm(const char *in, const char *want)
{
	char buf[256];

	strcpy(buf, in);
	path__normalize(buf);
	CU_ASSERT_STRING_EQUAL(buf, want);
}

static void test_lib__path_normalize(void)
{
	check_norm("/", "/");
	check_norm("//a//b/", "/a/b");
	check_norm("/a/./b/.", "/a/b");
	check_norm("/a/b/../c", "/a/c");
	check_norm("/../..", "/");
	check_norm("/a/..", "/");
	check_norm("/a/.b/..c/...", "/a/.b/..c/...");
}

static void test_lib__path_outside_fs(void)
{
	CU_ASSERT_TRUE(path__outside_fs("/dev"));
	CU_ASSERT_TRUE(path__outside_fs("/dev/null"));
	CU_ASSERT_TRUE(path__outside_fs("/proc/self/fd/3"));
	CU_ASSERT_TRUE(path__outside_fs("/sys"));
	CU_ASSERT_FALSE(path__outside_fs("/device"));
	CU_ASSERT_FALSE(path__outside_fs("/system/x"));
	CU_ASSERT_FALSE(path__outside_fs("/"));
	CU_ASSERT_FALSE(path__outside_fs("/tmp/dev"));
}

static void test_lib__percentile_nearest_rank(void)
{
	uint64_t v[] = { 50, 10, 40, 20, 30, 100, 90, 80, 70, 60 };

	stats__sort(v, 10);
	CU_ASSERT_EQUAL(v[0], 10);
	CU_ASSERT_EQUAL(v[9], 100);
	CU_ASSERT_EQUAL(stats__percentile(v, 10, 0.5), 50);
	CU_ASSERT_EQUAL(stats__percentile(v, 10, 0.99), 100);
	CU_ASSERT_EQUAL(stats__percentile(v, 10, 0.1), 10);
	CU_ASSERT_EQUAL(stats__percentile(v, 10, 0), 10);
	CU_ASSERT_EQUAL(stats__percentile(v, 10, 1), 100);
	CU_ASSERT_EQUAL(stats__percentile(v, 0, 0.5), 0);
	CU_ASSERT_EQUAL(stats__percentile(v, 1, 0.99), 10);
}

static void test_lib__htab_grows(void)
{
	struct htab h = { 0 };

	for (uint32_t i = 0; i < 10000; i++)
		CU_ASSERT_EQUAL_FATAL(htab__set(&h, (uint64_t)i << 32 | i, i), 0);
	CU_ASSERT_EQUAL(h.n, 10000);
	CU_ASSERT_EQUAL(htab__set(&h, 7ull << 32 | 7, 70), 0);
	CU_ASSERT_EQUAL(h.n, 10000);
	CU_ASSERT_EQUAL(htab__get(&h, 7ull << 32 | 7), 70);
	CU_ASSERT_EQUAL(htab__get(&h, 9999ull << 32 | 9999), 9999);
	CU_ASSERT_EQUAL(htab__get(&h, 10000ull << 32 | 10000), UINT32_MAX);
	htab__free(&h);
	CU_ASSERT_EQUAL(htab__get(&h, 1), UINT32_MAX);
}

static CU_TestInfo tests[] = {
	{ "path normalize", test_lib__path_normalize },
	{ "path outside fs", test_lib__path_outside_fs },
	{ "percentile nearest rank", test_lib__percentile_nearest_rank },
	{ "htab grows", test_lib__htab_grows },
	CU_TEST_INFO_NULL,
};

#define SUITE "lib"
#include "tests/cu_main.h"

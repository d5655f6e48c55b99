// SPDX-License-Identifier: GPL-2.0
/* Host identity and clock pairs of a recording (see hostid.h). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/record.h"
#include "loader/hostid.h"

#define CLOCK_TRIES 16 /* a preemption between the reads shows as a wide bracket */

/* The first line of a small file, without its newline; "" when unreadable. */
static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

uint32_t hostid__netns(const char *nspath)
{
	struct stat st;

	return stat(nspath, &st) ? 0 : (uint32_t)st.st_ino;
}

size_t hostid__build(void *buf, size_t cap, uint64_t ts)
{
	struct iot_host *h = buf;
	char name[256] = "", boot[64], machine[64];
	size_t off = sizeof(*h);

	if (cap < sizeof(*h))
		return 0;
	memset(h, 0, sizeof(*h));
	gethostname(name, sizeof(name) - 1);
	read_line("/proc/sys/kernel/random/boot_id", boot, sizeof(boot));
	read_line("/etc/machine-id", machine, sizeof(machine));
	h->hdr.ts = ts;
	h->hdr.type = IOT_REC_HOST;
	h->netns = hostid__netns("/proc/self/ns/net");
	h->nstr = 3;
	if (!rec__put_str(buf, &off, cap, 0, name, strlen(name)) ||
	    !rec__put_str(buf, &off, cap, 1, boot, strlen(boot)) ||
	    !rec__put_str(buf, &off, cap, 2, machine, strlen(machine)))
		return 0;
	h->hdr.size = off;
	return off;
}

static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void hostid__clock(struct iot_clock *c, enum iot_clock_when when)
{
	uint64_t best = UINT64_MAX;

	memset(c, 0, sizeof(*c));
	c->hdr.type = IOT_REC_CLOCK;
	c->hdr.size = sizeof(*c);
	c->when = when;
	for (int i = 0; i < CLOCK_TRIES; i++) {
		uint64_t m0 = clock_ns(CLOCK_MONOTONIC);
		uint64_t rt = clock_ns(CLOCK_REALTIME);
		uint64_t m1 = clock_ns(CLOCK_MONOTONIC);

		if (m1 - m0 >= best)
			continue;
		best = m1 - m0;
		c->hdr.ts = m0 + best / 2;
		c->realtime_ns = rt;
	}
	c->bracket_ns = best > UINT32_MAX ? UINT32_MAX : best;
}

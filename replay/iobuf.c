// SPDX-License-Identifier: GPL-2.0
/*
 * The replay threads' I/O buffers, laid out so that no page of one is
 * followed in physical memory by the page after it.
 *
 * A direct I/O request carries a segment for every physically contiguous run
 * of its buffer, and storage that pays per segment (virtio-blk under this
 * project's VMs) serves the same 64 KiB O_DIRECT read faster into one run than
 * into 16 pages (docs/BENCHMARKS.md, bench/dioruns.c).  Whether a process's
 * freshly touched pages come out in runs depends on the page allocator's
 * state at that moment, so a replay left to it was fast or not by luck, for
 * minutes at a time.  A long-running service's heap pages are scattered; so
 * are the replay's, always.
 */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "replay/replay.h"

#define IOBUF_PASSES 4 /* re-fault rounds for pages still in a run */

static size_t iobuf__page(void)
{
	long pg = sysconf(_SC_PAGESIZE);

	return pg > 0 ? (size_t)pg : 4096;
}

static void *iobuf__map(size_t sz)
{
	void *p = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	/* a huge page is one run */
	madvise(p, sz, MADV_NOHUGEPAGE);
	return p;
}

/* The page frame holding p, 0 if not known: /proc/self/pagemap shows frames
 * to CAP_SYS_ADMIN only, and a page not present has none. */
static uint64_t iobuf__frame(int pm, const char *p, size_t pg)
{
	uint64_t e;

	if (pm < 0 || pread(pm, &e, sizeof(e), (off_t)((uintptr_t)p / pg * sizeof(e))) != sizeof(e))
		return 0;
	return e & ((1ull << 55) - 1); /* bits 0-54 */
}

size_t iobuf__runs(const void *buf, size_t len)
{
	size_t pg = iobuf__page(), n = (len + pg - 1) / pg, runs = 0;
	int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	uint64_t prev = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t pfn = iobuf__frame(pm, (const char *)buf + i * pg, pg);

		if (!pfn) {
			runs = 0;
			break;
		}
		runs += i == 0 || pfn != prev + 1;
		prev = pfn;
	}
	if (pm >= 0)
		close(pm);
	return runs;
}

/*
 * Where the frames are known, pages of buf that still follow their
 * predecessor are given back and faulted in again, each after a page of gap
 * takes what the allocator hands out next.
 */
static void iobuf__break_runs(char *buf, size_t n, size_t pg, char *gap, size_t ngap)
{
	int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	size_t used = 0;

	if (pm < 0)
		return;
	for (int pass = 0; pass < IOBUF_PASSES; pass++) {
		bool again = false;

		for (size_t i = 1; i < n && used < ngap; i++) {
			uint64_t prev = iobuf__frame(pm, buf + (i - 1) * pg, pg);

			if (!prev || iobuf__frame(pm, buf + i * pg, pg) != prev + 1)
				continue;
			madvise(buf + i * pg, pg, MADV_DONTNEED);
			gap[used++ * pg] = 0;
			buf[i * pg] = 0;
			again = true;
		}
		if (!again)
			break;
	}
	close(pm);
}

void *iobuf__alloc(size_t len)
{
	size_t pg = iobuf__page(), n = (len ? len + pg - 1 : pg) / pg;
	size_t ngap = 2 * n; /* one a page, and as many for the re-faults */
	char *buf = iobuf__map(n * pg), *gap;

	if (!buf)
		return NULL;
	gap = iobuf__map(ngap * pg);
	/* touched in turn with a page of gap, every other page the allocator
	 * hands out is buf's; the gap's go back when it is unmapped */
	for (size_t i = 0; i < n; i++) {
		buf[i * pg] = 0;
		if (gap)
			gap[i * pg] = 0;
	}
	if (gap) {
		iobuf__break_runs(buf, n, pg, gap + n * pg, n);
		munmap(gap, ngap * pg);
	}
	memset(buf, 'r', n * pg);
	return buf;
}

void iobuf__free(void *buf, size_t len)
{
	size_t pg = iobuf__page();

	if (buf)
		munmap(buf, (len ? len + pg - 1 : pg) / pg * pg);
}

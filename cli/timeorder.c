// SPDX-License-Identifier: GPL-2.0
/*
 * External merge sort of trace records by time.  The run in memory is
 * ordered with the analyzer's stable radix sort (lib/sort.c), so equal
 * times keep the file's order; spilled runs are merged with a binary heap
 * keyed (ts, run), which keeps that order across runs too.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/sort.h"
#include "cli/timeorder.h"

#define REC_BUF (1u << 16) /* hdr.size is 16 bits: no record is larger */

/* One sorted run: the one in memory, or one read back from its file. */
struct run {
	FILE *f;		   /* NULL: the run in memory */
	const struct iot_hdr *cur; /* its smallest record not yet returned */
	uint8_t *buf;		   /* REC_BUF bytes cur is read into, for a file */
};

struct timeorder {
	size_t run_bytes;
	uint8_t *mem; /* records of the run being built, back to back */
	size_t len, cap;
	uint64_t *off; /* offset in mem of each record */
	uint64_t *key;
	uint32_t *order;      /* after sorting: record indexes in time order */
	size_t n, ncap, next; /* records in mem; the next to return */
	struct run *runs;     /* every spilled run, then the one in memory */
	size_t runcap;
	unsigned int nruns, nheap;
	unsigned int *heap; /* run indexes, a min-heap on (cur->ts, index) */
	int merging;
	int lent; /* the heap's top record is with the caller */
};

struct timeorder *timeorder__new(size_t run_bytes)
{
	struct timeorder *o = calloc(1, sizeof(*o));

	if (o)
		o->run_bytes = run_bytes;
	return o;
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 1024;
	void *q;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	q = realloc(*p, c * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

/* Orders the records in memory: order[] lists them by ts, ties by arrival. */
static int sort_mem(struct timeorder *o)
{
	uint32_t *order = realloc(o->order, (o->n + 1) * sizeof(*order));
	uint64_t *key = realloc(o->key, (o->n + 1) * sizeof(*key));

	if (order)
		o->order = order;
	if (key)
		o->key = key;
	if (!order || !key)
		return -ENOMEM;
	for (size_t i = 0; i < o->n; i++) {
		o->order[i] = i;
		o->key[i] = ((const struct iot_hdr *)(o->mem + o->off[i]))->ts;
	}
	o->next = 0;
	return sort__by_key(o->key, o->order, o->n);
}

static const struct iot_hdr *mem_next(struct timeorder *o)
{
	if (o->next >= o->n)
		return NULL;
	return (const void *)(o->mem + o->off[o->order[o->next++]]);
}

static FILE *spill_file(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%s/iotrace-dump.XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	unlink(path); /* nothing is left behind, however dump ends */
	f = fdopen(fd, "w+");
	if (!f)
		close(fd);
	return f;
}

/* Writes the run in memory out sorted and starts a new one. */
static int spill(struct timeorder *o)
{
	const struct iot_hdr *h;
	struct run *r;
	int e;

	e = grow((void **)&o->runs, &o->runcap, o->nruns + 1, sizeof(*o->runs));
	if (e || (e = sort_mem(o)))
		return e;
	r = &o->runs[o->nruns];
	memset(r, 0, sizeof(*r));
	r->f = spill_file();
	r->buf = malloc(REC_BUF);
	if (!r->f || !r->buf) {
		e = r->f ? -ENOMEM : -errno;
		goto out_free;
	}
	while ((h = mem_next(o)))
		if (fwrite(h, h->size, 1, r->f) != 1)
			break;
	if (h || fflush(r->f) || fseek(r->f, 0, SEEK_SET)) {
		e = -(errno ? errno : EIO);
		goto out_free;
	}
	o->nruns++;
	o->n = o->len = 0;
	return 0;
out_free:
	if (r->f)
		fclose(r->f);
	free(r->buf);
	return e;
}

int timeorder__add(struct timeorder *o, const struct iot_hdr *h)
{
	int e;

	if (o->merging)
		return -EINVAL;
	if (o->n && o->len + h->size > o->run_bytes && (e = spill(o)))
		return e;
	if (grow((void **)&o->mem, &o->cap, o->len + h->size, 1) ||
	    grow((void **)&o->off, &o->ncap, o->n + 1, sizeof(*o->off)))
		return -ENOMEM;
	memcpy(o->mem + o->len, h, h->size);
	o->off[o->n++] = o->len;
	o->len += h->size;
	return 0;
}

/* Reads a spilled run's next record into r->cur; 0 at its end, -errno. */
static int run_read(struct run *r)
{
	struct iot_hdr *h = (struct iot_hdr *)r->buf;

	r->cur = NULL;
	if (fread(h, sizeof(*h), 1, r->f) != 1)
		return ferror(r->f) ? -EIO : 0;
	if (h->size < sizeof(*h) ||
	    (h->size > sizeof(*h) && fread(h + 1, h->size - sizeof(*h), 1, r->f) != 1))
		return -EIO;
	r->cur = h;
	return 1;
}

static int run_advance(struct timeorder *o, struct run *r)
{
	if (r->f)
		return run_read(r);
	r->cur = mem_next(o);
	return r->cur != NULL;
}

static bool before(const struct timeorder *o, unsigned int a, unsigned int b)
{
	uint64_t ta = o->runs[a].cur->ts, tb = o->runs[b].cur->ts;

	return ta < tb || (ta == tb && a < b);
}

static void sift_down(struct timeorder *o, unsigned int i)
{
	for (;;) {
		unsigned int l = 2 * i + 1, m = i, t;

		if (l < o->nheap && before(o, o->heap[l], o->heap[m]))
			m = l;
		if (l + 1 < o->nheap && before(o, o->heap[l + 1], o->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		t = o->heap[i], o->heap[i] = o->heap[m], o->heap[m] = t;
		i = m;
	}
}

/* Ends the adding: the last run stays in memory as the merge's last source. */
static int merge_start(struct timeorder *o)
{
	int e;

	o->merging = 1;
	e = grow((void **)&o->runs, &o->runcap, o->nruns + 1, sizeof(*o->runs));
	if (e || (e = sort_mem(o)))
		return e;
	memset(&o->runs[o->nruns++], 0, sizeof(*o->runs));
	if (o->nruns == 1)
		return 0; /* read straight from memory, no heap */
	o->heap = calloc(o->nruns, sizeof(*o->heap));
	if (!o->heap)
		return -ENOMEM;
	for (unsigned int i = 0; i < o->nruns; i++) {
		e = run_advance(o, &o->runs[i]);
		if (e < 0)
			return e;
		if (e)
			o->heap[o->nheap++] = i;
	}
	for (unsigned int i = o->nheap / 2; i-- > 0;)
		sift_down(o, i);
	return 0;
}

int timeorder__next(struct timeorder *o, const struct iot_hdr **h)
{
	struct run *r;
	int e;

	if (!o->merging && (e = merge_start(o)))
		return e;
	if (o->nruns == 1) { /* everything fitted: no heap, no copy */
		*h = mem_next(o);
		return *h != NULL;
	}
	/* the record returned last is replaced only now: the caller is done with it */
	if (o->lent && o->nheap) {
		r = &o->runs[o->heap[0]];
		e = run_advance(o, r);
		if (e < 0)
			return e;
		if (!e)
			o->heap[0] = o->heap[--o->nheap];
		sift_down(o, 0);
	}
	o->lent = 0;
	if (!o->nheap)
		return 0;
	*h = o->runs[o->heap[0]].cur;
	o->lent = 1;
	return 1;
}

unsigned int timeorder__spilled(const struct timeorder *o)
{
	return o->merging ? o->nruns - 1 : o->nruns;
}

void timeorder__free(struct timeorder *o)
{
	if (!o)
		return;
	for (unsigned int i = 0; i < o->nruns; i++) {
		if (o->runs[i].f)
			fclose(o->runs[i].f);
		free(o->runs[i].buf);
	}
	free(o->runs);
	free(o->heap);
	free(o->mem);
	free(o->off);
	free(o->key);
	free(o->order);
	free(o);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Data edges.  Pipes and sockets are byte queues: a write appends its bytes
 * at its enter, a read consumes what it returned at its exit, first in first
 * out, and depends on every write whose bytes it took.  Files: a read depends
 * on the latest write of each other thread that overlapped its range and had
 * returned before the read began; and a read that came up short (end of
 * file) precedes a later write of another thread into the range it missed,
 * or a replay could let the write go first and the read find data.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "an.h"
#include "record.h"
#include "syscalls.h"

#define FILE_SCAN_MAX	256	/* writes of one file looked back at per read */

struct chunk {
	uint32_t ev;
	uint32_t left;		/* bytes not yet read */
};

struct queue {
	struct chunk *c;
	uint32_t head, n, cap;
};

struct wrange {
	uint64_t off, len;
	uint32_t ev, tidx;
};

struct wlist {
	struct wrange *w;
	uint32_t n, cap;
};

struct item {
	uint64_t t;
	uint32_t ev;
	uint8_t read, file;
	const struct iot_fd *f;
};

struct data {
	struct htab qidx, widx, wkey, rkey;	/* -> queue, wlist; socket ino -> key slot */
	struct an_vec q, wl, keys;		/* struct queue, struct wlist, uint64_t */
};

static uint64_t key_unix(uint64_t ino)
{
	uint64_t k[2] = { 'u', ino };

	return hash64(k, sizeof(k));
}

static uint64_t key_inet(const uint8_t *dst, uint16_t dport, const uint8_t *src, uint16_t sport)
{
	uint8_t k[40];

	memcpy(k, dst, 16);
	memcpy(k + 16, src, 16);
	memcpy(k + 32, &dport, 2);
	memcpy(k + 34, &sport, 2);
	memcpy(k + 36, "tcp", 4);
	return hash64(k, sizeof(k));
}

static int set_key(struct data *d, struct htab *h, uint64_t ino, uint64_t key)
{
	uint64_t *k = vec__push(&d->keys);

	if (!k)
		return -ENOMEM;
	*k = key;
	return htab__set(h, ino, d->keys.n - 1);
}

/* Which queue a socket writes into and reads from, from any state the trace gave. */
static int learn_sockets(struct analysis *an, struct data *d)
{
	int err = 0;

	for (uint32_t i = 0; !err && i < an->nev; i++) {
		const struct iot_syscall *sc = an__rec(an, i);
		const struct iot_fd *a, *b;
		const struct iot_sock *s;
		struct sc_view v;

		if (!(sc->flags & IOT_SCF_SOCK) && sc->nr != SYS_socketpair)
			continue;
		if (sc_view__parse(&sc->hdr, &v) || sc->ret < 0)
			continue;
		a = sc_view__fd(&v, IOT_FD_RET0);
		b = sc_view__fd(&v, IOT_FD_RET1);
		if (a && b) {
			err = set_key(d, &d->wkey, a->ino, key_unix(b->ino));
			err = err ?: set_key(d, &d->wkey, b->ino, key_unix(a->ino));
		}
		s = v.sock;
		if (err || !s || !s->ino)
			continue;
		if (s->peer_ino)
			err = set_key(d, &d->wkey, s->ino, key_unix(s->peer_ino));
		else if (s->rport)
			err = set_key(d, &d->wkey, s->ino, key_inet(s->raddr, s->rport, s->laddr,
								     s->lport)) ?:
			      set_key(d, &d->rkey, s->ino, key_inet(s->laddr, s->lport, s->raddr,
								     s->rport));
	}
	return err;
}

static uint64_t queue_key(struct data *d, const struct iot_fd *f, bool read)
{
	uint32_t k;
	uint64_t id[2] = { f->dev, f->ino };

	if (f->ftype == IOT_FT_FIFO)
		return hash64(id, sizeof(id));
	k = htab__get(read ? &d->rkey : &d->wkey, f->ino);
	if (k != AN_NONE)
		return *(uint64_t *)vec__at(&d->keys, k);
	return read ? key_unix(f->ino) : 0;
}

static struct queue *queue_of(struct data *d, uint64_t key)
{
	uint32_t i = htab__get(&d->qidx, key);

	if (i != AN_NONE)
		return vec__at(&d->q, i);
	if (!vec__push(&d->q) || htab__set(&d->qidx, key, d->q.n - 1))
		return NULL;
	return vec__at(&d->q, d->q.n - 1);
}

static int pipe_write(struct data *d, const struct item *it, uint64_t bytes)
{
	uint64_t key = queue_key(d, it->f, false);
	struct queue *q;

	if (!key)
		return 0;	/* a socket whose peer the trace never showed */
	q = queue_of(d, key);
	if (!q)
		return -ENOMEM;
	if (q->n == q->cap) {
		uint32_t cap = q->cap ? q->cap * 2 : 16;
		struct chunk *c = realloc(q->c, cap * sizeof(*c));

		if (!c)
			return -ENOMEM;
		q->c = c;
		q->cap = cap;
	}
	q->c[q->n++] = (struct chunk){ .ev = it->ev, .left = bytes > UINT32_MAX ? UINT32_MAX :
										  bytes };
	return 0;
}

static int pipe_read(struct analysis *an, struct data *d, const struct item *it, uint64_t need)
{
	struct queue *q = queue_of(d, queue_key(d, it->f, true));
	int err = 0;

	if (!q)
		return -ENOMEM;
	while (!err && need && q->head < q->n) {
		struct chunk *c = &q->c[q->head];
		uint32_t take = need < c->left ? need : c->left;

		err = an__edge(an, c->ev, it->ev, AN_RULE_DATA, take);
		c->left -= take;
		need -= take;
		if (!c->left)
			q->head++;
	}
	if (q->head == q->n)
		q->head = q->n = 0;
	an->pipe_bytes_unmatched += need;
	return err;
}

static uint64_t file_offset(const struct iot_syscall *sc, const struct iot_fd *f)
{
	switch (sc->nr) {
	case SYS_pread64:
	case SYS_pwrite64:
	case SYS_preadv:
	case SYS_pwritev:
		return sc->args[3];
	default:
		return (f->flags & O_APPEND) && !(sc->nr == SYS_read) ? f->size : (uint64_t)f->pos;
	}
}

enum { LIST_WRITES, LIST_SHORT_READS };

static struct wlist *wlist_of(struct data *d, const struct iot_fd *f, uint64_t which)
{
	uint64_t id[3] = { f->dev, f->ino, which };
	uint64_t key = hash64(id, sizeof(id));
	uint32_t i = htab__get(&d->widx, key);

	if (i != AN_NONE)
		return vec__at(&d->wl, i);
	if (!vec__push(&d->wl) || htab__set(&d->widx, key, d->wl.n - 1))
		return NULL;
	return vec__at(&d->wl, d->wl.n - 1);
}

static int wlist_add(struct wlist *l, struct wrange r)
{
	if (!l)
		return -ENOMEM;
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 16;
		struct wrange *w = realloc(l->w, cap * sizeof(*w));

		if (!w)
			return -ENOMEM;
		l->w = w;
		l->cap = cap;
	}
	l->w[l->n++] = r;
	return 0;
}

/*
 * Edges from the latest range of each other thread in l that overlaps
 * [off, off + len) and passes `before`, to ev; newest first, bounded.
 */
static int edges_from(struct analysis *an, const struct wlist *l, uint64_t off, uint64_t len,
		      uint32_t ev, bool (*before)(const struct analysis *, uint32_t, uint32_t))
{
	uint32_t seen[64], nseen = 0, tidx = an->ev[ev].tidx;
	int err = 0;

	for (uint32_t k = l->n, scanned = 0; !err && k-- > 0 && scanned < FILE_SCAN_MAX;
	     scanned++) {
		const struct wrange *w = &l->w[k];
		uint32_t j;

		if (w->tidx == tidx || w->off >= off + len || w->off + w->len <= off ||
		    (before && !before(an, w->ev, ev)))
			continue;
		for (j = 0; j < nseen && seen[j] != w->tidx; j++)
			;
		if (j < nseen || nseen == 64)
			continue;
		seen[nseen++] = w->tidx;
		err = an__edge(an, w->ev, ev, AN_RULE_DATA, 0);
	}
	return err;
}

/* The short read had returned before the write began. */
static bool ended_before(const struct analysis *an, uint32_t read, uint32_t write)
{
	return an->ev[read].end < an->ev[write].ts;
}

static int file_write(struct analysis *an, struct data *d, const struct item *it, uint64_t len)
{
	uint64_t off = file_offset(an__rec(an, it->ev), it->f);
	struct wlist *shorts = wlist_of(d, it->f, LIST_SHORT_READS);
	int err;

	if (!shorts)
		return -ENOMEM;
	err = edges_from(an, shorts, off, len, it->ev, ended_before);
	if (!err)
		err = wlist_add(wlist_of(d, it->f, LIST_WRITES),
				(struct wrange){ .off = off, .len = len, .ev = it->ev,
						 .tidx = an->ev[it->ev].tidx });
	return err;
}

/* read/pread64 that got less than it asked for: the range it found empty. */
static int file_short_read(struct analysis *an, struct data *d, const struct item *it)
{
	const struct iot_syscall *sc = an__rec(an, it->ev);
	uint64_t want = sc->args[2], got = sc->ret;

	if ((sc->nr != SYS_read && sc->nr != SYS_pread64) || got >= want)
		return 0;
	return wlist_add(wlist_of(d, it->f, LIST_SHORT_READS),
			 (struct wrange){ .off = file_offset(sc, it->f) + got, .len = want - got,
					  .ev = it->ev, .tidx = an->ev[it->ev].tidx });
}

static int file_read(struct analysis *an, struct data *d, const struct item *it, uint64_t len)
{
	struct wlist *l = wlist_of(d, it->f, LIST_WRITES);
	int err;

	if (!l)
		return -ENOMEM;
	err = len ? edges_from(an, l, file_offset(an__rec(an, it->ev), it->f), len, it->ev,
			       NULL) : 0;
	return err ? err : file_short_read(an, d, it);
}

static int collect(struct analysis *an, struct item **out, uint32_t *nout)
{
	struct item *it = malloc((an->nev + 1) * sizeof(*it));
	uint32_t n = 0;

	if (!it)
		return -ENOMEM;
	for (uint32_t i = 0; i < an->nev; i++) {
		const struct iot_syscall *sc = an__rec(an, i);
		const struct syscall_info *si = syscall__by_nr(sc->nr);
		const struct iot_fd *f;
		struct sc_view v;
		bool rd, file;

		if (!si || (si->cls != SC_READ && si->cls != SC_WRITE) || sc->ret < 0 ||
		    (sc->flags & IOT_SCF_NO_ENTER) || sc_view__parse(&sc->hdr, &v))
			continue;
		f = sc_view__fd(&v, 0);
		if (!f || (f->ftype != IOT_FT_FIFO && f->ftype != IOT_FT_SOCK &&
			   f->ftype != IOT_FT_REG))
			continue;
		rd = si->cls == SC_READ;
		file = f->ftype == IOT_FT_REG;
		if (!sc->ret && !(file && rd))	/* a read at end of file still counts */
			continue;
		it[n++] = (struct item){ .t = rd == file ? an->ev[i].ts : an->ev[i].end,
					 .ev = i, .read = rd, .file = file, .f = f };
	}
	*out = it;
	*nout = n;
	return 0;
}

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->read != y->read)
		return x->read - y->read;
	return x->ev < y->ev ? -1 : (x->ev > y->ev);
}

static void data_free(struct data *d)
{
	for (size_t i = 0; i < d->q.n; i++)
		free(((struct queue *)vec__at(&d->q, i))->c);
	for (size_t i = 0; i < d->wl.n; i++)
		free(((struct wlist *)vec__at(&d->wl, i))->w);
	vec__free(&d->q);
	vec__free(&d->wl);
	vec__free(&d->keys);
	htab__free(&d->qidx);
	htab__free(&d->widx);
	htab__free(&d->wkey);
	htab__free(&d->rkey);
}

int an__data(struct analysis *an)
{
	struct data d = { .q.esz = sizeof(struct queue), .wl.esz = sizeof(struct wlist),
			  .keys.esz = sizeof(uint64_t) };
	struct item *it = NULL;
	uint32_t n = 0;
	int err;

	if (!(an->opts.rules & (1u << AN_RULE_DATA)))
		return 0;
	err = learn_sockets(an, &d);
	if (!err)
		err = collect(an, &it, &n);
	if (!err)
		if (n)
			qsort(it, n, sizeof(*it), cmp_item);
	for (uint32_t i = 0; !err && i < n; i++) {
		uint64_t bytes = an__rec(an, it[i].ev)->ret;

		if (it[i].file)
			err = it[i].read ? file_read(an, &d, &it[i], bytes) :
					   file_write(an, &d, &it[i], bytes);
		else
			err = it[i].read ? pipe_read(an, &d, &it[i], bytes) :
					   pipe_write(&d, &it[i], bytes);
	}
	free(it);
	data_free(&d);
	return err;
}

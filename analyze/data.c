// SPDX-License-Identifier: GPL-2.0
/*
 * Data edges.  Pipes and sockets are byte queues: a write appends its bytes
 * at its enter, a read consumes what it returned at its exit, first in first
 * out, and depends on every write whose bytes it took.  Files: a read depends
 * on the latest write of each other thread that overlapped its range and had
 * returned before the read began; and a read that came up short (end of
 * file) precedes a later write of another thread into the range it missed,
 * or a replay could let the write go first and the read find data.
 * Eventfds are counts: a read takes every write since the previous read, and
 * a write comes after the previous read, or the replay could fold it into
 * that read and leave the next one nothing (EAGAIN).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "analyze/an.h"
#include "lib/sort.h"
#include "lib/record.h"
#include "lib/syscalls.h"

#define FILE_SCAN_MAX 256 /* writes of one file looked back at per read */

struct chunk {
	uint32_t ev;
	uint32_t left; /* bytes not yet read */
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
	uint32_t ev;
	uint8_t read, file;
	const struct iot_fd *f;
};

struct io { /* a read or write collected for the data pass, 8 bytes */
	uint32_t ev;
	uint8_t read, file;
	uint8_t fd;	 /* index of its fd in the record, parsed once by collect() */
	uint8_t counter; /* an eventfd's 8 bytes */
};

struct counter {     /* an eventfd, by process and fd: all anon inodes share one inode */
	uint32_t *w; /* writes since the last read */
	uint32_t n, cap;
	uint32_t last_read; /* AN_NONE before the first */
};

struct wlast { /* wlist_of()'s last answer for one list kind */
	uint64_t ino;
	uint32_t dev, kernel;
	uint32_t idx; /* in wl, or AN_NONE */
};

struct data {
	struct htab qidx, widx, wkey, rkey; /* -> queue, wlist; socket ino -> key slot */
	struct an_vec q, wl, keys;	    /* struct queue, struct wlist, uint64_t */
	struct htab cidx;		    /* -> counter */
	struct an_vec cnt;		    /* struct counter */
	struct wlast last[2];		    /* by LIST_*: reads come in runs of one file */
	uint32_t kernel;		    /* of the call at hand: an__kernel_of() */
};

/* A key of the kernel at hand: two kernels' inodes are not the same objects.  Kernel 0
 * (any single trace) keeps its keys as they are. */
static uint64_t mix(const struct data *d, uint64_t key)
{
	return d->kernel ? key ^ (d->kernel * 0x9e3779b97f4a7c15ull) : key;
}

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
	uint64_t *k = an_vec__push(&d->keys);

	if (!k)
		return -ENOMEM;
	*k = mix(d, key);
	return htab__set(h, mix(d, ino), d->keys.n - 1);
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
		d->kernel = an__kernel_of(an, i);
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
			err = set_key(d, &d->wkey, s->ino, key_inet(s->raddr, s->rport, s->laddr, s->lport)) ?:
				      set_key(d, &d->rkey, s->ino,
					      key_inet(s->laddr, s->lport, s->raddr, s->rport));
	}
	return err;
}

static uint64_t queue_key(struct data *d, const struct iot_fd *f, bool read)
{
	uint32_t k;
	uint64_t id[2] = { f->dev, f->ino };

	if (f->ftype == IOT_FT_FIFO)
		return mix(d, hash64(id, sizeof(id)));
	k = htab__get(read ? &d->rkey : &d->wkey, mix(d, f->ino));
	if (k != AN_NONE)
		return *(uint64_t *)an_vec__at(&d->keys, k);
	return read ? mix(d, key_unix(f->ino)) : 0;
}

static struct queue *queue_of(struct data *d, uint64_t key)
{
	uint32_t i = htab__get(&d->qidx, key);

	if (i != AN_NONE)
		return an_vec__at(&d->q, i);
	if (!an_vec__push(&d->q) || htab__set(&d->qidx, key, d->q.n - 1))
		return NULL;
	return an_vec__at(&d->q, d->q.n - 1);
}

static int pipe_write(struct data *d, const struct item *it, uint64_t bytes)
{
	uint64_t key = queue_key(d, it->f, false);
	struct queue *q;

	if (!key)
		return 0; /* a socket whose peer the trace never showed */
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
	q->c[q->n++] =
		(struct chunk){ .ev = it->ev, .left = bytes > UINT32_MAX ? UINT32_MAX : bytes };
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
	struct wlast *last = &d->last[which];
	uint64_t key;
	uint32_t i;

	if (last->idx != AN_NONE && last->dev == f->dev && last->ino == f->ino &&
	    last->kernel == d->kernel)
		return an_vec__at(&d->wl, last->idx);
	key = mix(d, hash64(id, sizeof(id)));
	i = htab__get(&d->widx, key);
	if (i == AN_NONE) {
		if (!an_vec__push(&d->wl) || htab__set(&d->widx, key, d->wl.n - 1))
			return NULL;
		i = d->wl.n - 1;
	}
	*last = (struct wlast){ .ino = f->ino, .dev = f->dev, .kernel = d->kernel, .idx = i };
	return an_vec__at(&d->wl, i);
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
	return an__end(an, read) < an->ev[write].ts;
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
				(struct wrange){ .off = off,
						 .len = len,
						 .ev = it->ev,
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
			 (struct wrange){ .off = file_offset(sc, it->f) + got,
					  .len = want - got,
					  .ev = it->ev,
					  .tidx = an->ev[it->ev].tidx });
}

static int file_read(struct analysis *an, struct data *d, const struct item *it, uint64_t len)
{
	struct wlist *l = wlist_of(d, it->f, LIST_WRITES);
	int err;

	if (!l)
		return -ENOMEM;
	err = len ? edges_from(an, l, file_offset(an__rec(an, it->ev), it->f), len, it->ev, NULL) :
		    0;
	return err ? err : file_short_read(an, d, it);
}

/* The fd a read or write went through, when it is a stream or a regular file. */
static struct counter *counter_of(struct analysis *an, struct data *d, const struct item *it)
{
	uint32_t k[3] = { an__thread(an, an->ev[it->ev].tidx)->pid, it->f->fd, d->kernel };
	uint64_t key = hash64(k, sizeof(k));
	uint32_t i = htab__get(&d->cidx, key);
	struct counter *c;

	if (i != AN_NONE)
		return an_vec__at(&d->cnt, i);
	if (!(c = an_vec__push(&d->cnt)) || htab__set(&d->cidx, key, d->cnt.n - 1))
		return NULL;
	c->last_read = AN_NONE;
	return c;
}

static int counter_io(struct analysis *an, struct data *d, const struct item *it)
{
	struct counter *c = counter_of(an, d, it);
	int err = 0;

	if (!c)
		return -ENOMEM;
	if (!it->read) {
		if (c->n == c->cap) {
			uint32_t cap = c->cap ? c->cap * 2 : 8,
				 *w = realloc(c->w, cap * sizeof(*w));

			if (!w)
				return -ENOMEM;
			c->w = w;
			c->cap = cap;
		}
		c->w[c->n++] = it->ev;
		return c->last_read == AN_NONE ?
			       0 :
			       an__edge(an, c->last_read, it->ev, AN_RULE_DATA, 0);
	}
	for (uint32_t i = 0; !err && i < c->n; i++)
		err = an__edge(an, c->w[i], it->ev, AN_RULE_DATA, 8);
	c->n = 0;
	c->last_read = it->ev;
	return err;
}

static const struct iot_fd *io_fd(const struct iot_syscall *sc, struct sc_view *v)
{
	const struct iot_fd *f;

	if (sc_view__parse(&sc->hdr, v) || !(f = sc_view__fd(v, 0)))
		return NULL;
	if (f->ftype != IOT_FT_FIFO && f->ftype != IOT_FT_SOCK && f->ftype != IOT_FT_REG &&
	    !(f->ftype == IOT_FT_ANON && sc->ret == 8))
		return NULL;
	return f;
}

static int collect(struct analysis *an, struct io **out, uint32_t *nout)
{
	struct io *io = malloc((an->nev + 1) * sizeof(*io));
	uint32_t n = 0;

	if (!io)
		return -ENOMEM;
	for (uint32_t i = 0; i < an->nev; i++) {
		const struct iot_syscall *sc = an__rec(an, i);
		const struct syscall_info *si = syscall__by_nr(sc->nr);
		const struct iot_fd *f;
		struct sc_view v;
		bool rd, file;

		if (!si || (si->cls != SC_READ && si->cls != SC_WRITE) || sc->ret < 0 ||
		    (sc->flags & IOT_SCF_NO_ENTER) || an__xhost_owns(an, i) || !(f = io_fd(sc, &v)))
			continue;
		rd = si->cls == SC_READ;
		file = f->ftype == IOT_FT_REG;
		if (!sc->ret && !(file && rd)) /* a read at end of file still counts */
			continue;
		io[n++] = (struct io){ .ev = i,
				       .read = rd,
				       .file = file,
				       .fd = f - v.fds,
				       .counter = f->ftype == IOT_FT_ANON };
	}
	*out = io;
	*nout = n;
	return 0;
}

/*
 * The order the queues and ranges are replayed in: by time (a file read and
 * a stream write at their enter, the others at their exit), reads after
 * writes at the same time, then by event.  Two stable radix passes over
 * indices into io, which is in event order already.
 */
static uint32_t *order_io(const struct analysis *an, const struct io *io, uint32_t n)
{
	uint64_t *key = malloc((n + 1) * sizeof(*key));
	uint32_t *o = malloc((n + 1) * sizeof(*o));
	int err = -ENOMEM;

	if (!key || !o)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		key[i] = io[i].read;
		o[i] = i;
	}
	err = sort__by_key(key, o, n);
	for (uint32_t i = 0; !err && i < n; i++) {
		const struct io *x = &io[o[i]];

		key[i] = x->read == x->file ? an->ev[x->ev].ts : an__end(an, x->ev);
	}
	err = err ?: sort__by_key(key, o, n);
out:
	free(key);
	if (err) {
		free(o);
		o = NULL;
	}
	return o;
}

static int apply_io(struct analysis *an, struct data *d, const struct io *x)
{
	const struct iot_syscall *sc = an__rec(an, x->ev);
	struct item it = { .ev = x->ev,
			   .read = x->read,
			   .file = x->file,
			   .f = (const struct iot_fd *)(sc + 1) + x->fd };
	uint64_t bytes = sc->ret;

	d->kernel = an__kernel_of(an, x->ev);
	if (x->counter)
		return counter_io(an, d, &it);
	if (it.file)
		return it.read ? file_read(an, d, &it, bytes) : file_write(an, d, &it, bytes);
	return it.read ? pipe_read(an, d, &it, bytes) : pipe_write(d, &it, bytes);
}

static void data_free(struct data *d)
{
	for (size_t i = 0; i < d->q.n; i++)
		free(((struct queue *)an_vec__at(&d->q, i))->c);
	for (size_t i = 0; i < d->wl.n; i++)
		free(((struct wlist *)an_vec__at(&d->wl, i))->w);
	for (size_t i = 0; i < d->cnt.n; i++)
		free(((struct counter *)an_vec__at(&d->cnt, i))->w);
	an_vec__free(&d->cnt);
	htab__free(&d->cidx);
	an_vec__free(&d->q);
	an_vec__free(&d->wl);
	an_vec__free(&d->keys);
	htab__free(&d->qidx);
	htab__free(&d->widx);
	htab__free(&d->wkey);
	htab__free(&d->rkey);
}

int an__data(struct analysis *an)
{
	struct data d = { .q.esz = sizeof(struct queue),
			  .wl.esz = sizeof(struct wlist),
			  .keys.esz = sizeof(uint64_t),
			  .cnt.esz = sizeof(struct counter),
			  .last = { { .idx = AN_NONE }, { .idx = AN_NONE } } };
	struct io *io = NULL;
	uint32_t n = 0, *order = NULL;
	int err;

	if (!(an->opts.rules & (1u << AN_RULE_DATA)))
		return 0;
	err = learn_sockets(an, &d) ?: an__xhost_edges(an); /* byte ranges across hosts */
	if (!err)
		err = collect(an, &io, &n);
	if (!err && !(order = order_io(an, io, n)))
		err = -ENOMEM;
	for (uint32_t i = 0; !err && i < n; i++)
		err = apply_io(an, &d, &io[order[i]]);
	free(order);
	free(io);
	data_free(&d);
	return err;
}

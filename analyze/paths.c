// SPDX-License-Identifier: GPL-2.0
/*
 * Paths with generations and files by (dev, ino) for the state pass.  Paths
 * are resolved lexically against the cwd or dirfd the trace knew at the call
 * (symlinks are not followed: the trace does not see them resolved).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "analyze/state.h"
#include "lib/path.h"

#define PATH_BUF 4096

uint32_t paths__resolve(struct analysis *an, uint64_t key, int dirfd, const char *path)
{
	struct st_proc *p = state__proc(an, key);
	uint32_t base = AN_NONE;
	char buf[PATH_BUF];
	const char *b;

	if (!path || !p)
		return AN_NONE;
	if (path[0] != '/') {
		if (dirfd == AT_FDCWD) {
			base = p->cwd;
		} else {
			struct fdslot *s = state__fd(p, dirfd, false);

			base = s && s->open ? s->path : AN_NONE;
		}
		b = strtab__str(&an->strs, base);
		if (!b || b[0] != '/')
			return AN_NONE;
		snprintf(buf, sizeof(buf), "%s/%s", b, path);
	} else {
		snprintf(buf, sizeof(buf), "%s", path);
	}
	path__normalize(buf);
	return strtab__intern(&an->strs, buf);
}

static struct pathst *pathst(struct analysis *an, uint32_t path)
{
	struct an_state *st = an->state;

	if (path == AN_NONE)
		return NULL;
	if (path >= st->npaths) {
		uint32_t n = st->npaths ? st->npaths : 256;
		struct pathst *ps;

		while (n <= path)
			n *= 2;
		ps = realloc(st->paths, n * sizeof(*ps));
		if (!ps)
			return NULL;
		for (uint32_t i = st->npaths; i < n; i++)
			ps[i] = (struct pathst){ .res = AN_NONE };
		st->paths = ps;
		st->npaths = n;
	}
	return &st->paths[path];
}

bool paths__known_exists(struct analysis *an, uint32_t path)
{
	struct pathst *ps = pathst(an, path);

	return ps && ps->exists == PATH_EXISTS;
}

int paths__use(struct analysis *an, uint32_t path, uint32_t ev)
{
	struct pathst *ps = pathst(an, path);

	if (!ps)
		return path == AN_NONE ? 0 : -ENOMEM;
	if (ps->res == AN_NONE) { /* existed before the trace: generation 0 */
		ps->res = state__res_new(an, AN_NONE);
		ps->exists = PATH_EXISTS;
	}
	return state__use(an, ps->res, ev, AN_RULE_STAGE);
}

/* A new generation waits for the last action of the one before (name ordering). */
int paths__create(struct analysis *an, uint32_t path, uint32_t ev)
{
	struct pathst *ps = pathst(an, path);
	int err = 0;

	if (!ps)
		return path == AN_NONE ? 0 : -ENOMEM;
	if (ps->res != AN_NONE) {
		err = an__edge(an, state__res(an, ps->res)->last, ev, AN_RULE_NAME, ps->gen);
		ps->gen++;
	}
	ps->res = state__res_new(an, ev);
	ps->exists = PATH_EXISTS;
	return err ? err : (ps->res == AN_NONE ? -ENOMEM : 0);
}

int paths__delete(struct analysis *an, uint32_t path, uint32_t ev)
{
	struct pathst *ps = pathst(an, path);

	if (!ps)
		return path == AN_NONE ? 0 : -ENOMEM;
	if (ps->res == AN_NONE)
		ps->res = state__res_new(an, AN_NONE);
	ps->exists = PATH_GONE;
	return state__delete(an, ps->res, ev);
}

/* Creating or removing a name uses its directory. */
static int use_parent(struct analysis *an, uint32_t path, uint32_t ev)
{
	const char *s = strtab__str(&an->strs, path);
	const char *slash = s ? strrchr(s, '/') : NULL;
	char buf[PATH_BUF];

	if (!slash || slash == s)
		return 0;
	snprintf(buf, sizeof(buf), "%.*s", (int)(slash - s), s);
	return paths__use(an, strtab__intern(&an->strs, buf), ev);
}

static void rewrite(struct analysis *an, uint32_t *p, const char *from, size_t flen, const char *to)
{
	const char *s = strtab__str(&an->strs, *p);
	char buf[PATH_BUF];

	if (!s || strncmp(s, from, flen) || (s[flen] != '/' && s[flen]))
		return;
	snprintf(buf, sizeof(buf), "%s%s", to, s + flen);
	*p = strtab__intern(&an->strs, buf);
}

void paths__moved(struct analysis *an, uint32_t from, uint32_t to)
{
	struct an_state *st = an->state;
	char f[PATH_BUF], t[PATH_BUF];
	size_t flen;

	snprintf(f, sizeof(f), "%s", strtab__str(&an->strs, from));
	snprintf(t, sizeof(t), "%s", strtab__str(&an->strs, to));
	flen = strlen(f);
	for (size_t i = 0; i < st->procs.n; i++) {
		struct st_proc *p = an_vec__at(&st->procs, i);

		rewrite(an, &p->cwd, f, flen, t);
		for (uint32_t fd = 0; fd < p->nfd; fd++)
			if (p->fd[fd].open && p->fd[fd].path != AN_NONE)
				rewrite(an, &p->fd[fd].path, f, flen, t);
	}
}

/*
 * Renaming a directory ends every name under it: the calls that used those
 * names (an open of dir/file) must come before the rename.  Linear in the
 * names seen, but directory renames are rare next to file I/O.
 */
static int delete_below(struct analysis *an, uint32_t dir, uint32_t ev)
{
	struct an_state *st = an->state;
	const char *d = strtab__str(&an->strs, dir);
	size_t dlen = d ? strlen(d) : 0;
	int err = 0;

	for (uint32_t p = 0; p < st->npaths && !err && dlen; p++) {
		struct pathst *ps = &st->paths[p];
		const char *s;

		if (ps->res == AN_NONE || ps->exists != PATH_EXISTS || p == dir)
			continue;
		s = strtab__str(&an->strs, p);
		if (!s || strncmp(s, d, dlen) || s[dlen] != '/')
			continue;
		ps->exists = PATH_GONE;
		err = state__delete(an, ps->res, ev);
	}
	return err;
}

static int do_rename(struct analysis *an, uint32_t from, uint32_t to, uint32_t ev)
{
	int err;

	if (from == AN_NONE || to == AN_NONE)
		return 0;
	/* it worked: from existed (before the trace, unless the trace made it),
	 * and to is now the trace's own */
	an__file_seen(an, from, IOT_FT_NONE, 0, 0, false);
	an__file_seen(an, to, an__file_type(an, from), 0, 0, true);
	err = paths__delete(an, from, ev);
	if (!err)
		err = delete_below(an, from, ev);
	if (!err)
		err = paths__create(an, to, ev);
	if (!err)
		err = use_parent(an, to, ev);
	paths__moved(an, from, to);
	return err;
}

int paths__namespace(struct analysis *an, uint32_t ev, int nr)
{
	uint32_t p0 = an->ev[ev].apath[0], p1 = an->ev[ev].apath[1];
	int err;

	switch (nr) {
	case SYS_mkdir:
	case SYS_mkdirat:
		an__file_seen(an, p0, IOT_FT_DIR, 0, 0, true);
		err = paths__create(an, p0, ev);
		return err ? err : use_parent(an, p0, ev);
	case SYS_rmdir:
	case SYS_unlink:
	case SYS_unlinkat:
		/* it worked, so p0 was there: before the trace, unless it made it */
		an__file_seen(an, p0,
			      nr == SYS_rmdir || (nr == SYS_unlinkat &&
						  (an__rec(an, ev)->args[2] & AT_REMOVEDIR)) ?
				      IOT_FT_DIR :
				      IOT_FT_NONE,
			      0, 0, false);
		err = paths__delete(an, p0, ev);
		return err ? err : use_parent(an, p0, ev);
	case SYS_rename:
	case SYS_renameat:
	case SYS_renameat2:
		return do_rename(an, p0, p1, ev);
	case SYS_link:
	case SYS_linkat:
		err = paths__use(an, p0, ev);
		an__file_seen(an, p1, IOT_FT_REG, 0, 0, true);
		return err ? err : paths__create(an, p1, ev);
	case SYS_symlink:
	case SYS_symlinkat:
		an__file_seen(an, p1 != AN_NONE ? p1 : p0, IOT_FT_LNK, 0, 0, true);
		return paths__create(an, p1 != AN_NONE ? p1 : p0, ev);
	default:
		return 0;
	}
}

uint32_t paths__file_res(struct analysis *an, uint32_t dev, uint64_t ino, uint32_t creator)
{
	struct an_state *st = an->state;
	uint64_t key[2] = { dev, ino };
	uint64_t h;
	uint32_t r;

	if (creator == AN_NONE && st->last_file != AN_NONE && st->last_dev == dev &&
	    st->last_ino == ino)
		return st->last_file;
	h = hash64(key, sizeof(key));
	r = htab__get(&st->file_res, h);
	if (r == AN_NONE || creator != AN_NONE) {
		r = state__res_new(an, creator);
		if (r != AN_NONE && htab__set(&st->file_res, h, r))
			return AN_NONE;
	}
	if (r != AN_NONE) {
		st->last_dev = dev;
		st->last_ino = ino;
		st->last_file = r;
	}
	return r;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * (pid, fd) -> name: the hash table maps the pair to an entry, a closed fd
 * keeps its entry with no name so the next open of that number reuses it.
 * cwd is stored as fd CWD_FD.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/syscall.h>

#include "lib/fdtable.h"
#include "lib/htab.h"
#include "lib/record.h"
#include "lib/syscalls.h"

#define CWD_FD (-1000)

struct fdent {
	uint32_t pid;
	int fd;
	char *name; /* NULL once closed */
};

struct fdtable {
	struct htab idx; /* key(pid, fd) -> index into e */
	struct fdent *e;
	uint32_t n, cap;
};

static uint64_t key(uint32_t pid, int fd)
{
	return ((uint64_t)pid << 32) | (uint32_t)fd;
}

struct fdtable *fdtable__new(void)
{
	return calloc(1, sizeof(struct fdtable));
}

void fdtable__free(struct fdtable *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < t->n; i++)
		free(t->e[i].name);
	free(t->e);
	htab__free(&t->idx);
	free(t);
}

static struct fdent *find(const struct fdtable *t, uint32_t pid, int fd)
{
	uint32_t i = htab__get(&t->idx, key(pid, fd));

	return i == UINT32_MAX ? NULL : &t->e[i];
}

const char *fdtable__get(const struct fdtable *t, uint32_t pid, int fd)
{
	struct fdent *e = find(t, pid, fd);

	return e ? e->name : NULL;
}

static struct fdent *add(struct fdtable *t, uint32_t pid, int fd)
{
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 256;
		struct fdent *n = realloc(t->e, cap * sizeof(*n));

		if (!n)
			return NULL;
		t->e = n;
		t->cap = cap;
	}
	if (htab__set(&t->idx, key(pid, fd), t->n))
		return NULL;
	t->e[t->n] = (struct fdent){ .pid = pid, .fd = fd };
	return &t->e[t->n++];
}

int fdtable__set(struct fdtable *t, uint32_t pid, int fd, const char *name)
{
	struct fdent *e = find(t, pid, fd);
	char *copy = strdup(name);

	if (copy && !e)
		e = add(t, pid, fd);
	if (!copy || !e) {
		free(copy);
		return -ENOMEM;
	}
	free(e->name);
	e->name = copy;
	return 0;
}

void fdtable__del(struct fdtable *t, uint32_t pid, int fd)
{
	struct fdent *e = find(t, pid, fd);

	if (e) {
		free(e->name);
		e->name = NULL;
	}
}

int fdtable__fork(struct fdtable *t, uint32_t parent, uint32_t child)
{
	uint32_t n = t->n;

	for (uint32_t i = 0; i < n; i++) {
		int err;

		if (t->e[i].pid != parent || !t->e[i].name)
			continue;
		err = fdtable__set(t, child, t->e[i].fd, t->e[i].name);
		if (err)
			return err;
	}
	return 0;
}

const char *fdtable__cwd(const struct fdtable *t, uint32_t pid)
{
	return fdtable__get(t, pid, CWD_FD);
}

int fdtable__set_cwd(struct fdtable *t, uint32_t pid, const char *cwd)
{
	return fdtable__set(t, pid, CWD_FD, cwd);
}

const char *fdtable__resolve(const struct fdtable *t, uint32_t pid, int dirfd, const char *path,
			     char *buf, size_t len)
{
	const char *base;

	if (!path || path[0] == '/' || !path[0])
		return path;
	base = dirfd == AT_FDCWD ? fdtable__cwd(t, pid) : fdtable__get(t, pid, dirfd);
	if (!base || base[0] != '/')
		return path;
	snprintf(buf, len, "%s%s%s", base, base[1] ? "/" : "", path);
	return buf;
}

static int name_new_fd(struct fdtable *t, uint32_t pid, const struct iot_fd *f, const char *path)
{
	char buf[64];

	if (!f || f->fd < 0)
		return 0;
	if (path)
		return fdtable__set(t, pid, f->fd, path);
	switch (f->ftype) {
	case IOT_FT_FIFO:
		snprintf(buf, sizeof(buf), "pipe:[%llu]", (unsigned long long)f->ino);
		break;
	case IOT_FT_SOCK:
		snprintf(buf, sizeof(buf), "socket:[%llu]", (unsigned long long)f->ino);
		break;
	case IOT_FT_ANON:
		snprintf(buf, sizeof(buf), "anon_inode:[%llu]", (unsigned long long)f->ino);
		break;
	default:
		return 0;
	}
	return fdtable__set(t, pid, f->fd, buf);
}

static int apply_syscall(struct fdtable *t, const struct iot_hdr *h)
{
	const struct syscall_info *si;
	char buf[4096];
	struct sc_view v;
	const char *p, *old;
	uint32_t pid = h->pid;

	if (sc_view__parse(h, &v) || v.sc->ret < 0 || (v.sc->flags & IOT_SCF_NO_ENTER))
		return 0;
	si = syscall__by_nr(v.sc->nr);
	if (!si)
		return 0;
	switch (si->cls) {
	case SC_OPEN:
		p = sc_view__str(&v, si->desc.str_args & 1 ? 0 : 1);
		if (p)
			p = fdtable__resolve(t, pid,
					     si->desc.fd_args & 1 ? (int)v.sc->args[0] : AT_FDCWD,
					     p, buf, sizeof(buf));
		return name_new_fd(t, pid, sc_view__fd(&v, IOT_FD_RET), p);
	case SC_CLOSE:
		if (v.sc->nr == SYS_close_range) {
			for (uint64_t fd = v.sc->args[0]; fd <= v.sc->args[1] && fd < 65536; fd++)
				fdtable__del(t, pid, fd);
		} else {
			fdtable__del(t, pid, v.sc->args[0]);
		}
		return 0;
	case SC_DUP:
		old = fdtable__get(t, pid, v.sc->args[0]);
		if (!sc_view__fd(&v, IOT_FD_RET))
			return 0;
		if (!old)
			return name_new_fd(t, pid, sc_view__fd(&v, IOT_FD_RET), NULL);
		return fdtable__set(t, pid, v.sc->ret, old);
	case SC_PIPE:
	case SC_SOCKET: {
		int err = name_new_fd(t, pid, sc_view__fd(&v, IOT_FD_RET), NULL);

		if (!err)
			err = name_new_fd(t, pid, sc_view__fd(&v, IOT_FD_RET0), NULL);
		if (!err)
			err = name_new_fd(t, pid, sc_view__fd(&v, IOT_FD_RET1), NULL);
		return err;
	}
	case SC_META:
		if (v.sc->nr == SYS_chdir && (p = sc_view__str(&v, 0)))
			return fdtable__set_cwd(
				t, pid, fdtable__resolve(t, pid, AT_FDCWD, p, buf, sizeof(buf)));
		if (v.sc->nr == SYS_fchdir && (old = fdtable__get(t, pid, v.sc->args[0])))
			return fdtable__set_cwd(t, pid, old);
		return 0;
	}
	return 0;
}

int fdtable__apply(struct fdtable *t, const struct iot_hdr *h)
{
	const char *s[4];

	if (h->size < rec__min_size(h->type))
		return 0; /* damaged: too short for its type */
	switch (h->type) {
	case IOT_REC_FDSNAP: {
		const struct iot_fdsnap *f = (const void *)h;

		if (rec__strings(h, sizeof(*f), f->nstr, s, 1) == 1 && s[0][0])
			return fdtable__set(t, h->pid, f->f.fd, s[0]);
		return 0;
	}
	case IOT_REC_PROC:
		if (rec__strings(h, sizeof(struct iot_proc), ((const struct iot_proc *)h)->nstr, s,
				 4) >= 2 &&
		    s[1][0])
			return fdtable__set_cwd(t, h->pid, s[1]);
		return 0;
	case IOT_REC_FORK: {
		const struct iot_fork *f = (const void *)h;

		return f->thread ? 0 : fdtable__fork(t, h->pid, f->child_pid);
	}
	case IOT_REC_SYSCALL:
		return apply_syscall(t, h);
	}
	return 0;
}

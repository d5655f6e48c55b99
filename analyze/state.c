// SPDX-License-Identifier: GPL-2.0
/*
 * The state pass: replays every call's effect on fd tables, paths and files
 * in exit order (fork and exec records at their time), resolves the paths
 * each call used, and emits the ROOT edges: stage, name and seq.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "lib/sort.h"
#include "analyze/state.h"
#include "lib/record.h"
#include "lib/syscalls.h"

#define CLOSE_RANGE_CLOEXEC_FLAG (1u << 2)

static uint32_t anon_name(struct analysis *an, const struct iot_fd *f)
{
	const char *kind = f->ftype == IOT_FT_FIFO ? "pipe" :
			   f->ftype == IOT_FT_SOCK ? "socket" :
						     "anon_inode";
	char buf[64];

	snprintf(buf, sizeof(buf), "%s:[%llu]", kind, (unsigned long long)f->ino);
	return strtab__intern(&an->strs, buf);
}

static int fd_open(struct analysis *an, struct st_proc *p, const struct iot_fd *f, uint32_t path,
		   uint32_t ev, bool cloexec)
{
	struct fdslot *s = f ? state__fd(p, f->fd, true) : NULL;

	if (!s)
		return f && f->fd >= 0 && f->fd < FD_LIMIT ? -ENOMEM : 0;
	if (path == AN_NONE && f->ftype != IOT_FT_REG && f->ftype != IOT_FT_DIR)
		path = anon_name(an, f);
	*s = (struct fdslot){ .ino = f->ino,
			      .dev = f->dev,
			      .path = path,
			      .ftype = f->ftype,
			      .open = 1,
			      .cloexec = cloexec,
			      .res = state__res_new(an, ev) };
	return s->res == AN_NONE ? -ENOMEM : 0;
}

static int fd_close(struct analysis *an, struct st_proc *p, int fd, uint32_t ev)
{
	struct fdslot *s = state__fd(p, fd, false);

	if (!s || !s->open)
		return 0;
	s->open = 0;
	return ev == AN_NONE ? 0 : state__delete(an, s->res, ev);
}

/* dup, dup2, dup3, fcntl(F_DUPFD*): a new generation of newfd, same file. */
static int fd_dup(struct analysis *an, struct st_proc *p, int oldfd, int newfd, uint32_t ev,
		  bool cloexec)
{
	struct fdslot *o = state__fd(p, oldfd, false);
	struct iot_fd f;
	int err;

	if (oldfd == newfd || !o || !o->open)
		return 0;
	f = (struct iot_fd){ .ino = o->ino, .dev = o->dev, .fd = newfd, .ftype = o->ftype };
	err = fd_close(an, p, newfd, ev);
	return err ? err :
		     fd_open(an, p, &f, f.ftype == IOT_FT_REG ? o->path : AN_NONE, ev, cloexec);
}

static int do_close_range(struct analysis *an, struct st_proc *p, const struct iot_syscall *sc,
			  uint32_t ev)
{
	uint64_t last = sc->args[1] < p->nfd ? sc->args[1] : (uint64_t)p->nfd - 1;
	int err = 0;

	if (!p->nfd)
		return 0;
	for (uint64_t fd = sc->args[0]; !err && fd <= last; fd++) {
		if (sc->args[2] & CLOSE_RANGE_CLOEXEC_FLAG)
			p->fd[fd].cloexec = 1;
		else
			err = fd_close(an, p, fd, ev);
	}
	return err;
}

static bool has_cloexec(const struct syscall_info *si, const struct iot_syscall *sc)
{
	for (int i = 0; i < si->nargs; i++)
		if (si->arg[i] == SA_OFLAGS)
			return sc->args[i] & O_CLOEXEC;
	return false;
}

static int do_fcntl(struct analysis *an, struct st_proc *p, const struct iot_syscall *sc,
		    uint32_t ev)
{
	struct fdslot *s = state__fd(p, sc->args[0], false);

	switch (sc->args[1]) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		return fd_dup(an, p, sc->args[0], sc->ret, ev, sc->args[1] == F_DUPFD_CLOEXEC);
	case F_SETFD:
		if (s)
			s->cloexec = sc->args[2] & FD_CLOEXEC;
		return 0;
	default:
		return 0;
	}
}

/* Which string arguments are paths to resolve (not xattr names, not symlink targets). */
static bool is_path_arg(const struct syscall_info *si, unsigned int which)
{
	const char *n = si->argname[which];

	return si->arg[which] == SA_PATH && n && strcmp(n, "name") && strcmp(n, "target");
}

static void annotate_strings(struct analysis *an, struct st_proc *p, const struct sc_view *v,
			     const struct syscall_info *si, uint32_t ev)
{
	for (unsigned int k = 0; k < v->nstr && k < 2; k++) {
		unsigned int w = v->strh[k]->which;
		int dirfd = AT_FDCWD;

		if (w >= 6 || !is_path_arg(si, w))
			continue;
		if (w > 0 && si->arg[w - 1] == SA_DIRFD)
			dirfd = (int)v->sc->args[w - 1];
		an->ev[ev].apath[k] = paths__resolve(an, p->key, dirfd, v->str[k]);
	}
}

static void annotate_fds(struct analysis *an, struct st_proc *p, const struct sc_view *v,
			 uint32_t ev, bool results)
{
	for (unsigned int i = 0; i < v->sc->nfd && i < 2; i++) {
		const struct iot_fd *f = &v->fds[i];
		struct fdslot *s;

		if ((f->which < 6) == results || f->which == IOT_FD_STAT)
			continue;
		s = state__fd(p, f->fd, false);
		if (s && s->open)
			an->ev[ev].fdpath[i] = s->path;
	}
}

/* A socket's connect, bind or listen: another thread's send on it (Open
 * MPI's PMIx thread, on the socket its main thread connected) needs it done. */
static bool sets_socket_up(const struct iot_syscall *sc, const struct iot_fd *f)
{
	return f->ftype == IOT_FT_SOCK &&
	       (sc->nr == SYS_connect || sc->nr == SYS_bind || sc->nr == SYS_listen) &&
	       (sc->ret == 0 || (sc->nr == SYS_connect && sc->ret == -EINPROGRESS));
}

static int use_fds(struct analysis *an, struct st_proc *p, const struct sc_view *v, uint32_t ev)
{
	int err = 0;

	for (unsigned int i = 0; !err && i < v->sc->nfd; i++) {
		const struct iot_fd *f = &v->fds[i];
		struct fdslot *s = f->which < 6 ? state__fd(p, f->fd, false) : NULL;

		if (!s || !s->open)
			continue;
		if (sets_socket_up(v->sc, f))
			err = state__restage(an, s->res, ev);
		else
			err = state__use(an, s->res, ev, AN_RULE_STAGE);
		if (!err && (f->ftype == IOT_FT_REG || f->ftype == IOT_FT_DIR))
			err = state__use(an, paths__file_res(an, f->dev, f->ino, AN_NONE), ev,
					 AN_RULE_STAGE);
	}
	return err;
}

/* The type a call that succeeded on a path shows that path to have. */
static unsigned int implied_ftype(int nr)
{
	switch (nr) {
	case SYS_chdir:
		return IOT_FT_DIR;
	case SYS_readlink:
	case SYS_readlinkat:
		return IOT_FT_LNK;
	case SYS_truncate:
	case SYS_execve:
		return IOT_FT_REG;
	default:
		return IOT_FT_NONE;
	}
}

/* Path arguments of calls that do not change the namespace are uses. */
static int use_paths(struct analysis *an, const struct sc_view *v, uint32_t ev)
{
	const struct iot_fd *stat = sc_view__fd(v, IOT_FD_STAT);
	int err = 0;

	for (unsigned int k = 0; !err && k < 2; k++)
		if (an->ev[ev].apath[k] != AN_NONE)
			err = paths__use(an, an->ev[ev].apath[k], ev);
	if (stat && an->ev[ev].apath[0] != AN_NONE)
		an__file_seen(an, an->ev[ev].apath[0], rec__ftype_of_mode(stat->flags), stat->size,
			      stat->dev, false);
	else if (an->ev[ev].apath[0] != AN_NONE) /* access, chmod, truncate...: it is there */
		an__file_seen(an, an->ev[ev].apath[0], implied_ftype(v->sc->nr), 0, 0, false);
	if (v->sc->nr == SYS_readlink || v->sc->nr == SYS_readlinkat) {
		const char *t = sc_view__str(v, IOT_STR_RESULT);
		uint32_t fi = htab__get(&an->file_idx, an->ev[ev].apath[0]);

		if (t && fi != AN_NONE) {
			struct an_file *f = an_vec__at(&an->files, fi);

			f->type = IOT_FT_LNK;
			f->target = strtab__intern(&an->strs, t);
		}
	}
	return err;
}

static int do_open(struct analysis *an, struct st_proc *p, const struct sc_view *v,
		   const struct syscall_info *si, uint32_t ev)
{
	const struct iot_fd *f = sc_view__fd(v, IOT_FD_RET);
	uint32_t path = an->ev[ev].apath[0];
	uint64_t flags = 0;
	bool created = false;
	int err = 0;

	for (int i = 0; i < si->nargs; i++)
		if (si->arg[i] == SA_OFLAGS)
			flags = v->sc->args[i];
	if (v->sc->nr == SYS_creat)
		flags = O_CREAT | O_TRUNC | O_WRONLY;
	if (path != AN_NONE && (flags & O_CREAT) &&
	    ((flags & O_EXCL) || (!paths__known_exists(an, path) && f && !f->size))) {
		created = true;
		err = paths__create(an, path, ev);
	} else if (path != AN_NONE) {
		err = paths__use(an, path, ev);
	}
	if (f && path != AN_NONE)
		an__file_seen(an, path, f->ftype, f->size, f->dev, created);
	if (!err && f && (f->ftype == IOT_FT_REG || f->ftype == IOT_FT_DIR))
		err = state__use(an, paths__file_res(an, f->dev, f->ino, created ? ev : AN_NONE),
				 ev, AN_RULE_STAGE);
	return err ? err : fd_open(an, p, f, path, ev, flags & O_CLOEXEC);
}

static int do_fdpair(struct analysis *an, struct st_proc *p, const struct sc_view *v,
		     const struct syscall_info *si, uint32_t ev)
{
	bool cx = has_cloexec(si, v->sc);
	int err = fd_open(an, p, sc_view__fd(v, IOT_FD_RET), AN_NONE, ev, cx);

	if (!err)
		err = fd_open(an, p, sc_view__fd(v, IOT_FD_RET0), AN_NONE, ev, cx);
	if (!err)
		err = fd_open(an, p, sc_view__fd(v, IOT_FD_RET1), AN_NONE, ev, cx);
	return err;
}

static void do_exec(struct analysis *an, uint64_t key)
{
	struct st_proc *p = state__proc(an, key);

	for (uint32_t fd = 0; p && fd < p->nfd; fd++)
		if (p->fd[fd].cloexec)
			fd_close(an, p, fd, AN_NONE);
}

static int do_meta(struct analysis *an, struct st_proc *p, const struct iot_syscall *sc,
		   uint32_t ev)
{
	struct fdslot *s;

	if (sc->nr == SYS_chdir && an->ev[ev].apath[0] != AN_NONE)
		p->cwd = an->ev[ev].apath[0];
	if (sc->nr == SYS_fchdir && (s = state__fd(p, sc->args[0], false)) && s->open)
		p->cwd = s->path;
	return 0;
}

static int apply_class(struct analysis *an, struct st_proc *p, const struct sc_view *v,
		       const struct syscall_info *si, uint32_t ev)
{
	const struct iot_syscall *sc = v->sc;

	switch (si->cls) {
	case SC_OPEN:
		return do_open(an, p, v, si, ev);
	case SC_CLOSE:
		if (sc->nr == SYS_close_range)
			return do_close_range(an, p, sc, ev);
		return fd_close(an, p, sc->args[0], ev);
	case SC_DUP:
		if (sc->nr == SYS_fcntl)
			return do_fcntl(an, p, sc, ev);
		return fd_dup(an, p, sc->args[0], sc->ret, ev, has_cloexec(si, sc));
	case SC_PIPE:
	case SC_SOCKET:
		return do_fdpair(an, p, v, si, ev);
	case SC_NAMESPACE:
		return paths__namespace(an, ev, sc->nr);
	case SC_META:
		return do_meta(an, p, sc, ev);
	case SC_PROCESS:
		if ((sc->nr == SYS_execve || sc->nr == SYS_execveat) && sc->ret == 0)
			do_exec(an, p->key);
		return 0;
	default:
		return 0;
	}
}

static int apply_call(struct analysis *an, uint32_t ev)
{
	const struct iot_syscall *sc = an__rec(an, ev);
	const struct syscall_info *si = syscall__by_nr(sc->nr);
	struct st_proc *p = state__proc(an, an__key(an__trace_of(an, ev), sc->hdr.pid));
	struct sc_view v;
	int err;

	if (!p)
		return -ENOMEM;
	if (!si || sc_view__parse(&sc->hdr, &v))
		return 0;
	annotate_strings(an, p, &v, si, ev);
	annotate_fds(an, p, &v, ev, false);
	if (sc->ret < 0 || (sc->flags & IOT_SCF_NO_ENTER))
		return 0;
	err = use_fds(an, p, &v, ev);
	if (!err && si->cls != SC_NAMESPACE && si->cls != SC_OPEN)
		err = use_paths(an, &v, ev);
	if (!err)
		err = apply_class(an, p, &v, si, ev);
	annotate_fds(an, p, &v, ev, true);
	return err;
}

static int apply_fdsnap(struct analysis *an, const struct iot_hdr *h, uint32_t trace)
{
	const struct iot_fdsnap *fs = (const void *)h;
	struct st_proc *p = state__proc(an, an__key(trace, h->pid));
	const char *s[1] = { 0 };
	uint32_t path = AN_NONE;

	if (!p)
		return -ENOMEM;
	if (rec__strings(h, sizeof(*fs), fs->nstr, s, 1) > 0 && s[0][0]) {
		path = strtab__intern(&an->strs, s[0]);
		if (s[0][0] == '/')
			an__file_seen(an, path, fs->f.ftype, fs->f.size, fs->f.dev, false);
	}
	return fd_open(an, p, &fs->f, path, AN_NONE, fs->f.flags & O_CLOEXEC);
}

static int apply_fork(struct analysis *an, const struct an_side *s)
{
	struct st_proc *parent, *child;

	if (s->type == IOT_REC_EXEC) {
		do_exec(an, an__key(s->trace, s->pid));
		return 0;
	}
	if (s->type != IOT_REC_FORK || s->a == s->pid)
		return 0;
	parent = state__proc(an, an__key(s->trace, s->pid));
	child = parent ? state__proc(an, an__key(s->trace, s->a)) : NULL;
	if (!child)
		return -ENOMEM;
	parent = state__proc(an, an__key(s->trace, s->pid)); /* the vector may have moved */
	free(child->fd);
	child->fd = parent->nfd ? malloc(parent->nfd * sizeof(*child->fd)) : NULL;
	if (parent->nfd && !child->fd)
		return -ENOMEM;
	if (parent->nfd)
		memcpy(child->fd, parent->fd, parent->nfd * sizeof(*child->fd));
	child->nfd = parent->nfd;
	child->cwd = parent->cwd;
	/* the child's fds are new generations in its own table; the fork edge orders them */
	for (uint32_t fd = 0; fd < child->nfd; fd++)
		if (child->fd[fd].open &&
		    (child->fd[fd].res = state__res_new(an, AN_NONE)) == AN_NONE)
			return -ENOMEM;
	return 0;
}

/* Event ids in exit order, ties in id order.  Caller frees. */
uint32_t *an__exit_order(const struct analysis *an)
{
	uint32_t *o = malloc((an->nev + 1) * sizeof(*o));
	uint64_t *end = malloc((an->nev + 1) * sizeof(*end));

	for (uint32_t i = 0; o && end && i < an->nev; i++) {
		o[i] = i;
		end[i] = an__end(an, i);
	}
	if (!o || !end || sort__by_key(end, o, an->nev)) {
		free(o);
		o = NULL;
	}
	free(end);
	return o;
}

/*
 * A symlink chain the recorder found behind a path the trace used: the link
 * is initial state (unless the trace made it), and so is the chain's end, a
 * file the trace may have reached only through stat or exec.  Applied after
 * the walk, which has marked what the trace created.  The recorder writes a
 * chain's links in order: a link the trace never named is taken when it
 * continues the chain of the link before it (*CHAIN_END, that chain's end).
 */
static void apply_link(struct analysis *an, const struct iot_hdr *h, uint32_t *chain_end)
{
	const struct iot_link *l = (const void *)h;
	const char *s[3] = { NULL, NULL, NULL };
	uint32_t path, fi, end;
	struct an_file *f;

	if (rec__strings(h, sizeof(*l), l->nstr, s, 3) != 3 || s[0][0] != '/' || s[2][0] != '/')
		return;
	path = strtab__intern(&an->strs, s[0]);
	end = strtab__intern(&an->strs, s[2]);
	fi = path == AN_NONE ? AN_NONE : htab__get(&an->file_idx, path);
	if (fi == AN_NONE && (end == AN_NONE || end != *chain_end))
		return; /* the trace never saw the path there */
	*chain_end = end;
	if (fi == AN_NONE)
		an__file_seen(an, path, IOT_FT_LNK, 0, l->end_dev, false);
	fi = htab__get(&an->file_idx, path);
	if (fi == AN_NONE)
		return;
	f = an_vec__at(&an->files, fi);
	if (f->created)
		return;
	f->type = IOT_FT_LNK;
	f->target = strtab__intern(&an->strs, s[1]);
	/* a link goes where its chain's end goes (--dev-root) */
	f->dev = l->end_dev;
	if (l->end_mode && (S_ISREG(l->end_mode) || S_ISDIR(l->end_mode)))
		an__file_seen(an, end, rec__ftype_of_mode(l->end_mode),
			      S_ISREG(l->end_mode) ? l->end_size : 0, l->end_dev, false);
}

static int walk(struct analysis *an, const uint32_t *order)
{
	const struct an_side *side = an->side.v;
	uint32_t chain_end = AN_NONE;
	size_t si = 0;
	int err = 0;

	for (size_t i = 0; !err && i < an->snaps.n; i++) {
		const struct an_snap *sn = an_vec__at(&an->snaps, i);
		const struct iot_hdr *h = (const void *)(an->arena + sn->off);

		if (h->type == IOT_REC_FDSNAP)
			err = apply_fdsnap(an, h, sn->trace);
	}
	for (uint32_t i = 0; !err && i < an->nev; i++) {
		while (!err && si < an->side.n && side[si].ts <= an__end(an, order[i]))
			err = apply_fork(an, &side[si++]);
		if (!err)
			err = apply_call(an, order[i]);
	}
	for (size_t i = 0; !err && i < an->snaps.n; i++) {
		const struct iot_hdr *h =
			(const void *)(an->arena +
				       ((struct an_snap *)an_vec__at(&an->snaps, i))->off);

		if (h->type == IOT_REC_LINK)
			apply_link(an, h, &chain_end);
	}
	return err;
}

static void state_free(struct an_state *st)
{
	for (size_t i = 0; i < st->procs.n; i++)
		free(((struct st_proc *)an_vec__at(&st->procs, i))->fd);
	for (size_t i = 0; i < st->res.n; i++)
		free(((struct res *)an_vec__at(&st->res, i))->users);
	an_vec__free(&st->procs);
	an_vec__free(&st->res);
	htab__free(&st->proc_idx);
	htab__free(&st->file_res);
	free(st->paths);
	free(st);
}

int an__state(struct analysis *an)
{
	struct an_state *st = calloc(1, sizeof(*st));
	uint32_t *order = an__exit_order(an);
	int err;

	if (!st || !order) {
		free(st);
		free(order);
		return -ENOMEM;
	}
	st->procs.esz = sizeof(struct st_proc);
	st->res.esz = sizeof(struct res);
	st->last_proc = st->last_file = AN_NONE;
	an->state = st;
	err = walk(an, order);
	an->state = NULL;
	state_free(st);
	free(order);
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/* strace-like rendering of trace records for `iotrace dump`. */
#include <fcntl.h>
#include <stdbool.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/format.h"
#include "lib/fdtable.h"
#include "lib/record.h"
#include "lib/syscalls.h"

/* A string as strace quotes it; "..." after it when the recorder cut it. */
static void quoted(FILE *f, const char *s, bool cut)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\%o", c);
		else
			fputc(c, f);
	}
	fputs(cut ? "\"..." : "\"", f);
}

/* strace's S_IF* spelling of a file mode: S_IFREG|0644. */
static void put_mode(FILE *f, unsigned int mode)
{
	static const struct {
		unsigned int fmt;
		const char *name;
	} types[] = {
		{ S_IFREG, "S_IFREG" },	  { S_IFDIR, "S_IFDIR" }, { S_IFCHR, "S_IFCHR" },
		{ S_IFBLK, "S_IFBLK" },	  { S_IFIFO, "S_IFIFO" }, { S_IFLNK, "S_IFLNK" },
		{ S_IFSOCK, "S_IFSOCK" },
	};
	const char *name = NULL;

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if ((mode & S_IFMT) == types[i].fmt)
			name = types[i].name;
	if (name)
		fprintf(f, "%s|%#03o", name, mode & ~S_IFMT);
	else
		fprintf(f, "%#o", mode);
}

/* The stat fields the recorder keeps; strace -v's spelling for the identity. */
static void stat_result(FILE *f, const struct iot_fd *st, bool statx, bool verbose)
{
	const char *p = statx ? "stx_" : "st_";

	fputc('{', f);
	if (verbose)
		fprintf(f, "%sdev=makedev(%#x, %#x), %sino=%llu, ", p, (st->dev >> 8) & 0xfff,
			(st->dev & 0xff) | ((st->dev >> 12) & 0xfff00), p,
			(unsigned long long)st->ino);
	fprintf(f, "%smode=", p);
	put_mode(f, st->flags);
	fprintf(f, ", %ssize=%llu, ...}", p, (unsigned long long)st->size);
}

/* A user pointer whose contents the recorder did not keep: "..." unless -v. */
static void unrecorded(FILE *f, uint64_t a, bool verbose)
{
	if (!a)
		fputs("NULL", f);
	else if (verbose)
		fprintf(f, "%#llx", (unsigned long long)a);
	else
		fputs("...", f);
}

static void fd_named(FILE *f, const struct sc_view *v, int fd, const struct fdtable *t)
{
	const char *name = t && fd >= 0 ? fdtable__get(t, v->sc->hdr.pid, fd) : NULL;

	fprintf(f, "%d", fd);
	if (name)
		fprintf(f, "<%s>", name);
}

/* What the recorder kept of the memory argument i points to, if anything. */
static bool arg_result(FILE *f, const struct syscall_info *si, const struct sc_view *v, int i,
		       bool verbose)
{
	const struct iot_fd *a, *b;
	const char *res;

	if ((si->desc.flags & (IOT_SCD_STAT | IOT_SCD_STATX)) && i == si->desc.aux) {
		a = sc_view__fd(v, IOT_FD_STAT);
		if (a)
			stat_result(f, a, si->desc.flags & IOT_SCD_STATX, verbose);
		return a != NULL;
	}
	if ((si->desc.flags & IOT_SCD_RESULT) && i == si->desc.res_arg) {
		res = sc_view__str(v, IOT_STR_RESULT);
		if (res)
			quoted(f, res, false);
		return res != NULL;
	}
	if (si->arg[i] == SA_CLONE_PTID && v->sc->ret > 0) {
		/* where the kernel wrote the child's tid, which clone returned */
		fprintf(f, "[%lld]", (long long)v->sc->ret);
		return true;
	}
	if ((si->desc.flags & IOT_SCD_FDPAIR) && i == si->desc.aux) {
		a = sc_view__fd(v, IOT_FD_RET0);
		b = sc_view__fd(v, IOT_FD_RET1);
		if (a && b)
			fprintf(f, "[%d, %d]", a->fd, b->fd);
		return a && b;
	}
	return false;
}

static void path_arg(FILE *f, const struct sc_view *v, int i, bool verbose)
{
	for (unsigned int k = 0; k < v->nstr; k++) {
		if (v->strh[k]->which != i)
			continue;
		if (v->strh[k]->flags & IOT_STRF_FAULT)
			break;
		quoted(f, v->str[k], v->strh[k]->flags & IOT_STRF_TRUNC);
		return;
	}
	unrecorded(f, v->sc->args[i], verbose);
}

/* strace's ["ls", "-l", ...]: "..." after the last string when argv went on. */
static void argv_arg(FILE *f, const struct sc_view *v, uint64_t a, bool verbose)
{
	const struct iot_str *s = NULL;
	struct iot_argv_counts c;
	const char *p = NULL;

	for (unsigned int k = 0; k < v->nstr; k++)
		if (v->strh[k]->which == IOT_STR_ARGV)
			s = v->strh[k], p = v->str[k];
	if (!s || !a) {
		unrecorded(f, a, verbose);
		return;
	}
	if (s->flags & IOT_STRF_ARGV_BAD) {
		fprintf(f, "%#llx", (unsigned long long)a);
		return;
	}
	memcpy(&c, s->pad, sizeof(c));
	fputc('[', f);
	for (unsigned int i = 0; i < c.argc && p < (const char *)(s + 1) + s->len; i++) {
		bool last = i + 1 == c.argc;

		fputs(i ? ", " : "", f);
		quoted(f, p, last && (s->flags & IOT_STRF_TRUNC));
		p += strlen(p) + 1;
	}
	if (s->flags & (IOT_STRF_ARGV_MORE | IOT_STRF_FAULT))
		fputs(c.argc ? ", ..." : "...", f);
	fputc(']', f);
}

/* strace prints envp as its address and a vars count; the address only with -v. */
static void envp_arg(FILE *f, const struct sc_view *v, uint64_t a, bool verbose)
{
	const struct iot_str *s = NULL;
	struct iot_argv_counts c;

	for (unsigned int k = 0; k < v->nstr; k++)
		if (v->strh[k]->which == IOT_STR_ARGV)
			s = v->strh[k];
	if (!s || !a) {
		unrecorded(f, a, verbose);
		return;
	}
	if (s->flags & IOT_STRF_ENV_BAD) {
		fprintf(f, "%#llx", (unsigned long long)a);
		return;
	}
	memcpy(&c, s->pad, sizeof(c));
	if (verbose)
		fprintf(f, "%#llx ", (unsigned long long)a);
	fprintf(f, "/* %u%s vars */", c.envc, s->flags & IOT_STRF_ENV_MORE ? "+" : "");
}

static void one_arg(FILE *f, const struct syscall_info *si, const struct sc_view *v, int i,
		    const struct fdtable *t, bool verbose)
{
	uint64_t a = v->sc->args[i];
	char buf[512];

	if (arg_result(f, si, v, i, verbose))
		return;
	switch (si->arg[i]) {
	case SA_DIRFD:
		if ((int)a == AT_FDCWD)
			break;
		/* fallthrough */
	case SA_FD:
		fd_named(f, v, (int)a, t);
		return;
	case SA_PATH:
		path_arg(f, v, i, verbose);
		return;
	case SA_PTR:
		unrecorded(f, a, verbose);
		return;
	case SA_ARGV:
		argv_arg(f, v, a, verbose);
		return;
	case SA_ENVP:
		envp_arg(f, v, a, verbose);
		return;
	}
	syscall__decode(buf, sizeof(buf), si->arg[i], a, v->sc->args);
	fputs(buf, f);
}

/* -v: the socket's namespace and TCP stream position, which match two hosts' ends. */
static void sock_state(FILE *f, const struct iot_sock *s)
{
	fprintf(f, " <netns=%u", s->netns);
	if (s->sflags & IOT_SOCKF_TCP_SEQ)
		fprintf(f, " %s=%u", s->sflags & IOT_SOCKF_SENT ? "write_seq" : "copied_seq",
			s->tcp_seq);
	fputc('>', f);
}

void format__syscall(FILE *f, const struct iot_hdr *h, const struct fdtable *t, bool verbose)
{
	const struct syscall_info *si;
	struct sc_view v;
	bool first = true;
	char buf[512];

	if (sc_view__parse(h, &v)) {
		fputs("<corrupt syscall record>", f);
		return;
	}
	si = syscall__by_nr(v.sc->nr);
	fprintf(f, "%s(", syscall__name(v.sc->nr));
	for (int n = 0; si && n < si->nargs && !(v.sc->flags & IOT_SCF_NO_ENTER); n++) {
		unsigned int i = syscall__arg_at(si, n);
		const char *label = syscall__arg_label(si, i);

		if (!syscall__arg_shown(si, v.sc->args, i))
			continue;
		fprintf(f, "%s%s%s", first ? "" : ", ", label ? label : "", label ? "=" : "");
		first = false;
		one_arg(f, si, &v, i, t, verbose);
	}
	if (v.sc->flags & IOT_SCF_NO_ENTER)
		fputs("<started before the attach>", f);
	fputs(") = ", f);
	if (v.sc->flags & IOT_SCF_NO_RETURN) {
		fputs("?", f);
		return;
	}
	syscall__decode_ret(buf, sizeof(buf), si, v.sc->args, v.sc->ret);
	fputs(buf, f);
	if (verbose && v.sock)
		sock_state(f, v.sock);
}

static const char *const page_kinds[] = {
	[IOT_PAGE_FAULT] = "fault",
	[IOT_PAGE_MAP] = "map_pages",
	[IOT_PAGE_DIRTY] = "dirty",
	[IOT_PAGE_MISS] = "cache_miss",
};

void format__other(FILE *f, const struct iot_hdr *h)
{
	const struct iot_page *pg = (const void *)h;
	const char *s[4] = { "", "", "", "" };

	if (h->size < rec__min_size(h->type)) {
		fprintf(f, "# damaged record: type %u, %u bytes", h->type, h->size);
		return;
	}
	switch (h->type) {
	case IOT_REC_FORK: {
		const struct iot_fork *fk = (const void *)h;

		fprintf(f, "--- %s %u ---", fk->thread ? "new thread" : "fork child",
			fk->thread ? fk->child_tid : fk->child_pid);
		break;
	}
	case IOT_REC_EXEC:
		fprintf(f, "--- exec %.16s (was tid %u) ---", ((const struct iot_exec *)h)->comm,
			((const struct iot_exec *)h)->old_tid);
		break;
	case IOT_REC_EXIT: {
		int code = ((const struct iot_exit *)h)->exit_code;

		/* strace's words; it too prints one for every thread */
		if (code & 0x7f)
			fprintf(f, "+++ killed by SIG%s%s +++", sigabbrev_np(code & 0x7f) ?: "?",
				code & 0x80 ? " (core dumped)" : "");
		else
			fprintf(f, "+++ exited with %d +++", (code >> 8) & 0xff);
		break;
	}
	case IOT_REC_WAKEUP:
		fprintf(f, "--- woken by %u/%u ---", ((const struct iot_wakeup *)h)->waker_pid,
			((const struct iot_wakeup *)h)->waker_tid);
		break;
	case IOT_REC_SWITCH: {
		const struct iot_switch *sw = (const void *)h;
		bool runnable = sw->prev_state & IOT_SW_PREEMPT || !(sw->prev_state & IOT_SW_STATE);

		fprintf(f, "--- off cpu after %llu ns (%s %u%s) ---",
			(unsigned long long)sw->oncpu_ns, runnable ? "preempted by" : "sleep, then",
			sw->next_tid, sw->prev_state & IOT_SW_NEXT_KERNEL ? ", kernel" : "");
		break;
	}
	case IOT_REC_PAGE:
		fprintf(f, "--- %s %u:%u ino %llu page %llu +%u ---",
			pg->kind < 5 && page_kinds[pg->kind] ? page_kinds[pg->kind] : "page",
			(pg->dev >> 8) & 0xfff, (pg->dev & 0xff) | ((pg->dev >> 12) & 0xfff00),
			(unsigned long long)pg->ino, (unsigned long long)pg->index, pg->npages);
		break;
	case IOT_REC_FDSNAP: {
		const struct iot_fdsnap *fs = (const void *)h;

		rec__strings(h, sizeof(*fs), fs->nstr, s, 1);
		fprintf(f, "# fd %d -> %s pos=%lld flags=%#o ino=%llu size=%llu", fs->f.fd, s[0],
			(long long)fs->f.pos, fs->f.flags, (unsigned long long)fs->f.ino,
			(unsigned long long)fs->f.size);
		break;
	}
	case IOT_REC_PROC:
		rec__strings(h, sizeof(struct iot_proc), ((const struct iot_proc *)h)->nstr, s, 4);
		fprintf(f, "# process %u ppid %u comm %s cwd %s exe %s", h->pid,
			((const struct iot_proc *)h)->ppid, s[0], s[1], s[2]);
		break;
	case IOT_REC_THREAD:
		rec__strings(h, sizeof(struct iot_thread), 1, s, 1);
		fprintf(f, "# thread %u comm %s", h->tid, s[0]);
		break;
	case IOT_REC_MAPSNAP: {
		const struct iot_mapsnap *m = (const void *)h;

		rec__strings(h, sizeof(*m), m->nstr, s, 1);
		fprintf(f, "# map %#llx-%#llx off %#llx %s", (unsigned long long)m->start,
			(unsigned long long)m->end, (unsigned long long)m->offset, s[0]);
		break;
	}
	case IOT_REC_TARGET:
		fprintf(f, "# target %u", h->pid);
		break;
	case IOT_REC_HELPER:
		fprintf(f, "# recorder's thread %u", h->tid);
		break;
	case IOT_REC_SEQEND:
		fprintf(f, "# thread %u ended at seq %u", h->tid,
			((const struct iot_seqend *)h)->last_seq);
		break;
	case IOT_REC_LINK:
		rec__strings(h, sizeof(struct iot_link), ((const struct iot_link *)h)->nstr, s, 3);
		fprintf(f, "# symlink %s -> %s (chain ends at %s)", s[0], s[1], s[2]);
		break;
	case IOT_REC_META:
		fputs("# recording started", f);
		break;
	case IOT_REC_CALLS: {
		char fam[64];

		syscall__format_families(((const struct iot_calls *)h)->families, fam, sizeof(fam));
		fprintf(f, "# recorded only the calls of %s (--calls)", fam);
		break;
	}
	case IOT_REC_FLOOR:
		fprintf(f, "# compute floor after a switch: %u ns",
			((const struct iot_floor *)h)->switch_ns);
		break;
	case IOT_REC_HOST:
		rec__strings(h, sizeof(struct iot_host), ((const struct iot_host *)h)->nstr, s, 3);
		fprintf(f, "# host %s boot_id %s machine_id %s netns %u", s[0], s[1], s[2],
			((const struct iot_host *)h)->netns);
		break;
	case IOT_REC_CLOCK: {
		const struct iot_clock *c = (const void *)h;

		fprintf(f, "# clock at %s: realtime %llu.%09llu monotonic %llu.%09llu (+-%u ns)",
			rec__clock_when(c->when), (unsigned long long)(c->realtime_ns / 1000000000),
			(unsigned long long)(c->realtime_ns % 1000000000),
			(unsigned long long)(c->hdr.ts / 1000000000),
			(unsigned long long)(c->hdr.ts % 1000000000), c->bracket_ns / 2);
		break;
	}
	case IOT_REC_STATS:
		fputs("# recording ended", f);
		break;
	default:
		fprintf(f, "# record type %u, %u bytes", h->type, h->size);
	}
}

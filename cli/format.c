// SPDX-License-Identifier: GPL-2.0
/* strace-like rendering of trace records for `iotrace dump`. */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/futex.h>

#include "cli/format.h"
#include "lib/fdtable.h"
#include "lib/record.h"
#include "lib/syscalls.h"

struct flagname {
	uint64_t bit;
	const char *name;
};

#define F(x) { x, #x }
static const struct flagname oflags[] = {
	/* composite flags before their parts: O_SYNC holds O_DSYNC, O_TMPFILE O_DIRECTORY */
	F(O_WRONLY), F(O_RDWR), F(O_CREAT), F(O_EXCL), F(O_NOCTTY), F(O_TRUNC), F(O_APPEND),
	F(O_NONBLOCK), F(O_SYNC), F(O_DSYNC), F(O_DIRECT), F(O_LARGEFILE), F(O_TMPFILE),
	F(O_DIRECTORY), F(O_NOFOLLOW), F(O_NOATIME), F(O_CLOEXEC), F(O_PATH), { 0, NULL },
};
static const struct flagname prot[] = {
	F(PROT_READ), F(PROT_WRITE), F(PROT_EXEC), { 0, NULL },
};
static const struct flagname mflags[] = {
	F(MAP_SHARED), F(MAP_PRIVATE), F(MAP_FIXED), F(MAP_ANONYMOUS), F(MAP_NORESERVE),
	F(MAP_POPULATE), F(MAP_STACK), F(MAP_HUGETLB), F(MAP_FIXED_NOREPLACE), { 0, NULL },
};
static const struct flagname atflags[] = {
	F(AT_SYMLINK_NOFOLLOW), F(AT_REMOVEDIR), F(AT_SYMLINK_FOLLOW), F(AT_EMPTY_PATH),
	F(AT_NO_AUTOMOUNT), { 0, NULL },
};
#undef F

static const char *const futex_ops[] = {
	[FUTEX_WAIT] = "FUTEX_WAIT", [FUTEX_WAKE] = "FUTEX_WAKE", [FUTEX_FD] = "FUTEX_FD",
	[FUTEX_REQUEUE] = "FUTEX_REQUEUE", [FUTEX_CMP_REQUEUE] = "FUTEX_CMP_REQUEUE",
	[FUTEX_WAKE_OP] = "FUTEX_WAKE_OP", [FUTEX_LOCK_PI] = "FUTEX_LOCK_PI",
	[FUTEX_UNLOCK_PI] = "FUTEX_UNLOCK_PI", [FUTEX_TRYLOCK_PI] = "FUTEX_TRYLOCK_PI",
	[FUTEX_WAIT_BITSET] = "FUTEX_WAIT_BITSET", [FUTEX_WAKE_BITSET] = "FUTEX_WAKE_BITSET",
	[FUTEX_WAIT_REQUEUE_PI] = "FUTEX_WAIT_REQUEUE_PI",
	[FUTEX_CMP_REQUEUE_PI] = "FUTEX_CMP_REQUEUE_PI", [FUTEX_LOCK_PI2] = "FUTEX_LOCK_PI2",
};
static const char *const whence[] = { "SEEK_SET", "SEEK_CUR", "SEEK_END", "SEEK_DATA",
				      "SEEK_HOLE" };
static const char *const fcntl_cmds[] = {
	"F_DUPFD", "F_GETFD", "F_SETFD", "F_GETFL", "F_SETFL", "F_GETLK", "F_SETLK", "F_SETLKW",
};

static void bits(FILE *f, const struct flagname *tab, uint64_t v, bool zero_empty)
{
	bool first = true;

	for (; tab->name; tab++) {
		if ((v & tab->bit) != tab->bit || !tab->bit)
			continue;
		fprintf(f, "%s%s", first ? "" : "|", tab->name);
		first = false;
		v &= ~tab->bit;
	}
	if (v || (first && !zero_empty))
		fprintf(f, "%s%#llx", first ? "" : "|", (unsigned long long)v);
}

void format__flags(FILE *f, unsigned int kind, uint64_t v)
{
	switch (kind) {
	case SA_OFLAGS:
		fputs((v & O_ACCMODE) == O_RDONLY ? "O_RDONLY" : "", f);
		if ((v & O_ACCMODE) == O_RDONLY && (v & ~(uint64_t)O_ACCMODE))
			fputc('|', f);
		if ((v & O_ACCMODE) != O_RDONLY || v & ~(uint64_t)O_ACCMODE)
			bits(f, oflags, v, true);
		break;
	case SA_PROT:
		if (!v)
			fputs("PROT_NONE", f);
		bits(f, prot, v, true);
		break;
	case SA_MFLAGS: bits(f, mflags, v, false); break;
	case SA_ATFLAGS: bits(f, atflags, v, false); break;
	case SA_FUTEX_OP: {
		unsigned int op = v & FUTEX_CMD_MASK;

		if (op < sizeof(futex_ops) / sizeof(futex_ops[0]) && futex_ops[op])
			fputs(futex_ops[op], f);
		else
			fprintf(f, "%u", op);
		if (v & FUTEX_PRIVATE_FLAG)
			fputs("_PRIVATE", f);
		if (v & FUTEX_CLOCK_REALTIME)
			fputs("|FUTEX_CLOCK_REALTIME", f);
		break;
	}
	case SA_WHENCE:
		if (v < 5)
			fputs(whence[v], f);
		else
			fprintf(f, "%llu", (unsigned long long)v);
		break;
	case SA_FCNTL_CMD:
		if (v < 8)
			fputs(fcntl_cmds[v], f);
		else if (v == F_DUPFD_CLOEXEC)
			fputs("F_DUPFD_CLOEXEC", f);
		else
			fprintf(f, "%llu", (unsigned long long)v);
		break;
	default:
		fprintf(f, "%#llx", (unsigned long long)v);
	}
}

void format__errno(FILE *f, int64_t ret)
{
	const char *name = strerrorname_np(-ret);

	fprintf(f, "-1 %s (%s)", name ? name : "E?", strerror(-ret));
}

static void quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			fprintf(f, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void stat_result(FILE *f, const struct iot_fd *st)
{
	fprintf(f, "{st_dev=%u:%u, st_ino=%llu, st_mode=%#o, st_size=%llu}", (st->dev >> 8) & 0xfff,
		(st->dev & 0xff) | ((st->dev >> 12) & 0xfff00), (unsigned long long)st->ino,
		st->flags, (unsigned long long)st->size);
}

static void one_arg(FILE *f, const struct syscall_info *si, const struct sc_view *v, int i,
		    const struct fdtable *t)
{
	uint64_t a = v->sc->args[i];
	const char *name;

	switch (si->arg[i]) {
	case SA_DIRFD:
		if ((int)a == AT_FDCWD) {
			fputs("AT_FDCWD", f);
			break;
		}
		/* fallthrough */
	case SA_FD:
		fprintf(f, "%d", (int)a);
		name = t ? fdtable__get(t, v->sc->hdr.pid, (int)a) : NULL;
		if (name)
			fprintf(f, "<%s>", name);
		break;
	case SA_PATH:
		quoted(f, sc_view__str(v, i));
		break;
	case SA_INT: fprintf(f, "%lld", (long long)a); break;
	case SA_UINT: fprintf(f, "%llu", (unsigned long long)a); break;
	case SA_MODE: fprintf(f, "%#llo", (unsigned long long)a); break;
	case SA_HEX: case SA_PTR: fprintf(f, "%#llx", (unsigned long long)a); break;
	default: format__flags(f, si->arg[i], a);
	}
}

void format__syscall(FILE *f, const struct iot_hdr *h, const struct fdtable *t)
{
	const struct syscall_info *si;
	const struct iot_fd *st;
	const char *res;
	struct sc_view v;
	bool first = true;

	if (sc_view__parse(h, &v)) {
		fputs("<corrupt syscall record>", f);
		return;
	}
	si = syscall__by_nr(v.sc->nr);
	fprintf(f, "%s(", syscall__name(v.sc->nr));
	for (int i = 0; si && i < si->nargs && !(v.sc->flags & IOT_SCF_NO_ENTER); i++) {
		st = (si->desc.flags & (IOT_SCD_STAT | IOT_SCD_STATX)) && i == si->desc.aux ?
			     sc_view__fd(&v, IOT_FD_STAT) : NULL;
		res = (si->desc.flags & IOT_SCD_RESULT) && i == si->desc.res_arg ?
			      sc_view__str(&v, IOT_STR_RESULT) : NULL;
		fputs(first ? "" : ", ", f);
		first = false;
		if (st)
			stat_result(f, st);
		else if (res)
			quoted(f, res);
		else
			one_arg(f, si, &v, i, t);
	}
	if (v.sc->flags & IOT_SCF_NO_ENTER)
		fputs("<started before the attach>", f);
	fputs(") = ", f);
	if (v.sc->flags & IOT_SCF_NO_RETURN)
		fputs("?", f);
	else if (v.sc->ret < 0 && v.sc->ret >= -4095)
		format__errno(f, v.sc->ret);
	else if (si && si->cls == SC_MMAP && v.sc->nr == 9)
		fprintf(f, "%#llx", (unsigned long long)v.sc->ret);
	else
		fprintf(f, "%lld", (long long)v.sc->ret);
}

static const char *const page_kinds[] = {
	[IOT_PAGE_FAULT] = "fault", [IOT_PAGE_MAP] = "map_pages",
	[IOT_PAGE_DIRTY] = "dirty", [IOT_PAGE_MISS] = "cache_miss",
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
	case IOT_REC_EXIT:
		fprintf(f, "+++ exited with %d%s +++", ((const struct iot_exit *)h)->exit_code >> 8,
			((const struct iot_exit *)h)->group_dead ? ", process gone" : "");
		break;
	case IOT_REC_WAKEUP:
		fprintf(f, "--- woken by %u/%u ---", ((const struct iot_wakeup *)h)->waker_pid,
			((const struct iot_wakeup *)h)->waker_tid);
		break;
	case IOT_REC_SWITCH:
		fprintf(f, "--- off cpu after %llu ns (%s) ---",
			(unsigned long long)((const struct iot_switch *)h)->oncpu_ns,
			((const struct iot_switch *)h)->prev_state ? "sleep" : "preempted");
		break;
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
	case IOT_REC_SEQEND:
		fprintf(f, "# thread %u ended at seq %u", h->tid,
			((const struct iot_seqend *)h)->last_seq);
		break;
	case IOT_REC_META:
		fputs("# recording started", f);
		break;
	case IOT_REC_STATS:
		fputs("# recording ended", f);
		break;
	default:
		fprintf(f, "# record type %u, %u bytes", h->type, h->size);
	}
}

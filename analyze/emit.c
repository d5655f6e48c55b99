// SPDX-License-Identifier: GPL-2.0
/*
 * The annotated trace, docs/annotated-format.md: a header line written with
 * jansson, then one line per call in enter-time order from a buffered writer
 * (jansson objects per event would cost several times the analysis itself).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <jansson.h>

#include "analyze/an.h"
#include "analyze/xhost.h"
#include "analyze/jw.h"
#include "lib/record.h"
#include "lib/syscalls.h"

#define AN_FORMAT_VERSION 1
/* the longest gap after an empty poll that is a busy wait's turn, not compute */
#define SPIN_GAP_MAX_NS 100000

static const char *const ftype_names[] = {
	[IOT_FT_NONE] = "none",	  [IOT_FT_REG] = "file",    [IOT_FT_DIR] = "dir",
	[IOT_FT_FIFO] = "fifo",	  [IOT_FT_SOCK] = "socket", [IOT_FT_CHR] = "chr",
	[IOT_FT_BLK] = "blk",	  [IOT_FT_LNK] = "symlink", [IOT_FT_ANON] = "anon",
	[IOT_FT_OTHER] = "other",
};

const char *an__ftype_name(unsigned int t)
{
	return t <= IOT_FT_OTHER ? ftype_names[t] : "other";
}

/* A piece of JSON text escaped once and copied for every line that has it. */
struct text {
	char *s;
	uint32_t len;
};

/* The constant parts of the lines of one syscall number. */
struct call_text {
	struct text head;   /* ,"call":"NAME","args":{ */
	struct text key[6]; /* "ARGNAME": */
	bool wide[6];	    /* an SA_INT printed as 64 bits (offsets, lengths) */
};

/*
 * Writing the event lines.  Names of calls and arguments and the interned
 * paths repeat on most of a million lines: each is quoted and escaped the
 * first time, then copied.
 */
struct emit {
	struct jw *w;
	const struct analysis *an;
	struct call_text **call; /* by syscall number, built on first use */
	struct text *str;	 /* by interned string id, built on first use */
	struct jw_num *nums;	 /* NUM_NR per thread */
	struct jw_num *num;	 /* the current line's thread's */
	struct text *host;	 /* multi-host: ,"host":"NAME" by host index */
};

/*
 * Numbers that repeat from one call of a thread to its next (its pid and
 * tid, the fd, file and buffer it reads, the size it asks for) are copied
 * from that thread's previous line instead of formatted again.
 */
enum { NUM_PID, NUM_TID, NUM_DEV, NUM_INO, NUM_POS, NUM_RET, NUM_ARG0, NUM_NR = NUM_ARG0 + 6 };

static int text_set(struct text *t, const char *pre, const char *s, const char *post)
{
	size_t a = strlen(pre), c = strlen(post), b;

	t->s = malloc(a + JW_QUOTED_MAX(strlen(s)) + c + 1);
	if (!t->s)
		return -ENOMEM;
	memcpy(t->s, pre, a);
	b = jw__quote(t->s + a, s);
	memcpy(t->s + a + b, post, c + 1);
	t->len = a + b + c;
	return 0;
}

static void text_put(struct emit *e, const struct text *t)
{
	jw__raw(e->w, t->s, t->len);
}

static bool offset_like(const char *name)
{
	return name && (strstr(name, "offset") || strstr(name, "pos") || !strcmp(name, "len") ||
			!strcmp(name, "length"));
}

static struct call_text *call_text_new(int nr, const struct syscall_info *si)
{
	struct call_text *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return NULL;
	err = text_set(&c->head, ",\"call\":", syscall__name(nr), ",\"args\":{");
	for (unsigned int i = 0; !err && si && i < 6; i++) {
		err = text_set(&c->key[i], "", si->argname[i] ? si->argname[i] : "arg", ":");
		c->wide[i] = offset_like(si->argname[i]);
	}
	if (!err)
		return c;
	for (unsigned int i = 0; i < 6; i++)
		free(c->key[i].s);
	free(c->head.s);
	free(c);
	return NULL;
}

/* The constant parts for nr, or NULL on ENOMEM (recorded in the writer). */
static const struct call_text *call_text(struct emit *e, uint16_t nr)
{
	if (!e->call[nr] && !(e->call[nr] = call_text_new(nr, syscall__by_nr(nr))))
		e->w->err = e->w->err ?: -ENOMEM;
	return e->call[nr];
}

/* An interned string, quoted; false on ENOMEM (recorded in the writer). */
static bool put_istr(struct emit *e, uint32_t id)
{
	struct text *t = &e->str[id];

	if (!t->s && text_set(t, "", strtab__str(&e->an->strs, id), "")) {
		e->w->err = e->w->err ?: -ENOMEM;
		return false;
	}
	text_put(e, t);
	return true;
}

static void emit_free(struct emit *e)
{
	for (size_t nr = 0; e->call && nr <= UINT16_MAX; nr++) {
		if (!e->call[nr])
			continue;
		for (unsigned int i = 0; i < 6; i++)
			free(e->call[nr]->key[i].s);
		free(e->call[nr]->head.s);
		free(e->call[nr]);
	}
	for (uint32_t i = 0; e->str && i < e->an->strs.n; i++)
		free(e->str[i].s);
	for (size_t i = 0; e->host && i < e->an->hosts.n; i++)
		free(e->host[i].s);
	free(e->host);
	free(e->call);
	free(e->str);
	free(e->nums);
	free(e->w);
}

#define LIT(s)                             \
	{                                  \
		(char *)(s), sizeof(s) - 1 \
	}

static const struct text ftype_text[] = {
	[IOT_FT_NONE] = LIT(",\"type\":\"none\",\"dev\":"),
	[IOT_FT_REG] = LIT(",\"type\":\"file\",\"dev\":"),
	[IOT_FT_DIR] = LIT(",\"type\":\"dir\",\"dev\":"),
	[IOT_FT_FIFO] = LIT(",\"type\":\"fifo\",\"dev\":"),
	[IOT_FT_SOCK] = LIT(",\"type\":\"socket\",\"dev\":"),
	[IOT_FT_CHR] = LIT(",\"type\":\"chr\",\"dev\":"),
	[IOT_FT_BLK] = LIT(",\"type\":\"blk\",\"dev\":"),
	[IOT_FT_LNK] = LIT(",\"type\":\"symlink\",\"dev\":"),
	[IOT_FT_ANON] = LIT(",\"type\":\"anon\",\"dev\":"),
	[IOT_FT_OTHER] = LIT(",\"type\":\"other\",\"dev\":"),
};

static void put_fd(struct emit *e, uint32_t id, const struct sc_view *v, unsigned int which,
		   struct jw_num *num, int fd)
{
	const struct analysis *an = e->an;
	struct jw *w = e->w;

	jw__lit(w, "{\"fd\":");
	jw__s64_memo(w, num, fd);
	for (unsigned int i = 0; i < v->sc->nfd; i++) {
		const struct iot_fd *f = &v->fds[i];
		uint32_t path = i < 2 ? an->ev[id].fdpath[i] : AN_NONE;

		if (f->which != which)
			continue;
		if (path < an->strs.n) {
			jw__lit(w, ",\"path\":");
			put_istr(e, path);
		}
		text_put(e, &ftype_text[f->ftype <= IOT_FT_OTHER ? f->ftype : IOT_FT_OTHER]);
		jw__u64_memo(w, &e->num[NUM_DEV], f->dev);
		jw__lit(w, ",\"ino\":");
		jw__u64_memo(w, &e->num[NUM_INO], f->ino);
		jw__lit(w, ",\"pos\":");
		jw__s64_memo(w, &e->num[NUM_POS], f->pos);
		break;
	}
	jw__lit(w, "}");
}

static void put_arg(struct emit *e, uint32_t id, const struct sc_view *v,
		    const struct syscall_info *si, const struct call_text *ct, unsigned int i)
{
	struct jw *w = e->w;
	uint64_t raw = v->sc->args[i];
	const char *s;

	text_put(e, &ct->key[i]);
	switch (si->arg[i]) {
	case SA_DIRFD:
		if ((int32_t)raw == AT_FDCWD) {
			jw__lit(w, "\"AT_FDCWD\"");
			return;
		}
		/* fallthrough */
	case SA_FD:
		put_fd(e, id, v, i, &e->num[NUM_ARG0 + i], (int32_t)raw);
		return;
	case SA_PATH:
		s = sc_view__str(v, i);
		if (s)
			jw__str(w, s);
		else
			jw__lit(w, "null");
		return;
	case SA_INT:
	case SA_SOCKPROTO: /* ints the dump names: the same numbers as before */
	case SA_SHUT_HOW:
	case SA_FLOCK_OP:
	case SA_FADVICE:
	case SA_MADVICE:
	case SA_EPOLL_OP:
	case SA_CLOCKID:
	case SA_IDTYPE:
	case SA_FUTEX_VAL3:
		jw__s64_memo(w, &e->num[NUM_ARG0 + i],
			     ct->wide[i] ? (int64_t)raw : (int64_t)(int32_t)raw);
		return;
	default:
		/* a register holds anything in an argument the call ignores
		 * (FUTEX_WAKE's uaddr2): above INT64_MAX it goes out as its
		 * two's complement, which every JSON reader with 64-bit
		 * integers takes (jansson refuses the unsigned number) */
		if (raw > INT64_MAX)
			jw__s64_memo(w, &e->num[NUM_ARG0 + i], (int64_t)raw);
		else
			jw__u64_memo(w, &e->num[NUM_ARG0 + i], raw);
		return;
	}
}

static void put_resolved(struct emit *e, uint32_t id, const struct sc_view *v,
			 const struct syscall_info *si, const struct call_text *ct)
{
	const struct analysis *an = e->an;
	bool any = false;

	for (unsigned int k = 0; k < v->nstr && k < 2; k++) {
		uint32_t p = an->ev[id].apath[k];
		unsigned int which = v->strh[k]->which;

		if (p >= an->strs.n || which >= 6 || !si->argname[which])
			continue;
		jw__lit(e->w, any ? "," : ",\"resolved\":{");
		text_put(e, &ct->key[which]);
		put_istr(e, p);
		any = true;
	}
	if (any)
		jw__lit(e->w, "}");
}

static void put_addr(struct jw *w, const char *key, const uint8_t *a, unsigned int family,
		     unsigned int port)
{
	char buf[INET6_ADDRSTRLEN] = "";

	jw__key(w, key);
	if (family == AF_INET || family == AF_INET6)
		inet_ntop(family, a, buf, sizeof(buf));
	jw__str(w, buf);
	jw__lit(w, ",\"");
	jw__lit(w, key[0] == 'l' ? "lport" : "rport");
	jw__lit(w, "\":");
	jw__u64(w, port);
}

static void put_sock(struct jw *w, const struct iot_sock *s)
{
	jw__lit(w, ",\"sock\":{\"family\":");
	jw__u64(w, s->family);
	jw__lit(w, ",\"type\":");
	jw__u64(w, s->type);
	jw__lit(w, ",\"ino\":");
	jw__u64(w, s->ino);
	jw__lit(w, ",\"peer_ino\":");
	jw__u64(w, s->peer_ino);
	jw__lit(w, ",");
	put_addr(w, "laddr", s->laddr, s->family, s->lport);
	jw__lit(w, ",");
	put_addr(w, "raddr", s->raddr, s->family, s->rport);
	jw__lit(w, "}");
}

static void put_deps(struct jw *w, const struct analysis *an, uint32_t id)
{
	const struct an_edge *d = an->deps.v;

	jw__lit(w, ",\"deps\":[");
	for (uint32_t k = an->dep_off[id]; k < an->dep_off[id + 1]; k++) {
		jw__lit(w, k == an->dep_off[id] ? "{\"id\":" : ",{\"id\":");
		jw__u64(w, d[k].from);
		jw__lit(w, ",\"kind\":\"");
		jw__lit(w, an_rule__name(d[k].kind));
		jw__lit(w, "\"}");
	}
	jw__lit(w, "]");
}

/* A poll that did not wait (timeout 0) and found nothing. */
static bool empty_poll(const struct iot_syscall *sc)
{
	if (sc->ret != 0)
		return false;
	switch (sc->nr) {
	case SYS_poll:
		return (int)sc->args[2] == 0;
	case SYS_epoll_wait:
	case SYS_epoll_pwait:
		return (int)sc->args[3] == 0;
	default:
		return false;
	}
}

/* A short gap after an empty poll is a busy wait's turn (Open MPI's
 * progress engine polls its sockets while a call waits for a message):
 * waiting, which the replay does at the call the message releases, not
 * computing, which it would spin before each of the hundred thousand polls. */
static bool spin_gap(const struct analysis *an, const struct an_thread *t, const struct an_event *e,
		     uint64_t c)
{
	return c < SPIN_GAP_MAX_NS && e->pos && empty_poll(an__rec(an, t->ev[e->pos - 1]));
}

/* On-CPU time since the previous call returned, less the recording's compute
 * floor (syscall exit and entry, the tracer: the replay pays its own), or the
 * wall gap when unknown; 0 for a busy wait's turn (*spin). */
uint64_t an__compute(const struct analysis *an, uint32_t id, bool *wall, bool *spin)
{
	const struct an_event *e = &an->ev[id];
	const struct iot_syscall *sc = an__rec(an, id);
	const struct an_thread *t = an__thread(an, e->tidx);
	uint64_t prev_end, c;

	*wall = sc->flags & IOT_SCF_NO_CPU;
	*spin = false;
	if (!*wall) {
		c = sc->cpu_ns > an__floor_of(an, id) ? sc->cpu_ns - an__floor_of(an, id) : 0;
		*spin = spin_gap(an, t, e, c);
		return *spin ? 0 : c;
	}
	if (!e->pos)
		return 0;
	prev_end = an__end(an, t->ev[e->pos - 1]);
	return e->ts > prev_end ? e->ts - prev_end : 0;
}

static void put_times(struct emit *em, uint32_t id)
{
	const struct analysis *an = em->an;
	struct jw *w = em->w;
	const struct an_event *e = &an->ev[id];
	const struct iot_syscall *sc = an__rec(an, id);
	bool wall, spin;
	uint64_t c = an__compute(an, id, &wall, &spin);

	jw__lit(w, ",\"ret\":");
	jw__s64_memo(w, &em->num[NUM_RET], sc->ret);
	jw__lit(w, ",\"ts\":");
	jw__u64(w, e->ts > an->t0 ? e->ts - an->t0 : 0);
	jw__lit(w, ",\"dur\":");
	jw__u64(w, sc->dur_ns);
	jw__lit(w, ",\"compute_ns\":");
	jw__u64(w, c);
	jw__lit(w, wall ? ",\"compute_src\":\"wall\"" :
		   spin ? ",\"compute_src\":\"spin\"" :
			  ",\"compute_src\":\"oncpu\"");
	if (an->outside_ns && an->outside_ns[id]) {
		jw__lit(w, ",\"outside_ns\":");
		jw__u64(w, an->outside_ns[id]);
	}
	if (sc->flags & IOT_SCF_NO_ENTER)
		jw__lit(w, ",\"no_enter\":true");
	if (sc->flags & IOT_SCF_NO_RETURN)
		jw__lit(w, ",\"no_return\":true");
	if (an->evflags[id] & EVF_GAP_BEFORE)
		jw__lit(w, ",\"gap_before\":true");
}

/* pipe, pipe2, socketpair: the two fds they returned, [read end, write end]. */
static void put_ret_fds(struct jw *w, const struct sc_view *v)
{
	const struct iot_fd *f0 = sc_view__fd(v, IOT_FD_RET0), *f1 = sc_view__fd(v, IOT_FD_RET1);

	if (!f0 || !f1)
		return;
	jw__lit(w, ",\"ret_fds\":[");
	jw__s64(w, f0->fd);
	jw__lit(w, ",");
	jw__s64(w, f1->fd);
	jw__lit(w, "]");
}

/* sendmsg, recvmsg: the fd an SCM_RIGHTS message carried, in the caller's table. */
static void put_passed_fd(struct jw *w, const struct sc_view *v)
{
	const struct iot_fd *f = sc_view__fd(v, IOT_FD_PASSED);

	if (!f)
		return;
	jw__lit(w, ",\"passed_fd\":");
	jw__s64(w, f->fd);
}

/* mmap I/O the thread did before this call: pages to touch first. */
static void put_pages(struct jw *w, const struct analysis *an, uint32_t id, size_t *pi)
{
	static const char *const kinds[] = {
		[IOT_PAGE_FAULT] = "fault", [IOT_PAGE_MAP] = "map_pages", [IOT_PAGE_DIRTY] = "dirty"
	};
	const struct an_page *pg = an->pages.v;
	bool first = true;

	for (; *pi < an->pages.n && pg[*pi].ev == id; (*pi)++) {
		const struct an_page *p = &pg[*pi];

		jw__lit(w, first ? ",\"pages\":[{\"dev\":" : ",{\"dev\":");
		jw__u64(w, p->dev);
		jw__lit(w, ",\"ino\":");
		jw__u64(w, p->ino);
		jw__lit(w, ",\"index\":");
		jw__u64(w, p->index);
		jw__lit(w, ",\"n\":");
		jw__u64(w, p->npages);
		jw__lit(w, ",\"kind\":\"");
		jw__lit(w, kinds[p->kind]);
		jw__lit(w, "\"}");
		first = false;
	}
	if (!first)
		jw__lit(w, "]");
}

/* A call on a connection matched across hosts, and the stream bytes it moved. */
static void put_conn(struct jw *w, const struct analysis *an, uint32_t id)
{
	uint64_t s0, s1;
	uint32_t c = xhost__conn_of(an, id, &s0, &s1);

	if (c == AN_NONE)
		return;
	jw__lit(w, ",\"conn\":");
	jw__u64(w, c);
	if (s1 == s0)
		return;
	jw__lit(w, ",\"stream\":[");
	jw__u64(w, s0);
	jw__lit(w, ",");
	jw__u64(w, s1);
	jw__lit(w, "]");
}

static void put_event(struct emit *e, uint32_t id, size_t *pi)
{
	const struct analysis *an = e->an;
	const struct iot_syscall *sc = an__rec(an, id);
	const struct syscall_info *si = syscall__by_nr(sc->nr);
	const struct call_text *ct = call_text(e, sc->nr);
	struct jw *w = e->w;
	struct sc_view v;

	if (!ct)
		return;
	jw__lit(w, "{\"type\":\"event\",\"id\":");
	jw__u64(w, id);
	e->num = e->nums + (size_t)an->ev[id].tidx * NUM_NR;
	jw__lit(w, ",\"pid\":");
	jw__u64_memo(w, &e->num[NUM_PID], sc->hdr.pid);
	jw__lit(w, ",\"tid\":");
	jw__u64_memo(w, &e->num[NUM_TID], sc->hdr.tid);
	/* tids are one kernel's: two hosts may both have a thread 10 */
	if (e->host)
		text_put(e, &e->host[an__thread(an, an->ev[id].tidx)->host]);
	text_put(e, &ct->head);
	sc_view__parse(&sc->hdr, &v);
	for (unsigned int i = 0; si && !(sc->flags & IOT_SCF_NO_ENTER) && i < si->nargs; i++) {
		if (i)
			jw__lit(w, ",");
		put_arg(e, id, &v, si, ct, i);
	}
	jw__lit(w, "}");
	if (si)
		put_resolved(e, id, &v, si, ct);
	if (v.sock)
		put_sock(w, v.sock);
	if (an->multi)
		put_conn(w, an, id);
	put_ret_fds(w, &v);
	put_passed_fd(w, &v);
	put_pages(w, an, id, pi);
	put_times(e, id);
	put_deps(w, an, id);
	jw__lit(w, "}\n");
}

static json_t *threads_json(const struct analysis *an)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < an->threads.n; i++) {
		const struct an_thread *t = an__thread(an, i);
		const char *comm = strtab__str(&an->strs, t->comm);

		json_t *o =
			json_pack("{s:I, s:I, s:s?, s:I}", "tid", (json_int_t)t->tid, "pid",
				  (json_int_t)t->pid, "comm", comm, "events", (json_int_t)t->nev);

		if (an->multi)
			json_object_set_new(o, "host", json_string(an__host_name(an, t->host)));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *procs_json(const struct analysis *an)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < an->procs.n; i++) {
		const struct an_proc *p = an_vec__at(&an->procs, i);

		json_t *o = json_pack(
			"{s:I, s:I, s:s?, s:s?, s:s?}", "pid", (json_int_t)p->pid, "ppid",
			(json_int_t)p->ppid, "comm", strtab__str(&an->strs, p->comm), "cwd",
			strtab__str(&an->strs, p->cwd), "exe", strtab__str(&an->strs, p->exe));

		if (an->multi)
			json_object_set_new(o, "host", json_string(an__host_name(an, p->host)));
		json_array_append_new(a, o);
	}
	return a;
}

static void add_file(json_t *a, json_t *seen, const char *path, const char *type, uint64_t size,
		     const char *target, uint32_t dev)
{
	json_t *o;

	if (json_object_get(seen, path))
		return;
	json_object_set_new(seen, path, json_true());
	o = json_pack("{s:s, s:s}", "path", path, "type", type);
	if (!strcmp(type, "file"))
		json_object_set_new(o, "size", json_integer(size));
	if (target)
		json_object_set_new(o, "target", json_string(target));
	if (dev)
		json_object_set_new(o, "dev", json_integer(dev));
	json_array_append_new(a, o);
}

/*
 * Files, directories, symlinks and special files (fifos, sockets, device
 * nodes) the trace used and did not create, and the directories above them
 * and above what it created, unless the trace made those too: the replay
 * creates exactly these before it starts.
 */
static json_t *files_json(const struct analysis *an)
{
	json_t *a = json_array(), *seen = json_object(), *created = json_object();
	json_t *parents = json_object(); /* every directory above a listed path */
	char buf[4096];

	for (size_t i = 0; i < an->files.n; i++) {
		const struct an_file *f = an_vec__at(&an->files, i);
		const char *p = strtab__str(&an->strs, f->path);

		if (!p)
			continue;
		if (f->created)
			json_object_set_new(created, p, json_true());
		snprintf(buf, sizeof(buf), "%s", p);
		for (char *s = strrchr(buf, '/'); s && s > buf; s = strrchr(buf, '/')) {
			*s = '\0';
			if (json_object_get(parents, buf))
				break;
			json_object_set_new(parents, buf, json_true());
		}
	}
	for (size_t i = 0; i < an->files.n; i++) {
		const struct an_file *f = an_vec__at(&an->files, i);
		const char *p = strtab__str(&an->strs, f->path);
		unsigned int type = f->type;

		if (!p || p[0] != '/')
			continue;
		/* only known to exist: a directory if something lives under it */
		if (type == IOT_FT_NONE)
			type = json_object_get(parents, p) ? IOT_FT_DIR : IOT_FT_REG;
		if (type == IOT_FT_ANON || type == IOT_FT_OTHER)
			continue;
		snprintf(buf, sizeof(buf), "%s", p);
		for (char *s = strchr(buf + 1, '/'); s; s = strchr(s + 1, '/')) {
			*s = '\0';
			if (!json_object_get(created, buf))
				add_file(a, seen, buf, "dir", 0, NULL, 0);
			*s = '/';
		}
		if (!f->created)
			add_file(a, seen, p, an__ftype_name(type), f->size,
				 strtab__str(&an->strs, f->target), f->dev);
	}
	json_decref(seen);
	json_decref(created);
	json_decref(parents);
	return a;
}

json_t *an__counters_json(const struct analysis *an)
{
	json_t *edges = json_object(), *rules = json_array();

	for (int r = 0; r < AN_RULE_NR; r++) {
		json_object_set_new(edges, an_rule__name(r), json_integer(an->edge_count[r]));
		if (an->opts.rules & (1u << r))
			json_array_append_new(rules, json_string(an_rule__name(r)));
	}
	json_t *o;

	o = json_pack("{s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "edges", edges, "rules",
		      rules, "edges_raw", (json_int_t)an->edges_raw, "edges_reduced",
		      (json_int_t)an->edges_reduced, "edges_dropped_gap", (json_int_t)an->edges_gap,
		      "edges_dropped_time", (json_int_t)an->edges_time, "blocked_unexplained",
		      (json_int_t)an->blocked_unexplained, "wakeups_untraced",
		      (json_int_t)an->wakeups_untraced, "wakeups_outside_calls",
		      (json_int_t)an->wakeups_outside, "stream_bytes_unmatched",
		      (json_int_t)an->pipe_bytes_unmatched);
	if (o && an->multi)
		an__xhost_counters(an, o);
	return o;
}

uint64_t an__lost(const struct analysis *an)
{
	if (an->have_stats)
		return an->loss[IOT_LOSS_RINGBUF] + an->loss[IOT_LOSS_STORAGE];
	return an->seq_gaps;
}

static json_t *header_json(const struct analysis *an)
{
	json_t *h =
		json_pack("{s:s, s:i, s:o, s:o, s:o, s:I, s:I, s:I, s:b, s:I, s:I}", "type",
			  "header", "version", AN_FORMAT_VERSION, "threads", threads_json(an),
			  "processes", procs_json(an), "files", files_json(an), "lost_events",
			  (json_int_t)an__lost(an), "seq_gaps", (json_int_t)an->seq_gaps, "events",
			  (json_int_t)an->nev, "causality", an->opts.infer, "bad_records",
			  (json_int_t)an->bad_records, "clock_start_ns", (json_int_t)an->t0);

	if (!h)
		return NULL;
	if (analysis__cut(an))
		json_object_set_new(h, "truncated", json_string(analysis__cut(an)));
	json_object_set_new(h, "duration_ns", json_integer(analysis__duration(an)));
	json_object_set_new(h, "compute_floor_ns", json_integer(an->compute_floor));
	json_object_set_new(h, "compute_floor_switch_ns", json_integer(an->compute_floor_switch));
	if (an->families && (an->families & IOT_FAM_ALL) != IOT_FAM_ALL) {
		char out[64];

		syscall__format_families(IOT_FAM_ALL & ~an->families, out, sizeof(out));
		json_object_set_new(h, "calls_left_out", json_string(out));
	}
	if (an->opts.infer) {
		json_object_set_new(h, "causality_stats", an__counters_json(an));
		json_object_set_new(h, "lock_deps_apart", json_true());
	}
	if (an->multi)
		an__job_json(an, h);
	return h;
}

/* A multi-host file's events name their host: ,"host":"NAME" for each. */
static int host_texts(struct emit *e)
{
	const struct analysis *an = e->an;

	e->host = calloc(an->hosts.n + 1, sizeof(*e->host));
	if (!e->host)
		return -ENOMEM;
	for (size_t k = 0; k < an->hosts.n; k++) {
		const char *name = an__host_name(an, k);
		int err = text_set(&e->host[k], ",\"host\":", name ? name : "", "");

		if (err)
			return err;
	}
	return 0;
}

/*
 * The event lines go straight to the file's descriptor when it has one: the
 * writer's buffer is already large, and a second copy through stdio's cost
 * as much as a third of the writing.
 */
static int write_events(const struct analysis *an, FILE *f)
{
	struct emit e = { .an = an };
	size_t pi = 0;
	int fd = fileno(f), err;

	e.w = malloc(sizeof(*e.w));
	e.call = calloc(UINT16_MAX + 1, sizeof(*e.call));
	e.str = calloc(an->strs.n + 1, sizeof(*e.str));
	e.nums = calloc((an->threads.n + 1) * NUM_NR, sizeof(*e.nums));
	err = e.w && e.call && e.str && e.nums ? 0 : -ENOMEM;
	if (!err && an->multi)
		err = host_texts(&e);
	if (err) {
		emit_free(&e);
		return err;
	}
	if (fd >= 0 && !fflush(f))
		jw__init_fd(e.w, fd);
	else
		jw__init(e.w, f);
	for (uint32_t i = 0; i < an->nev && !e.w->err; i++)
		put_event(&e, i, &pi);
	err = jw__flush(e.w);
	emit_free(&e);
	return err;
}

int analysis__write_jsonl(const struct analysis *an, FILE *f)
{
	json_t *h = header_json(an);
	int err;

	if (!h)
		return -ENOMEM;
	err = json_dumpf(h, f, JSON_COMPACT | JSON_SORT_KEYS) ? -EIO : 0;
	json_decref(h);
	if (err || fputc('\n', f) == EOF)
		return -(errno ? errno : EIO);
	return write_events(an, f);
}

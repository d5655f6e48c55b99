// SPDX-License-Identifier: GPL-2.0
/* iotrace dump: the trace one record per line, strace-like, or as JSON Lines. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "cli/cmd_inspect.h"
#include "cli/format.h"
#include "lib/cliopt.h"
#include "lib/fdtable.h"
#include "lib/log.h"
#include "lib/record.h"
#include "lib/syscalls.h"
#include "lib/trace.h"

struct dump_opts {
	const char *file;
	bool json;
	long pid;
	long tid;
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: iotrace dump [--json] [-p PID] [-t TID] FILE\n"
		   "\n"
		   "Print a trace one record per line: calls as `call(args) = ret <secs>`,\n"
		   "with fds shown as fd<path>; scheduler and page-cache events as --- lines;\n"
		   "the attach snapshot as # lines.  --json prints one JSON object per record.\n"
		   "\n"
		   "EXAMPLES:\n"
		   "  iotrace dump db.iot | less\n"
		   "  iotrace dump -p 1234 db.iot | grep fsync\n"
		   "  iotrace dump --json db.iot | jq 'select(.call == \"pread64\")'\n");
}

static json_t *fd_json(const struct iot_fd *f)
{
	return json_pack("{s:i, s:i, s:I, s:I, s:I, s:I, s:I, s:i}", "which", f->which, "fd", f->fd,
			 "dev", (json_int_t)f->dev, "ino", (json_int_t)f->ino, "pos",
			 (json_int_t)f->pos, "size", (json_int_t)f->size, "flags",
			 (json_int_t)f->flags, "type", f->ftype);
}

static json_t *sock_json(const struct iot_sock *s)
{
	char la[40], ra[40];

	for (int i = 0; i < 16; i++) {
		sprintf(la + 2 * i, "%02x", s->laddr[i]);
		sprintf(ra + 2 * i, "%02x", s->raddr[i]);
	}
	return json_pack("{s:i, s:i, s:i, s:i, s:s, s:i, s:s, s:i, s:I, s:I}", "family", s->family,
			 "type", s->type, "protocol", s->protocol, "state", s->state, "laddr", la,
			 "lport", s->lport, "raddr", ra, "rport", s->rport, "ino",
			 (json_int_t)s->ino, "peer_ino", (json_int_t)s->peer_ino);
}

/* Every field of a syscall record, raw, for tests and jq. */
static json_t *syscall_json(const struct iot_hdr *h, const struct fdtable *t)
{
	json_t *o, *args = json_array(), *fds = json_array(), *strs = json_array();
	const char *path;
	struct sc_view v;

	if (sc_view__parse(h, &v))
		return json_pack("{s:s}", "error", "corrupt syscall record");
	for (int i = 0; i < 6; i++)
		json_array_append_new(args, json_integer((json_int_t)v.sc->args[i]));
	for (int i = 0; i < v.sc->nfd; i++) {
		json_t *fj = fd_json(&v.fds[i]);

		path = v.fds[i].fd >= 0 ? fdtable__get(t, h->pid, v.fds[i].fd) : NULL;
		if (path && v.fds[i].which < IOT_FD_RET)
			json_object_set_new(fj, "path", json_string(path));
		json_array_append_new(fds, fj);
	}
	for (unsigned int i = 0; i < v.nstr; i++)
		json_array_append_new(strs, json_pack("{s:i, s:s, s:b, s:b}", "which",
						      v.strh[i]->which, "s", v.str[i], "trunc",
						      v.strh[i]->flags & IOT_STRF_TRUNC, "fault",
						      v.strh[i]->flags & IOT_STRF_FAULT));
	o = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:o, s:I, s:o, s:o, s:I, s:I, s:i}", "call",
		      syscall__name(v.sc->nr), "nr", (json_int_t)v.sc->nr, "pid",
		      (json_int_t)h->pid, "tid", (json_int_t)h->tid, "ts", (json_int_t)h->ts,
		      "dur", (json_int_t)v.sc->dur_ns, "args", args, "ret", (json_int_t)v.sc->ret,
		      "fds", fds, "strs", strs, "cpu_ns", (json_int_t)v.sc->cpu_ns, "offcpu_ns",
		      (json_int_t)v.sc->offcpu_ns, "flags", v.sc->flags);
	if (v.sock)
		json_object_set_new(o, "sock", sock_json(v.sock));
	return o;
}

static const char *const type_names[] = {
	[IOT_REC_SYSCALL] = "syscall", [IOT_REC_FORK] = "fork", [IOT_REC_EXEC] = "exec",
	[IOT_REC_EXIT] = "exit", [IOT_REC_WAKEUP] = "wakeup", [IOT_REC_SWITCH] = "switch",
	[IOT_REC_PAGE] = "page",
};

static const char *type_name(unsigned int type)
{
	static const char *const user[] = { "meta", "proc", "thread", "fdsnap", "mapsnap",
					    "stats", "target", "seqend" };

	if (type < sizeof(type_names) / sizeof(type_names[0]) && type_names[type])
		return type_names[type];
	if (type >= IOT_REC_META && type <= IOT_REC_SEQEND)
		return user[type - IOT_REC_META];
	return "unknown";
}

/* The fields of the fixed-size records, for scripts; NULL for other types. */
static json_t *fields_json(const struct iot_hdr *h)
{
	if (h->size < rec__min_size(h->type))
		return NULL;
	switch (h->type) {
	case IOT_REC_FORK: {
		const struct iot_fork *f = (const void *)h;

		return json_pack("{s:I, s:I, s:b}", "child_pid", (json_int_t)f->child_pid,
				 "child_tid", (json_int_t)f->child_tid, "thread", f->thread);
	}
	case IOT_REC_EXEC: {
		const struct iot_exec *e = (const void *)h;

		return json_pack("{s:I, s:s#}", "old_tid", (json_int_t)e->old_tid, "comm", e->comm,
				 (int)strnlen(e->comm, sizeof(e->comm)));
	}
	case IOT_REC_EXIT: {
		const struct iot_exit *e = (const void *)h;

		/* exit_code is the wait status: the code, or the killing signal */
		return json_pack("{s:i, s:i, s:i, s:b}", "exit_code", e->exit_code, "code",
				 (e->exit_code >> 8) & 0xff, "signal", e->exit_code & 0x7f,
				 "group_dead", e->group_dead);
	}
	case IOT_REC_WAKEUP: {
		const struct iot_wakeup *w = (const void *)h;

		return json_pack("{s:I, s:I}", "waker_pid", (json_int_t)w->waker_pid, "waker_tid",
				 (json_int_t)w->waker_tid);
	}
	case IOT_REC_SWITCH: {
		const struct iot_switch *w = (const void *)h;

		return json_pack("{s:I, s:I, s:I}", "oncpu_ns", (json_int_t)w->oncpu_ns, "next_tid",
				 (json_int_t)w->next_tid, "prev_state", (json_int_t)w->prev_state);
	}
	case IOT_REC_PAGE: {
		static const char *const kinds[] = { "?", "fault", "map_pages", "dirty",
						     "cache_miss" };
		const struct iot_page *p = (const void *)h;

		return json_pack("{s:s, s:I, s:I, s:I, s:I}", "kind",
				 kinds[p->kind < 5 ? p->kind : 0], "dev", (json_int_t)p->dev, "ino",
				 (json_int_t)p->ino, "index", (json_int_t)p->index, "npages",
				 (json_int_t)p->npages);
	}
	case IOT_REC_SEQEND:
		return json_pack("{s:I}", "last_seq", (json_int_t)((const struct iot_seqend *)h)->last_seq);
	case IOT_REC_FDSNAP: {
		const struct iot_fdsnap *f = (const void *)h;
		const char *path = NULL;
		json_t *o = fd_json(&f->f);

		if (rec__strings(h, sizeof(*f), f->nstr, &path, 1) == 1)
			json_object_set_new(o, "path", json_string(path));
		return json_pack("{s:o}", "fd", o);
	}
	}
	return NULL;
}

static void dump_json(const struct iot_hdr *h, const struct fdtable *t)
{
	json_t *o;

	if (h->type == IOT_REC_SYSCALL) {
		o = syscall_json(h, t);
	} else {
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);
		json_t *f = fields_json(h);

		format__other(m, h);
		fclose(m);
		o = json_pack("{s:I, s:I, s:I, s:s}", "pid", (json_int_t)h->pid, "tid",
			      (json_int_t)h->tid, "ts", (json_int_t)h->ts, "text", text ? text : "");
		if (f) {
			json_object_update(o, f);
			json_decref(f);
		}
		free(text);
	}
	json_object_set_new(o, "type", json_string(type_name(h->type)));
	json_object_set_new(o, "seq", json_integer(h->seq));
	json_dumpf(o, stdout, JSON_COMPACT | JSON_SORT_KEYS);
	fputc('\n', stdout);
	json_decref(o);
}

static void dump_text(const struct iot_hdr *h, const struct fdtable *t, uint64_t t0)
{
	double rel = h->ts >= t0 ? (h->ts - t0) / 1e9 : 0;

	printf("%6u %6u %11.6f ", h->pid, h->tid, rel);
	if (h->type == IOT_REC_SYSCALL && h->size >= sizeof(struct iot_syscall)) {
		format__syscall(stdout, h, t);
		printf(" <%.6f>\n", ((const struct iot_syscall *)h)->dur_ns / 1e9);
	} else {
		format__other(stdout, h);
		fputc('\n', stdout);
	}
}

static int parse_opts(int argc, char **argv, struct dump_opts *o)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' }, { "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' }, { "help", no_argument, NULL, 'h' },
		{},
	};
	int c;

	while ((c = getopt_long(argc, argv, "jp:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': o->json = true; break;
		case 'p': o->pid = atol(optarg); break;
		case 't': o->tid = atol(optarg); break;
		case 'h': usage(stdout); return 1;
		default: usage(stderr); return -EINVAL;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return -EINVAL;
	}
	o->file = argv[optind];
	return 0;
}

int cmd_dump(int argc, char **argv)
{
	static char obuf[1 << 16];
	struct dump_opts o = {};
	struct trace_reader *r;
	const struct iot_hdr *h;
	struct fdtable *t;
	uint64_t t0 = 0;
	int e;

	e = parse_opts(argc, argv, &o);
	if (e)
		return e > 0 ? 0 : EXIT_USAGE;
	r = trace_open_or_explain(o.file);
	if (!r)
		return 1;
	t = fdtable__new();
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	while (t && trace_reader__next(r, &h) == 1) {
		if (h->type == IOT_REC_META && !t0)
			t0 = h->ts;
		/* print first: a call's fds are named as they were before it */
		if ((!o.pid || h->pid == o.pid) && (!o.tid || h->tid == o.tid)) {
			if (o.json)
				dump_json(h, t);
			else
				dump_text(h, t, t0);
		}
		fdtable__apply(t, h);
	}
	fflush(stdout);
	e = 0;
	if (trace_reader__error(r)) {
		err("%s: %s: the records before it were shown", o.file, trace_reader__error(r));
		e = 1;
	}
	fdtable__free(t);
	trace_reader__free(r);
	return e;
}

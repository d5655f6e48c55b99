// SPDX-License-Identifier: GPL-2.0
/* iotrace dump: the trace one record per line, strace-like, or as JSON Lines. */
#include <errno.h>
#include <stdint.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "cli/cmd_inspect.h"
#include "cli/format.h"
#include "cli/timeorder.h"
#include "lib/cliopt.h"
#include "lib/fdtable.h"
#include "lib/log.h"
#include "lib/record.h"
#include "lib/syscalls.h"
#include "lib/trace.h"

/* Record bytes held in memory before a time-sorted run goes to a temporary file. */
#ifndef SORT_RUN_BYTES
#define SORT_RUN_BYTES (64u << 20)
#endif

enum time_col { TIME_REL, TIME_ABS, TIME_DELTA, TIME_NONE };

struct dump_opts {
	const char *file;
	bool json;
	bool verbose;	/* -v: addresses of buffers the recorder did not keep */
	bool durations; /* -T */
	bool select;	/* -e trace=: only the calls in calls[] */
	enum time_col time;
	long pid;
	long tid;
	bool calls[IOT_NR_MAX];
};

/* What a line needs from the trace's first record and from the line before. */
struct dump_clock {
	uint64_t t0;	/* CLOCK_MONOTONIC at the start */
	uint64_t real0; /* CLOCK_REALTIME at the start */
	uint64_t prev;	/* ts of the line printed last */
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: iotrace dump [--json] [-e trace=SET] [-p PID] [-t TID]\n"
		"                    [--time rel|abs|delta|none] [-T] [-v] FILE\n"
		"\n"
		"Print a trace one record per line in time order, as strace -f would:\n"
		"  PID TID TIME call(args) = ret\n"
		"Flags and constants by name (O_RDONLY|O_CLOEXEC, AF_UNIX, FUTEX_WAIT_PRIVATE),\n"
		"errors as -1 ENOENT (No such file or directory), paths as strings, fds as\n"
		"fd<path>.  Buffers the recorder does not keep print as ... (their address\n"
		"with -v).  Scheduler and page-cache events print as --- lines, the attach\n"
		"snapshot as # lines, a process's end as a +++ line.\n"
		"\n"
		"Options:\n"
		"  -e trace=SET   only these calls: names and classes (%%file, %%desc, %%network,\n"
		"                 %%process, %%memory), comma-separated; !SET for all but these;\n"
		"                 scheduler, page-cache and snapshot lines are left out\n"
		"  -p PID         only the records of process PID\n"
		"  -t TID         only the records of thread TID\n"
		"  --time KIND    the time column: rel (seconds since the recording started,\n"
		"                 the default), abs (wall clock, as strace -tt), delta (since\n"
		"                 the line before, as strace -r), none\n"
		"  -T             each call's duration after it, <seconds>, as strace -T\n"
		"  -v             addresses of buffers instead of ...; after a socket call's\n"
		"                 result, <netns=N write_seq=S> or copied_seq=S: the socket's\n"
		"                 network namespace and TCP stream position after the call\n"
		"  --json         one JSON object per record with every field, in time order\n"
		"\n"
		"EXAMPLES:\n"
		"  iotrace dump db.iot | less\n"
		"  iotrace dump -e trace=openat,pread64 -T db.iot\n"
		"  iotrace dump -e trace=%%network --time abs -p 1234 db.iot\n"
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
	return json_pack("{s:i, s:i, s:i, s:i, s:s, s:i, s:s, s:i, s:I, s:I, s:I, s:I, s:i}",
			 "family", s->family, "type", s->type, "protocol", s->protocol, "state",
			 s->state, "laddr", la, "lport", s->lport, "raddr", ra, "rport", s->rport,
			 "ino", (json_int_t)s->ino, "peer_ino", (json_int_t)s->peer_ino, "netns",
			 (json_int_t)s->netns, "tcp_seq", (json_int_t)s->tcp_seq, "sflags",
			 s->sflags);
}

/* execve's argv string: its strings as an array, and the counts beside them. */
static void argv_json(json_t *sj, const struct iot_str *s, const char *p)
{
	json_t *argv = json_array();
	struct iot_argv_counts c;

	memcpy(&c, s->pad, sizeof(c));
	for (unsigned int i = 0; i < c.argc && p < (const char *)(s + 1) + s->len; i++) {
		json_array_append_new(argv, json_string(p));
		p += strlen(p) + 1;
	}
	json_object_set_new(sj, "argv", argv);
	json_object_set_new(sj, "envc", json_integer(c.envc));
	json_object_set_new(sj, "argv_more", json_boolean(s->flags & IOT_STRF_ARGV_MORE));
	json_object_set_new(sj, "envc_more", json_boolean(s->flags & IOT_STRF_ENV_MORE));
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
	for (unsigned int i = 0; i < v.nstr; i++) {
		json_t *sj = json_pack("{s:i, s:s, s:b, s:b}", "which", v.strh[i]->which, "s",
				       v.str[i], "trunc", v.strh[i]->flags & IOT_STRF_TRUNC,
				       "fault", v.strh[i]->flags & IOT_STRF_FAULT);

		if (v.strh[i]->which == IOT_STR_ARGV)
			argv_json(sj, v.strh[i], v.str[i]);
		json_array_append_new(strs, sj);
	}
	o = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:o, s:I, s:o, s:o, s:I, s:I, s:i}", "call",
		      syscall__name(v.sc->nr), "nr", (json_int_t)v.sc->nr, "pid",
		      (json_int_t)h->pid, "tid", (json_int_t)h->tid, "ts", (json_int_t)h->ts, "dur",
		      (json_int_t)v.sc->dur_ns, "args", args, "ret", (json_int_t)v.sc->ret, "fds",
		      fds, "strs", strs, "cpu_ns", (json_int_t)v.sc->cpu_ns, "offcpu_ns",
		      (json_int_t)v.sc->offcpu_ns, "flags", v.sc->flags);
	if (v.sock)
		json_object_set_new(o, "sock", sock_json(v.sock));
	return o;
}

static const char *const type_names[] = {
	[IOT_REC_SYSCALL] = "syscall", [IOT_REC_FORK] = "fork",	    [IOT_REC_EXEC] = "exec",
	[IOT_REC_EXIT] = "exit",       [IOT_REC_WAKEUP] = "wakeup", [IOT_REC_SWITCH] = "switch",
	[IOT_REC_PAGE] = "page",
};

static const char *type_name(unsigned int type)
{
	static const char *const user[] = { "meta",  "proc",   "thread", "fdsnap", "mapsnap",
					    "stats", "target", "seqend", "link",   "host",
					    "clock", "calls",  "floor",	 "helper" };

	if (type < sizeof(type_names) / sizeof(type_names[0]) && type_names[type])
		return type_names[type];
	if (type >= IOT_REC_META && type <= IOT_REC_HELPER)
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
	case IOT_REC_CALLS: {
		char fam[64];

		syscall__format_families(((const struct iot_calls *)h)->families, fam, sizeof(fam));
		return json_pack("{s:s}", "families", fam);
	}
	case IOT_REC_FLOOR:
		return json_pack("{s:I}", "switch_ns",
				 (json_int_t)((const struct iot_floor *)h)->switch_ns);
	case IOT_REC_HOST: {
		const struct iot_host *o = (const void *)h;
		const char *s[3] = { "", "", "" };

		rec__strings(h, sizeof(*o), o->nstr, s, 3);
		return json_pack("{s:s, s:s, s:s, s:I}", "hostname", s[0], "boot_id", s[1],
				 "machine_id", s[2], "netns", (json_int_t)o->netns);
	}
	case IOT_REC_CLOCK: {
		const struct iot_clock *c = (const void *)h;

		return json_pack("{s:s, s:I, s:I}", "when", rec__clock_when(c->when), "realtime_ns",
				 (json_int_t)c->realtime_ns, "bracket_ns",
				 (json_int_t)c->bracket_ns);
	}
	case IOT_REC_SEQEND:
		return json_pack("{s:I}", "last_seq",
				 (json_int_t)((const struct iot_seqend *)h)->last_seq);
	case IOT_REC_FDSNAP: {
		const struct iot_fdsnap *f = (const void *)h;
		const char *path = NULL;
		json_t *o = fd_json(&f->f);

		if (rec__strings(h, sizeof(*f), f->nstr, &path, 1) == 1)
			json_object_set_new(o, "path", json_string(path));
		return json_pack("{s:o}", "fd", o);
	}
	case IOT_REC_LINK: {
		const struct iot_link *l = (const void *)h;
		const char *s[3] = { "", "", "" };

		rec__strings(h, sizeof(*l), l->nstr, s, 3);
		return json_pack("{s:s, s:s, s:s, s:I, s:I, s:I}", "path", s[0], "target", s[1],
				 "end", s[2], "end_mode", (json_int_t)l->end_mode, "end_size",
				 (json_int_t)l->end_size, "end_dev", (json_int_t)l->end_dev);
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
			      (json_int_t)h->tid, "ts", (json_int_t)h->ts, "text",
			      text ? text : "");
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

/* ns as seconds with six decimals, in integers: printf's %f was a tenth of the dump's time */
static void put_secs(uint64_t ns)
{
	ns += 500;
	printf("%4llu.%06llu ", (unsigned long long)(ns / 1000000000),
	       (unsigned long long)(ns % 1000000000 / 1000));
}

static void time_col(const struct dump_opts *o, struct dump_clock *c, uint64_t ts)
{
	time_t sec;
	struct tm tm;
	uint64_t real;

	switch (o->time) {
	case TIME_REL:
		put_secs(ts >= c->t0 ? ts - c->t0 : 0);
		break;
	case TIME_ABS:
		real = c->real0 + (ts >= c->t0 ? ts - c->t0 : 0);
		sec = real / 1000000000;
		localtime_r(&sec, &tm);
		printf("%02d:%02d:%02d.%06u ", tm.tm_hour, tm.tm_min, tm.tm_sec,
		       (unsigned int)(real % 1000000000 / 1000));
		break;
	case TIME_DELTA:
		put_secs(c->prev && ts >= c->prev ? ts - c->prev : 0);
		break;
	case TIME_NONE:
		break;
	}
	c->prev = ts;
}

static void dump_text(const struct dump_opts *o, const struct iot_hdr *h, const struct fdtable *t,
		      struct dump_clock *c)
{
	const struct iot_syscall *sc = (const void *)h;

	printf("%6u %6u ", h->pid, h->tid);
	time_col(o, c, h->ts);
	if (h->type == IOT_REC_SYSCALL && h->size >= sizeof(struct iot_syscall)) {
		format__syscall(stdout, h, t, o->verbose);
		if (o->durations && !(sc->flags & (IOT_SCF_NO_RETURN | IOT_SCF_NO_ENTER)))
			printf(" <%llu.%06llu>",
			       (unsigned long long)((sc->dur_ns + 500) / 1000000000),
			       (unsigned long long)((sc->dur_ns + 500) % 1000000000 / 1000));
	} else {
		format__other(stdout, h);
	}
	fputc('\n', stdout);
}

/* Whether a record passes -p, -t and -e. */
static bool wanted(const struct dump_opts *o, const struct iot_hdr *h)
{
	const struct iot_syscall *sc = (const void *)h;

	if ((o->pid && h->pid != o->pid) || (o->tid && h->tid != o->tid))
		return false;
	if (!o->select)
		return true;
	if (h->type == IOT_REC_SYSCALL)
		return h->size >= sizeof(*sc) && sc->nr < IOT_NR_MAX && o->calls[sc->nr];
	/* as strace -e trace= keeps a process's birth, exec and end */
	return h->type == IOT_REC_FORK || h->type == IOT_REC_EXEC || h->type == IOT_REC_EXIT;
}

static bool in_class(const struct syscall_info *si, const char *cls)
{
	bool path = false, fd = si->desc.flags & (IOT_SCD_RET_FD | IOT_SCD_FDPAIR);

	for (int i = 0; i < si->nargs; i++) {
		path |= si->arg[i] == SA_PATH && strcmp(si->argname[i], "name");
		fd |= si->arg[i] == SA_FD || si->arg[i] == SA_DIRFD;
	}
	if (!strcmp(cls, "file"))
		return path;
	if (!strcmp(cls, "desc"))
		return fd;
	if (!strcmp(cls, "network"))
		return si->cls == SC_SOCKET || (si->desc.flags & IOT_SCD_SOCK);
	if (!strcmp(cls, "process"))
		return si->cls == SC_PROCESS;
	return si->cls == SC_MMAP; /* "memory" */
}

/* Marks one name or %class of -e trace=; a usage error when it names nothing. */
static int select_one(struct dump_opts *o, const char *name, bool on)
{
	static const char *const classes[] = { "file", "desc", "network", "process", "memory" };
	const struct syscall_info *t = NULL, *si;
	unsigned int n;
	bool known = false;

	if (!strcmp(name, "all")) {
		memset(o->calls, on, sizeof(o->calls));
		return 0;
	}
	if (name[0] != '%') {
		si = syscall__by_name(name);
		if (!si)
			return cliopt__usage_error("dump",
						   "-e trace: '%s' is not a call iotrace "
						   "records",
						   name);
		o->calls[si->nr] = on;
		return 0;
	}
	for (size_t c = 0; c < sizeof(classes) / sizeof(classes[0]); c++)
		known |= !strcmp(name + 1, classes[c]);
	if (!known)
		return cliopt__usage_error("dump",
					   "-e trace: unknown class '%s' (%%file, %%desc, "
					   "%%network, %%process, %%memory)",
					   name);
	t = syscall__table(&n);
	for (unsigned int i = 0; i < n; i++)
		if (in_class(&t[i], name + 1))
			o->calls[t[i].nr] = on;
	return 0;
}

/* -e trace=SET, -e SET: strace's spelling; other qualifiers are not ours. */
static int parse_trace(struct dump_opts *o, char *arg)
{
	char *set = arg, *save = NULL, *name;
	bool on = true;
	int e;

	if (!strncmp(arg, "trace=", 6))
		set = arg + 6;
	else if (strchr(arg, '='))
		return cliopt__usage_error("dump", "-e '%s': only trace=SET is supported", arg);
	if (set[0] == '!') {
		on = false;
		set++;
		memset(o->calls, 1, sizeof(o->calls));
	}
	if (!*set)
		return cliopt__usage_error("dump", "-e trace= needs a call name or a class");
	o->select = true;
	for (name = strtok_r(set, ",", &save); name; name = strtok_r(NULL, ",", &save))
		if ((e = select_one(o, name, on)))
			return e;
	return 0;
}

static int parse_id(const char *what, const char *arg, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v <= 0 || v > INT32_MAX)
		return cliopt__usage_error("dump", "%s '%s' is not a positive number", what, arg);
	*out = v;
	return 0;
}

static int parse_time(struct dump_opts *o, const char *arg)
{
	static const char *const names[] = { "rel", "abs", "delta", "none" };

	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(arg, names[i])) {
			o->time = i;
			return 0;
		}
	}
	return cliopt__usage_error("dump", "--time '%s': want rel, abs, delta or none", arg);
}

/* 0, 1 after --help, or EXIT_USAGE. */
static int parse_opts(int argc, char **argv, struct dump_opts *o)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },	 { "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' }, { "time", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },	 {},
	};
	int c, e = 0;

	while (!e && (c = cliopt__next("dump", argc, argv, "je:p:t:Tvh", longopts)) != -1) {
		switch (c) {
		case 'j':
			o->json = true;
			break;
		case 'e':
			e = parse_trace(o, optarg);
			break;
		case 'p':
			e = parse_id("PID", optarg, &o->pid);
			break;
		case 't':
			e = parse_id("TID", optarg, &o->tid);
			break;
		case 'm':
			e = parse_time(o, optarg);
			break;
		case 'T':
			o->durations = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			return EXIT_USAGE;
		}
	}
	if (e)
		return e;
	if (optind >= argc)
		return cliopt__usage_error("dump", "no trace file given");
	if (optind < argc - 1)
		return cliopt__usage_error("dump", "one trace file at a time, got '%s' after '%s'",
					   argv[optind + 1], argv[optind]);
	o->file = argv[optind];
	return 0;
}

/* Reads the whole trace into the sorter; the start times come from its first record. */
static int read_all(struct trace_reader *r, struct timeorder *order, struct dump_clock *c)
{
	const struct iot_hdr *h;
	int e;

	while (trace_reader__next(r, &h) == 1) {
		if (h->type == IOT_REC_META && !c->t0 && h->size >= sizeof(struct iot_meta)) {
			c->t0 = h->ts;
			c->real0 = ((const struct iot_meta *)h)->realtime_ns;
		}
		e = timeorder__add(order, h);
		if (e)
			return e;
	}
	return 0;
}

/* Prints the records in time order; the fd names follow every record, shown or not. */
static int print_all(const struct dump_opts *o, struct timeorder *order, struct dump_clock *c,
		     struct fdtable *t)
{
	const struct iot_hdr *h;
	int e;

	while ((e = timeorder__next(order, &h)) == 1) {
		/* print first: a call's fds are named as they were before it */
		if (wanted(o, h)) {
			if (o->json)
				dump_json(h, t);
			else
				dump_text(o, h, t, c);
		}
		fdtable__apply(t, h);
	}
	return e;
}

int cmd_dump(int argc, char **argv)
{
	static char obuf[1 << 16];
	static struct dump_opts o;
	struct dump_clock clock = {};
	struct timeorder *order = NULL;
	struct trace_reader *r;
	struct fdtable *t = NULL;
	int e;

	e = parse_opts(argc, argv, &o);
	if (e)
		return e == 1 ? EXIT_OK : EXIT_USAGE;
	r = trace_open_or_explain(o.file);
	if (!r)
		return EXIT_FAIL;
	t = fdtable__new();
	order = timeorder__new(SORT_RUN_BYTES);
	e = t && order ? read_all(r, order, &clock) : -ENOMEM;
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	if (!e)
		e = print_all(&o, order, &clock, t);
	fflush(stdout);
	if (e < 0)
		err("%s: cannot put the records in time order: %s", o.file, strerror(-e));
	else if (trace_reader__error(r))
		err("%s: %s: the records before it were shown", o.file, trace_reader__error(r));
	e = e < 0 || trace_reader__error(r) ? EXIT_FAIL : EXIT_OK;
	timeorder__free(order);
	fdtable__free(t);
	trace_reader__free(r);
	return e;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace export FILE [--format chrome]: the Trace Event format that Perfetto
 * (ui.perfetto.dev) and chrome://tracing open.  One track per thread, one
 * slice per call named with its call and path, and a flow arrow per causal
 * edge from the end of the source call to the start of the call it orders.
 * Times are microseconds with ns precision, as the format wants.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/an.h"
#include "analyze/cmd_analyze.h"
#include "analyze/jw.h"
#include "lib/cliopt.h"
#include "lib/log.h"
#include "lib/syscalls.h"

struct export_args {
	const char *in, *out, *format;
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: iotrace export FILE [--format chrome] [-o OUT.json]\n"
		   "\n"
		   "Write the calls of a trace, with the causal edges the analysis infers, in\n"
		   "the Trace Event format: open OUT.json in https://ui.perfetto.dev or\n"
		   "chrome://tracing.  One track per thread, one slice per call, and a flow\n"
		   "arrow per edge (kind as its category).\n"
		   "\n"
		   "  -f, --format chrome  the only format so far, and the default\n"
		   "  -o, --output OUT     write to OUT instead of stdout\n"
		   "\n"
		   "EXAMPLES:\n"
		   "  iotrace export db.iot -o db.json\n"
		   "  iotrace export db.iot --format chrome -o db.json\n");
}

static const struct option longopts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ 0 },
};

/* 0 to run, 1 after --help, -1 after a usage error (already printed) */
static int parse(int argc, char **argv, struct export_args *a)
{
	int c;

	a->format = "chrome";
	while ((c = cliopt__next("export", argc, argv, "hf:o:", longopts)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 1;
		case 'f':
			a->format = optarg;
			break;
		case 'o':
			a->out = optarg;
			break;
		default:
			return -1;
		}
	}
	if (optind >= argc)
		return cliopt__usage_error("export", "no trace file"), -1;
	if (optind + 1 < argc)
		return cliopt__usage_error("export", "more than one trace file"), -1;
	if (strcmp(a->format, "chrome"))
		return cliopt__usage_error("export", "unknown format '%s' (known: chrome)",
					   a->format),
		       -1;
	a->in = argv[optind];
	return 0;
}

/* ns as the format's microseconds, exactly: "12.345" */
static void put_us(struct jw *w, uint64_t ns)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu.%03llu", (unsigned long long)(ns / 1000),
		 (unsigned long long)(ns % 1000));
	jw__lit(w, buf);
}

static void put_ids(struct jw *w, uint32_t pid, uint32_t tid)
{
	jw__lit(w, ",\"pid\":");
	jw__u64(w, pid);
	jw__lit(w, ",\"tid\":");
	jw__u64(w, tid);
}

static void put_names(struct jw *w, const struct analysis *an)
{
	for (size_t i = 0; i < an->threads.n; i++) {
		const struct an_thread *t = an__thread(an, i);
		const char *comm = strtab__str(&an->strs, t->comm);

		jw__lit(w, "{\"ph\":\"M\",\"name\":\"thread_name\"");
		put_ids(w, t->pid, t->tid);
		jw__lit(w, ",\"args\":{\"name\":");
		jw__str(w, comm ? comm : "?");
		jw__lit(w, "}},\n");
	}
}

/* The path a call is about: its first fd's, else its first path argument's. */
static const char *call_path(const struct analysis *an, uint32_t id)
{
	const char *p = strtab__str(&an->strs, an->ev[id].fdpath[0]);

	return p ? p : strtab__str(&an->strs, an->ev[id].apath[0]);
}

static void put_call(struct jw *w, const struct analysis *an, uint32_t id)
{
	const struct an_event *e = &an->ev[id];
	const struct an_thread *t = an__thread(an, e->tidx);
	const struct iot_syscall *sc = an__rec(an, id);
	const char *name = syscall__name(sc->nr), *path = call_path(an, id);
	char label[320];

	snprintf(label, sizeof(label), "%s%s%s", name ? name : "?", path ? " " : "",
		 path ? path : "");
	jw__lit(w, "{\"ph\":\"X\",\"cat\":\"call\",\"name\":");
	jw__str(w, label);
	jw__lit(w, ",\"ts\":");
	put_us(w, e->ts);
	jw__lit(w, ",\"dur\":");
	put_us(w, an__end(an, id) - e->ts);
	put_ids(w, t->pid, t->tid);
	jw__lit(w, ",\"args\":{\"id\":");
	jw__u64(w, id);
	jw__lit(w, ",\"ret\":");
	jw__s64(w, sc->ret);
	jw__lit(w, "}},\n");
}

/* A flow: "s" inside the source slice, "f" bound to the slice it enters. */
static void put_flow(struct jw *w, const struct analysis *an, uint64_t n, uint32_t from,
		     uint32_t to, enum an_rule kind)
{
	const struct an_event *f = &an->ev[from], *t = &an->ev[to];
	const struct an_thread *ft = an__thread(an, f->tidx), *tt = an__thread(an, t->tidx);
	uint64_t fend = an__end(an, from), at = fend > f->ts ? fend - 1 : f->ts;

	for (int end = 0; end < 2; end++) {
		jw__lit(w, end ? "{\"ph\":\"f\",\"bp\":\"e\"" : "{\"ph\":\"s\"");
		jw__lit(w, ",\"cat\":\"");
		jw__lit(w, an_rule__name(kind));
		jw__lit(w, "\",\"name\":\"");
		jw__lit(w, an_rule__name(kind));
		jw__lit(w, "\",\"id\":");
		jw__u64(w, n);
		jw__lit(w, ",\"ts\":");
		put_us(w, end ? t->ts : at);
		put_ids(w, end ? tt->pid : ft->pid, end ? tt->tid : ft->tid);
		jw__lit(w, "},\n");
	}
}

static int write_chrome(const struct analysis *an, FILE *f)
{
	struct jw *w = malloc(sizeof(*w));
	uint64_t flows = 0;
	int err;

	if (!w)
		return -ENOMEM;
	jw__init(w, f);
	jw__lit(w, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
	put_names(w, an);
	for (uint32_t id = 0; id < an->nev; id++) {
		put_call(w, an, id);
		for (uint32_t i = 0; i < analysis__ndeps(an, id); i++) {
			uint32_t from;
			enum an_rule kind;

			analysis__dep(an, id, i, &from, &kind);
			put_flow(w, an, ++flows, from, id, kind);
		}
	}
	/* a last metadata record, so no element ends with a dangling comma */
	jw__lit(w,
		"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"iotrace\"}}\n]}\n");
	err = jw__flush(w);
	free(w);
	return err;
}

int cmd_export(int argc, char **argv)
{
	struct export_args a = { 0 };
	struct an_opts opts = { .infer = true, .rules = AN_RULES_DEFAULT };
	struct analysis *an;
	FILE *f;
	int ret = parse(argc, argv, &a), err;

	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	an = analysis__new(a.in, NULL, 0, &opts);
	if (!an)
		return 1;
	f = a.out ? fopen(a.out, "w") : stdout;
	if (!f) {
		err("export: cannot write '%s': %s", a.out, strerror(errno));
		analysis__free(an);
		return 1;
	}
	err = write_chrome(an, f);
	if ((f == stdout ? fflush(f) : fclose(f)) && !err)
		err = -errno;
	if (err)
		err("export: writing '%s': %s", a.out ? a.out : "stdout", strerror(-err));
	if (analysis__read_error(an))
		warn("%s: %s; exported the %u calls before it", a.in, analysis__read_error(an),
		     analysis__events(an));
	analysis__free(an);
	return err ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/* iotrace analyze --summary: the strace -c of iotrace. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "analyze/an.h"
#include "lib/stats.h"
#include "lib/syscalls.h"

#define TOP_FILES 10

struct call_stat {
	uint64_t count, errors, bytes, total_ns;
	uint64_t *dur; /* count entries, sorted for percentiles */
};

struct file_stat {
	uint32_t path;
	uint64_t calls, bytes;
};

static int cmp_file(const void *a, const void *b)
{
	const struct file_stat *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x->calls < y->calls ? 1 : (x->calls > y->calls ? -1 : 0);
}

static uint64_t pct(const struct call_stat *c, double p)
{
	return stats__percentile(c->dur, c->count, p);
}

static int gather(const struct analysis *an, struct call_stat *cs, struct an_vec *files)
{
	struct htab idx = { 0 };
	int err = 0;

	for (uint32_t i = 0; !err && i < an->nev; i++) {
		const struct iot_syscall *sc = an__rec(an, i);
		const struct syscall_info *si = syscall__by_nr(sc->nr);
		struct call_stat *c = &cs[sc->nr < IOT_NR_MAX ? sc->nr : IOT_NR_MAX];
		bool io = si && (si->cls == SC_READ || si->cls == SC_WRITE) && sc->ret > 0;
		uint32_t path = an->ev[i].fdpath[0], fi;
		struct file_stat *f;

		if (!(c->count & (c->count + 1)) || !c->dur) { /* grow at powers of two */
			uint64_t *d = realloc(c->dur, (c->count + 1) * 2 * sizeof(*d));

			if (!d) {
				err = -ENOMEM;
				break;
			}
			c->dur = d;
		}
		c->dur[c->count++] = sc->dur_ns;
		c->total_ns += sc->dur_ns;
		c->errors += sc->ret < 0;
		c->bytes += io ? (uint64_t)sc->ret : 0;
		if (path == AN_NONE)
			continue;
		fi = htab__get(&idx, path);
		if (fi == AN_NONE) {
			f = an_vec__push(files);
			if (!f || htab__set(&idx, path, files->n - 1)) {
				err = -ENOMEM;
				break;
			}
			f->path = path;
		} else {
			f = an_vec__at(files, fi);
		}
		f->calls++;
		f->bytes += io ? (uint64_t)sc->ret : 0;
	}
	htab__free(&idx);
	return err;
}

static json_t *calls_json(const struct call_stat *cs)
{
	json_t *o = json_object();

	for (int nr = 0; nr <= IOT_NR_MAX; nr++) {
		const struct call_stat *c = &cs[nr];

		if (!c->count)
			continue;
		json_object_set_new(
			o, nr < IOT_NR_MAX ? syscall__name(nr) : "other",
			json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "count",
				  (json_int_t)c->count, "errors", (json_int_t)c->errors, "bytes",
				  (json_int_t)c->bytes, "total_ns", (json_int_t)c->total_ns,
				  "p50_ns", (json_int_t)pct(c, .5), "p99_ns",
				  (json_int_t)pct(c, .99), "max_ns", (json_int_t)pct(c, 1)));
	}
	return o;
}

static json_t *files_json(const struct analysis *an, const struct an_vec *files)
{
	json_t *a = json_array();

	for (size_t i = 0; i < files->n && i < TOP_FILES; i++) {
		const struct file_stat *f = an_vec__at(files, i);

		json_array_append_new(
			a, json_pack("{s:s, s:I, s:I}", "path", strtab__str(&an->strs, f->path),
				     "calls", (json_int_t)f->calls, "bytes", (json_int_t)f->bytes));
	}
	return a;
}

static void print_text(FILE *f, const json_t *s)
{
	const char *name;
	json_t *c, *v;
	size_t i;

	fprintf(f, "%-18s %10s %7s %12s %10s %10s %10s\n", "call", "count", "errors", "bytes",
		"p50_ns", "p99_ns", "max_ns");
	json_object_foreach(json_object_get(s, "calls"), name, c)
		fprintf(f, "%-18s %10lld %7lld %12lld %10lld %10lld %10lld\n", name,
			json_integer_value(json_object_get(c, "count")),
			json_integer_value(json_object_get(c, "errors")),
			json_integer_value(json_object_get(c, "bytes")),
			json_integer_value(json_object_get(c, "p50_ns")),
			json_integer_value(json_object_get(c, "p99_ns")),
			json_integer_value(json_object_get(c, "max_ns")));
	fprintf(f, "\ntop files by bytes:\n");
	json_array_foreach(json_object_get(s, "top_files"), i, v)
		fprintf(f, "  %12lld bytes %8lld calls  %s\n",
			json_integer_value(json_object_get(v, "bytes")),
			json_integer_value(json_object_get(v, "calls")),
			json_string_value(json_object_get(v, "path")));
	fprintf(f, "\nedges by kind:");
	json_object_foreach(json_object_get(s, "edges"), name, v)
		fprintf(f, " %s=%lld", name, json_integer_value(v));
	fprintf(f, "\nevents %lld in %.3f ms, lost_events %lld\n",
		json_integer_value(json_object_get(s, "events")),
		json_integer_value(json_object_get(s, "duration_ns")) / 1e6,
		json_integer_value(json_object_get(s, "lost_events")));
	if (json_object_get(s, "truncated"))
		fprintf(f, "truncated: %s\n", json_string_value(json_object_get(s, "truncated")));
}

int analysis__write_summary(const struct analysis *an, FILE *f, bool json)
{
	struct call_stat *cs = calloc(IOT_NR_MAX + 1, sizeof(*cs));
	struct an_vec files = { .esz = sizeof(struct file_stat) };
	json_t *s = NULL, *counters;
	int err = cs ? gather(an, cs, &files) : -ENOMEM;

	for (int nr = 0; !err && nr <= IOT_NR_MAX; nr++)
		if (cs[nr].count)
			stats__sort(cs[nr].dur, cs[nr].count);
	if (!err) {
		if (files.n)
			qsort(files.v, files.n, sizeof(struct file_stat), cmp_file);
		counters = an__counters_json(an);
		s = json_pack("{s:o, s:o, s:O, s:I, s:I}", "calls", calls_json(cs), "top_files",
			      files_json(an, &files), "edges", json_object_get(counters, "edges"),
			      "events", (json_int_t)an->nev, "lost_events",
			      (json_int_t)an__lost(an));
		if (s)
			json_object_set_new(s, "duration_ns", json_integer(analysis__duration(an)));
		if (s && analysis__cut(an))
			json_object_set_new(s, "truncated", json_string(analysis__cut(an)));
		if (s && an->opts.infer)
			json_object_set_new(s, "causality_stats", counters);
		else
			json_decref(counters);
	}
	if (s && json)
		err = json_dumpf(s, f, JSON_COMPACT | JSON_SORT_KEYS) || fputc('\n', f) == EOF ?
			      -EIO :
			      0;
	else if (s)
		print_text(f, s);
	else if (!err)
		err = -ENOMEM;
	json_decref(s);
	for (int nr = 0; cs && nr <= IOT_NR_MAX; nr++)
		free(cs[nr].dur);
	free(cs);
	an_vec__free(&files);
	return err;
}

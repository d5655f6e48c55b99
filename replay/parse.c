// SPDX-License-Identifier: GPL-2.0
/*
 * Reads the annotated trace: the header into threads, processes and the
 * sandbox's initial files, each event line into one op with its arguments
 * already in the form the replay issues them (event.c).  Everything that can
 * be wrong with the input is found here, with its line number.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "lib/log.h"
#include "lib/path.h"
#include "replay/load.h"
#include "replay/replay.h"

struct loader {
	struct rp_plan *p;
	const char *file;
	unsigned long line;
	uint32_t cap;
};

/* A multi-host file's "hosts": their names, which the threads refer to. */
static int load_hosts(struct rp_plan *p, json_t *h)
{
	json_t *a = json_object_get(h, "hosts"), *o;
	size_t i;

	if (!a)
		return 0;
	if (!json_is_array(a) || json_array_size(a) > RP_HOSTS_MAX)
		return -EINVAL;
	p->hosts = calloc(json_array_size(a) + 1, sizeof(*p->hosts));
	p->launch = calloc(json_array_size(a) + 1, sizeof(*p->launch));
	if (!p->hosts || !p->launch)
		return -ENOMEM;
	json_array_foreach(a, i, o) {
		const char *name = json_string_value(json_object_get(o, "name"));
		json_t *l = json_object_get(o, "launch_ns");

		if (!name || !*name)
			return -EINVAL;
		for (uint32_t k = 0; k < p->nhosts; k++)
			if (!strcmp(p->hosts[k], name))
				return -EINVAL;
		p->launch[p->nhosts] = json_is_integer(l) ? json_integer_value(l) : RP_NO_LAUNCH;
		p->hosts[p->nhosts] = strdup(name);
		if (!p->hosts[p->nhosts++])
			return -ENOMEM;
	}
	return 0;
}

/* The host of a thread, process or event, by name: each has one when there
 * are several hosts; 0 when there is one. */
int parse__host(const struct rp_plan *p, json_t *o, uint16_t *host)
{
	const char *name = json_string_value(json_object_get(o, "host"));

	*host = 0;
	if (p->nhosts < 2)
		return 0;
	for (uint32_t k = 0; name && k < p->nhosts; k++)
		if (!strcmp(p->hosts[k], name)) {
			*host = k;
			return 0;
		}
	return -EINVAL;
}

/* A multi-host file's "connections": the host of each one's server. */
static int load_conns(struct rp_plan *p, json_t *h)
{
	json_t *a = json_object_get(h, "connections"), *o;
	size_t i;

	if (p->nhosts < 2 || !json_is_array(a))
		return 0;
	p->conns = calloc(json_array_size(a) + 1, sizeof(*p->conns));
	if (!p->conns)
		return -ENOMEM;
	json_array_foreach(a, i, o) {
		json_t *srv = json_object_get(json_object_get(o, "server"), "host");
		uint32_t k;

		for (k = 0; k < p->nhosts; k++)
			if (json_is_string(srv) && !strcmp(p->hosts[k], json_string_value(srv)))
				break;
		if (k == p->nhosts || !json_is_integer(json_object_get(o, "id")))
			return -EINVAL;
		p->conns[p->nconns++] =
			(struct rp_conn){ .id = json_integer_value(json_object_get(o, "id")),
					  .server = k };
	}
	return 0;
}

static int load_threads(struct rp_plan *p, json_t *h)
{
	json_t *a = json_object_get(h, "threads"), *t;
	uint16_t host;
	uint32_t n;
	size_t i;

	json_array_foreach(a, i, t) {
		json_t *tid = json_object_get(t, "tid"), *pid = json_object_get(t, "pid");

		if (!json_is_integer(tid) || !json_is_integer(pid) || parse__host(p, t, &host))
			return -EINVAL;
		n = p->nth;
		if (!plan__thread(p, host, json_integer_value(tid), json_integer_value(pid)))
			return -ENOMEM;
		/* one host's thread listed twice */
		if (p->nth == n && p->nhosts > 1)
			return -EINVAL;
	}
	return 0;
}

static int load_procs(struct rp_plan *p, json_t *h)
{
	json_t *a = json_object_get(h, "processes"), *o;
	size_t i;

	json_array_foreach(a, i, o) {
		const char *cwd = json_string_value(json_object_get(o, "cwd"));
		uint16_t host;
		uint32_t k;

		if (!json_is_integer(json_object_get(o, "pid")) || parse__host(p, o, &host))
			return -EINVAL;
		k = plan__proc(p, host, json_integer_value(json_object_get(o, "pid")));
		if (k == RP_NONE)
			return -ENOMEM;
		p->pr[k].ppid = json_integer_value(json_object_get(o, "ppid"));
		if (cwd && cwd[0] == '/' && !p->pr[k].cwd)
			p->pr[k].cwd = strdup(cwd);
	}
	return 0;
}

static int load_file(struct rp_file *f, json_t *o)
{
	const char *path = json_string_value(json_object_get(o, "path"));
	const char *type = json_string_value(json_object_get(o, "type"));
	const char *target = json_string_value(json_object_get(o, "target"));
	bool special = false;
	int err;

	if (!path || path[0] != '/' || !type)
		return -EINVAL;
	/* a fifo, socket or device node the trace found: an empty regular file
	 * stands in, so that it exists as it did (a stat, an unlink, ls -l)
	 * without a device node in the sandbox, or an open that waits for a
	 * fifo's writer outside the trace */
	if (!strcmp(type, "fifo") || !strcmp(type, "socket") || !strcmp(type, "chr") ||
	    !strcmp(type, "blk")) {
		special = true;
		type = "file";
	}
	if (!strcmp(type, "file"))
		f->type = 'f';
	else if (!strcmp(type, "dir"))
		f->type = 'd';
	else if (!strcmp(type, "symlink") && target)
		f->type = 'l';
	else
		return 0; /* symlinks whose text was never read: nothing to make */
	f->path = strdup(path);
	if (!f->path)
		return -ENOMEM;
	path__normalize(f->path);
	/* the sandbox's root stands for "/": it is there before anything is made;
	 * what the kernel provides is not made at all */
	if (!strcmp(f->path, "/") || path__outside_fs(f->path)) {
		err = !strcmp(f->path, "/") && f->type != 'd' ? -EINVAL : 0;
		free(f->path);
		f->path = NULL;
		return err;
	}
	f->target = target ? strdup(target) : NULL;
	f->size = special ? 0 : json_integer_value(json_object_get(o, "size"));
	f->dev = special ? 0 : (uint32_t)json_integer_value(json_object_get(o, "dev"));
	return 1;
}

static int load_files(struct rp_plan *p, json_t *h)
{
	json_t *a = json_object_get(h, "files"), *o;
	size_t i;
	int err;

	if (!json_is_array(a))
		return -EINVAL;
	p->files = calloc(json_array_size(a) + 1, sizeof(*p->files));
	if (!p->files)
		return -ENOMEM;
	json_array_foreach(a, i, o) {
		err = load_file(&p->files[p->nfiles], o);
		if (err < 0)
			return err;
		p->nfiles += err;
	}
	return 0;
}

static int load_header(struct loader *l, json_t *h)
{
	json_t *v = json_object_get(h, "version");
	int err;

	if (!json_is_object(h) || !json_is_string(json_object_get(h, "type")) ||
	    strcmp(json_string_value(json_object_get(h, "type")), "header") ||
	    !json_is_integer(v)) {
		err("%s: not an iotrace annotated trace (make one with 'iotrace analyze "
		    "--infer-causality')",
		    l->file);
		return -EINVAL;
	}
	if (json_integer_value(v) != RP_FORMAT_VERSION) {
		err("%s: unsupported annotated trace version %lld (this iotrace reads %d)", l->file,
		    (long long)json_integer_value(v), RP_FORMAT_VERSION);
		return -EINVAL;
	}
	l->p->header_events = json_integer_value(json_object_get(h, "events"));
	l->p->clock_start = json_integer_value(json_object_get(h, "clock_start_ns"));
	l->p->causality = json_is_true(json_object_get(h, "causality"));
	l->p->lock_deps_apart = json_is_true(json_object_get(h, "lock_deps_apart"));
	if (json_is_string(json_object_get(h, "calls_left_out")))
		warn("%s was recorded without the %s calls (record --calls): the replay does not "
		     "reproduce them, nor what they did to files, sockets and other threads",
		     l->file, json_string_value(json_object_get(h, "calls_left_out")));
	err = load_hosts(l->p, h);
	if (!err)
		err = load_conns(l->p, h);
	if (!err)
		err = load_procs(l->p, h);
	if (!err)
		err = load_threads(l->p, h);
	if (!err)
		err = load_files(l->p, h);
	if (err)
		err("%s:1: bad header: %s", l->file,
		    err == -ENOMEM ? "out of memory" :
				     "hosts, connections, threads, processes or files malformed");
	return err;
}

static struct rp_op *load_new_op(struct loader *l)
{
	struct rp_plan *p = l->p;

	if (p->nops == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 1024;

		if (plan__grow((void **)&p->ops, sizeof(*p->ops), p->nops, cap))
			return NULL;
		l->cap = cap;
	}
	memset(&p->ops[p->nops], 0, sizeof(p->ops[0]));
	return &p->ops[p->nops];
}

static int load_event(struct loader *l, json_t *ev)
{
	struct rp_op *op = load_new_op(l);
	const char *why;

	if (!op)
		return -ENOMEM;
	why = event__compile(l->p, op, ev);
	if (!why && l->p->nops && op->id <= l->p->ops[l->p->nops - 1].id)
		why = "event ids out of order";
	if (why) {
		err("%s:%lu: bad event: %s", l->file, l->line, why);
		/* not counted in nops: plan__free would not see it */
		free(op->deps);
		free((char *)op->path);
		free((char *)op->path2);
		return -EINVAL;
	}
	l->p->nops++;
	return track__op(l->p, op, ev);
}

static int load_line(struct loader *l, const char *buf, size_t len)
{
	json_error_t je;
	json_t *j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	const char *type;
	int err = 0;

	if (!j) {
		if (l->line == 1)
			err("%s: not an iotrace annotated trace (line 1 is not JSON)", l->file);
		else
			err("%s:%lu: malformed JSON: %s", l->file, l->line, je.text);
		return -EINVAL;
	}
	type = json_string_value(json_object_get(j, "type"));
	if (l->line == 1)
		err = load_header(l, j);
	else if (type && !strcmp(type, "event"))
		err = load_event(l, j);
	else if (!type)
		err = (err("%s:%lu: line has no \"type\"", l->file, l->line), -EINVAL);
	/* other line types are for other readers: skip them */
	json_decref(j);
	return err;
}

static int load_check_end(struct loader *l, bool newline)
{
	struct rp_plan *p = l->p;

	if (l->line == 0) {
		err("%s: not an iotrace annotated trace (empty file)", l->file);
		return -EINVAL;
	}
	if (!newline || (p->header_events && p->nops < p->header_events)) {
		err("%s: truncated: %u of %llu events, last line %lu%s", l->file, p->nops,
		    (unsigned long long)p->header_events, l->line,
		    newline ? "" : " has no newline");
		return -EINVAL;
	}
	return 0;
}

int parse__file(struct rp_plan *p, const char *file)
{
	struct loader l = { .p = p, .file = file };
	FILE *f = fopen(file, "r");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;
	bool nl = true;
	int err = 0;

	if (!f) {
		err = -errno;
		err("%s: %s", file, strerror(errno));
		return err;
	}
	while (!err && (n = getline(&buf, &cap, f)) > 0) {
		l.line++;
		nl = buf[n - 1] == '\n';
		if (l.line == 1 && (size_t)n != strlen(buf)) {
			err("%s: not an iotrace annotated trace (binary data)", file);
			err = -EINVAL;
			break;
		}
		err = load_line(&l, buf, n);
	}
	if (!err && ferror(f))
		err = (err("%s: read error: %s", file, strerror(errno)), -EIO);
	if (!err)
		err = load_check_end(&l, nl);
	if (!err)
		err = track__finish(p);
	track__free();
	free(buf);
	fclose(f);
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Symlink chains behind the paths the traced calls name.  A stat or an exec
 * of /usr/bin/cc goes through /etc/alternatives/cc and two more links to the
 * compiler; the trace shows only the first name, so a replay would stop at
 * the first link.  The first time the recorder drains a record naming an
 * absolute path, it follows the path's last component from link to link
 * (lstat, readlink) and writes one LINK record per link.  The cost is once
 * per distinct path: a record without strings costs one test, one with
 * strings a hash per string.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/record.h"
#include "lib/trace.h"
#include "loader/linksnap.h"

#define LINK_HOPS 40 /* the kernel's own limit on a chain */
#define LINK_BUF  4096

static uint64_t path_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h | 1; /* 0 marks an empty slot */
}

static int set_grow(struct linksnap *ls)
{
	uint32_t cap = ls->cap ? 2 * ls->cap : 1024;
	uint64_t *v = calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < ls->cap; i++) {
		uint32_t k = ls->set[i] & (cap - 1);

		if (!ls->set[i])
			continue;
		while (v[k])
			k = (k + 1) & (cap - 1);
		v[k] = ls->set[i];
	}
	free(ls->set);
	ls->set = v;
	ls->cap = cap;
	return 0;
}

/* true when PATH was seen before; marks it seen */
static bool set_seen(struct linksnap *ls, const char *path)
{
	uint64_t h = path_hash(path);
	uint32_t k;

	if (2 * (ls->n + 1) > ls->cap && set_grow(ls))
		return true; /* out of memory: resolve nothing more */
	for (k = h & (ls->cap - 1); ls->set[k]; k = (k + 1) & (ls->cap - 1))
		if (ls->set[k] == h)
			return true;
	ls->set[k] = h;
	ls->n++;
	return false;
}

/* The path TARGET names when read from a link at LINK, without "." or ".."
 * (taken lexically, as the replay's root has no links above its files). */
static bool link_next(const char *link, const char *target, char *out, size_t cap)
{
	char tmp[PATH_MAX];
	const char *slash = strrchr(link, '/');
	size_t n = 0;
	int len;

	if (target[0] == '/')
		len = snprintf(tmp, sizeof(tmp), "%s", target);
	else
		len = snprintf(tmp, sizeof(tmp), "%.*s/%s", (int)(slash - link), link, target);
	if (len < 0 || (size_t)len >= sizeof(tmp))
		return false;
	for (char *c = strtok(tmp, "/"); c; c = strtok(NULL, "/")) {
		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, "..")) {
			while (n && out[--n] != '/')
				;
			continue;
		}
		if (n + strlen(c) + 2 > cap)
			return false;
		out[n++] = '/';
		memcpy(out + n, c, strlen(c));
		n += strlen(c);
	}
	if (!n)
		out[n++] = '/';
	out[n] = '\0';
	return true;
}

static int link_write(struct trace_writer *w, const struct iot_hdr *call, const char *path,
		      const char *target, const char *end, const struct stat *st)
{
	char buf[LINK_BUF] __attribute__((aligned(8)));
	struct iot_link *l = (struct iot_link *)buf;
	size_t off = sizeof(*l);

	memset(l, 0, sizeof(*l));
	l->hdr.ts = call->ts;
	l->hdr.pid = call->pid;
	l->hdr.tid = call->tid;
	l->hdr.type = IOT_REC_LINK;
	l->end_size = st ? st->st_size : 0;
	l->end_dev = st ? st->st_dev : 0;
	l->end_mode = st ? st->st_mode : 0;
	l->nstr = 3;
	if (!rec__put_str(buf, &off, sizeof(buf), 0, path, strlen(path)) ||
	    !rec__put_str(buf, &off, sizeof(buf), 1, target, strlen(target)) ||
	    !rec__put_str(buf, &off, sizeof(buf), 2, end, strlen(end)))
		return 0; /* names too long for one record: leave the chain out */
	l->hdr.size = off;
	return trace_writer__append(w, &l->hdr);
}

/* Where PATH's chain of links ends (END), and how many links it has. */
static int chain_end(const char *path, char *end, size_t cap)
{
	char cur[PATH_MAX], target[PATH_MAX];
	int hops = 0;
	ssize_t n;

	snprintf(cur, sizeof(cur), "%s", path);
	for (; hops < LINK_HOPS; hops++) {
		n = readlink(cur, target, sizeof(target) - 1);
		if (n < 0)
			break;
		target[n] = '\0';
		if (!link_next(cur, target, cur, sizeof(cur)))
			return 0;
	}
	snprintf(end, cap, "%s", cur);
	return hops;
}

/* One LINK record per link from PATH to the end of its chain. */
static int chain_write(struct linksnap *ls, struct trace_writer *w, const struct iot_hdr *call,
		       const char *path)
{
	char cur[PATH_MAX], target[PATH_MAX], end[PATH_MAX];
	int hops = chain_end(path, end, sizeof(end)), err = 0;
	struct stat st;
	bool ok = !stat(path, &st);

	snprintf(cur, sizeof(cur), "%s", path);
	for (int i = 0; i < hops && !err; i++) {
		ssize_t n = readlink(cur, target, sizeof(target) - 1);

		if (n < 0)
			break;
		target[n] = '\0';
		err = link_write(w, call, cur, target, end, ok ? &st : NULL);
		if (!link_next(cur, target, cur, sizeof(cur)))
			break;
		set_seen(ls, cur);
	}
	return err;
}

int linksnap__note(struct linksnap *ls, struct trace_writer *w, const struct iot_hdr *h)
{
	const struct iot_syscall *sc = (const void *)h;
	struct sc_view v;
	int err = 0;

	if (h->type != IOT_REC_SYSCALL || h->size < sizeof(*sc) || !sc->nstr)
		return 0;
	if (sc_view__parse_raw(h, &v))
		return 0;
	for (unsigned int k = 0; k < IOT_MAX_STRS && !err; k++) {
		const char *s = v.str[k];

		if (!s || s[0] != '/' || !v.strh[k] || v.strh[k]->which >= IOT_STR_SUN_PATH ||
		    v.strh[k]->flags)
			continue;
		if (!set_seen(ls, s))
			err = chain_write(ls, w, h, s);
	}
	return err;
}

void linksnap__free(struct linksnap *ls)
{
	free(ls->set);
	memset(ls, 0, sizeof(*ls));
}

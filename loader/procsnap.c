// SPDX-License-Identifier: GPL-2.0
/*
 * At attach, what the process already has: threads, open fds with their
 * positions and identities, mappings, cwd and command line.  Without it an
 * fd opened before the recording would be a bare number.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/record.h"
#include "lib/trace.h"
#include "loader/pidset.h"
#include "loader/procsnap.h"

#define SNAP_BUF 8192

static void snap_hdr(struct iot_hdr *h, uint16_t type, pid_t pid, pid_t tid, uint64_t ts)
{
	memset(h, 0, sizeof(*h));
	h->ts = ts;
	h->pid = pid;
	h->tid = tid;
	h->type = type;
}

/* Reads a whole small /proc file; returns its length or -1. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
	ssize_t n, len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while ((size_t)len < cap - 1 && (n = read(fd, buf + len, cap - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	return len;
}

static size_t read_link(const char *path, char *buf, size_t cap)
{
	ssize_t n = readlink(path, buf, cap - 1);

	if (n < 0)
		n = 0;
	buf[n] = '\0';
	return n;
}

static int finish(struct trace_writer *w, void *buf, size_t off)
{
	struct iot_hdr *h = buf;

	h->size = off;
	return trace_writer__append(w, h);
}

static int snap_proc(struct trace_writer *w, pid_t pid, uint64_t ts)
{
	char buf[SNAP_BUF] __attribute__((aligned(8)));
	struct iot_proc *p = (struct iot_proc *)buf;
	char path[64], val[PATH_MAX];
	static const char *const files[] = { "comm", "cwd", "exe", "cmdline" };
	size_t off = sizeof(*p);

	snap_hdr(&p->hdr, IOT_REC_PROC, pid, pid, ts);
	p->ppid = procsnap__ppid(pid);
	p->nstr = 4;
	for (int i = 0; i < 4; i++) {
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/%d/%s", pid, files[i]);
		if (i == 1 || i == 2)
			n = read_link(path, val, sizeof(val));
		else
			n = read_small(path, val, sizeof(val));
		if (n < 0)
			n = 0;
		if (i == 0 && n > 0 && val[n - 1] == '\n')
			val[--n] = '\0';
		/* cmdline's arguments are NUL-separated: keep them, drop the last NUL */
		if (i == 3 && n > 0 && val[n - 1] == '\0')
			n--;
		if (!rec__put_str(buf, &off, sizeof(buf), i, val, n))
			rec__put_str(buf, &off, sizeof(buf), i, "", 0);
	}
	return finish(w, buf, off);
}

static int snap_threads(struct trace_writer *w, pid_t pid, uint64_t ts)
{
	char path[64], comm[64];
	struct dirent *de;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		char buf[128] __attribute__((aligned(8)));
		struct iot_thread *t = (struct iot_thread *)buf;
		size_t off = sizeof(*t);
		pid_t tid = atoi(de->d_name);
		ssize_t n;

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
		n = read_small(path, comm, sizeof(comm));
		if (n > 0 && comm[n - 1] == '\n')
			comm[--n] = '\0';
		snap_hdr(&t->hdr, IOT_REC_THREAD, pid, tid, ts);
		t->nstr = 1;
		t->pad = 0;
		rec__put_str(buf, &off, sizeof(buf), 0, comm, n > 0 ? n : 0);
		err = finish(w, buf, off);
	}
	closedir(d);
	return err;
}

/* pos and flags of one fd from /proc/PID/fdinfo/FD */
static void read_fdinfo(pid_t pid, int fd, struct iot_fd *f)
{
	char path[64], buf[1024];
	char *p;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", pid, fd);
	if (read_small(path, buf, sizeof(buf)) < 0)
		return;
	p = strstr(buf, "pos:");
	if (p)
		f->pos = strtoll(p + 4, NULL, 10);
	p = strstr(buf, "flags:");
	if (p)
		f->flags = strtoul(p + 6, NULL, 8);
}

static int snap_fd(struct trace_writer *w, pid_t pid, int fd, uint64_t ts, bool pre_exec)
{
	char buf[PATH_MAX + 128] __attribute__((aligned(8)));
	struct iot_fdsnap *s = (struct iot_fdsnap *)buf;
	char path[64], target[PATH_MAX];
	size_t off = sizeof(*s), n;
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
	n = read_link(path, target, sizeof(target));
	memset(s, 0, sizeof(*s));
	snap_hdr(&s->hdr, IOT_REC_FDSNAP, pid, pid, ts);
	s->f.fd = fd;
	/* stat() through the magic link reaches the open file itself */
	if (stat(path, &st) == 0) {
		s->f.ino = st.st_ino;
		s->f.dev = st.st_dev;
		s->f.size = st.st_size;
		s->f.ftype = rec__ftype_of_mode(st.st_mode);
		if (!strncmp(target, "anon_inode:", 11))
			s->f.ftype = IOT_FT_ANON;
	}
	read_fdinfo(pid, fd, &s->f);
	if (pre_exec && (s->f.flags & O_CLOEXEC))
		return 0; /* the exec about to happen closes it */
	s->nstr = 1;
	rec__put_str(buf, &off, sizeof(buf), 0, target, n);
	return finish(w, buf, off);
}

static int snap_fds(struct trace_writer *w, pid_t pid, uint64_t ts, bool pre_exec)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		err = snap_fd(w, pid, atoi(de->d_name), ts, pre_exec);
	}
	closedir(d);
	return err;
}

/* One /proc/PID/maps line into a MAPSNAP record. */
static int snap_map_line(struct trace_writer *w, pid_t pid, const char *line, uint64_t ts)
{
	char buf[PATH_MAX + 128] __attribute__((aligned(8)));
	struct iot_mapsnap *m = (struct iot_mapsnap *)buf;
	unsigned long long start, end, pgoff, ino;
	unsigned int maj, min;
	char perms[8];
	size_t off = sizeof(*m);
	int pos = 0;
	const char *name;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &pgoff, &maj,
		   &min, &ino, &pos) < 7)
		return 0;
	name = line + pos;
	memset(m, 0, sizeof(*m));
	snap_hdr(&m->hdr, IOT_REC_MAPSNAP, pid, pid, ts);
	m->start = start;
	m->end = end;
	m->offset = pgoff;
	m->ino = ino;
	m->dev = makedev(maj, min);
	m->prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		  (perms[2] == 'x' ? PROT_EXEC : 0);
	m->shared = perms[3] == 's';
	m->nstr = 1;
	rec__put_str(buf, &off, sizeof(buf), 0, name, strcspn(name, "\n"));
	return finish(w, buf, off);
}

static int snap_maps(struct trace_writer *w, pid_t pid, uint64_t ts)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!err && getline(&line, &cap, f) > 0)
		err = snap_map_line(w, pid, line, ts);
	free(line);
	fclose(f);
	return err;
}

int procsnap__write(struct trace_writer *w, pid_t pid, uint64_t ts, bool pre_exec)
{
	int err;

	err = snap_proc(w, pid, ts);
	if (!err)
		err = snap_threads(w, pid, ts);
	if (!err)
		err = snap_fds(w, pid, ts, pre_exec);
	/* an exec replaces every mapping: the ones before it mean nothing */
	if (!err && !pre_exec)
		err = snap_maps(w, pid, ts);
	/* the process may end while we read it: its records so far still count */
	if (err == -ENOENT)
		err = -ESRCH;
	return err;
}

pid_t procsnap__ppid(pid_t pid)
{
	char path[64], buf[512];
	char *p;
	int ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return -1;
	/* comm may hold spaces and parentheses: parse after the last ')' */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return -1;
	return ppid;
}

static int scan_once(struct pidset *set, bool *grew)
{
	struct dirent *de;
	DIR *d = opendir("/proc");
	int err = 0;

	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		pid_t pid = atoi(de->d_name);

		if (pid <= 0 || pidset__has(set, pid) || !pidset__has(set, procsnap__ppid(pid)))
			continue;
		err = pidset__add(set, pid);
		*grew = true;
	}
	closedir(d);
	return err;
}

int procsnap__descendants(struct pidset *set)
{
	bool grew = true;
	int err = 0;

	while (grew && !err) {
		grew = false;
		err = scan_once(set, &grew);
	}
	return err;
}

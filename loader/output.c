// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "loader/output.h"

/* A mkstemp name beside PATH, where the file system has no O_TMPFILE. */
static int open_named_tmp(struct output *o, const char *dir)
{
	mode_t mask = umask(0);
	char base[PATH_MAX];
	int fd;

	umask(mask);
	snprintf(base, sizeof(base), "%s", o->path);
	snprintf(o->tmp, sizeof(o->tmp), "%s/.%s.XXXXXX", dir, basename(base));
	fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0) {
		o->tmp[0] = '\0';
		return -errno;
	}
	fchmod(fd, 0644 & ~mask);
	return fd;
}

int output__open(struct output *o, const char *path)
{
	char buf[PATH_MAX];
	struct stat st;
	int e;

	*o = (struct output){ .path = path, .fd = -1 };
	o->direct = !lstat(path, &st) && !S_ISREG(st.st_mode);
	if (o->direct) {
		o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		o->committed = true;
	} else {
		const char *dir;

		snprintf(buf, sizeof(buf), "%s", path);
		dir = dirname(buf);
		o->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
		if (o->fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL))
			o->fd = open_named_tmp(o, dir);
	}
	if (o->fd >= 0)
		return 0;
	e = -errno;
	err("cannot write %s: %s", path, strerror(-e));
	return e;
}

/* An O_TMPFILE gets its name by a link; without CAP_DAC_READ_SEARCH through /proc. */
static int link_tmpfile(struct output *o)
{
	char proc[64];

	if (!linkat(o->fd, "", AT_FDCWD, o->path, AT_EMPTY_PATH))
		return 0;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
	return linkat(AT_FDCWD, proc, AT_FDCWD, o->path, AT_SYMLINK_FOLLOW) ? -errno : 0;
}

int output__commit(struct output *o, bool force)
{
	char old[PATH_MAX + 8];
	bool moved = false;
	struct stat st;
	int e;

	if (o->committed)
		return 0;
	snprintf(old, sizeof(old), "%s.old", o->path);
	if (!lstat(o->path, &st)) {
		e = force ? unlink(o->path) : rename(o->path, old);
		if (e) {
			e = -errno;
			err("cannot %s %s: %s", force ? "remove" : "keep the old", o->path,
			    strerror(-e));
			return e;
		}
		moved = !force;
		if (moved)
			info("kept the previous %s as %s", o->path, old);
	}
	e = o->tmp[0] ? (rename(o->tmp, o->path) ? -errno : 0) : link_tmpfile(o);
	if (e) {
		err("cannot create %s: %s", o->path, strerror(-e));
		if (moved)
			rename(old, o->path); /* as it was, as a failed start leaves it */
		return e;
	}
	o->tmp[0] = '\0';
	o->committed = true;
	return 0;
}

void output__close(struct output *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = '\0';
}

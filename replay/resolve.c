// SPDX-License-Identifier: GPL-2.0
/*
 * RESOLVE_IN_ROOT by hand, for where openat2 is missing: kernels before 5.6,
 * and valgrind, which does not know the call.  The path is walked one
 * component at a time from the root; ".." stops at the root; a symlink is
 * read and spliced into what is left of the path, an absolute one starting
 * again at the root.  Every component is opened O_NOFOLLOW, so a tree changed
 * under the walk makes it fail, never leads it out.  Magic links cannot lead
 * out either: their text is resolved inside the root like any other link.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay/resolve.h"

#define MAX_LINKS 40  /* as the kernel's ELOOP limit */
#define MAX_DEPTH 256 /* directories held open on the way down */

struct walk {
	int fd[MAX_DEPTH]; /* fd[0]: the root (not ours); fd[1..depth]: ours */
	int depth;
	char rest[PATH_MAX]; /* components still to walk */
	int links;
};

static void walk_up(struct walk *w, int to)
{
	while (w->depth > to)
		close(w->fd[w->depth--]);
}

/* Replaces the rest of the path with the target of the symlink lfd, then what
 * followed the link. */
static int walk_splice(struct walk *w, int lfd, const char *after)
{
	char target[PATH_MAX], joined[PATH_MAX];
	ssize_t n = readlinkat(lfd, "", target, sizeof(target) - 1);

	if (n < 0)
		return -errno;
	target[n] = '\0';
	if (++w->links > MAX_LINKS)
		return -ELOOP;
	/* no "/" after a link that ends the path: it need not be a directory */
	if (snprintf(joined, sizeof(joined), *after ? "%s/%s" : "%s", target, after) >=
	    (int)sizeof(joined))
		return -ENAMETOOLONG;
	if (target[0] == '/')
		walk_up(w, 0);
	memcpy(w->rest, joined, strlen(joined) + 1);
	return 0;
}

/* Cuts the next component off w->rest into name; false when none is left. */
static bool walk_next(struct walk *w, char *name, bool *last, bool *dir)
{
	char *s = w->rest, *e;

	while (*s == '/')
		s++;
	if (!*s)
		return false;
	e = strchr(s, '/');
	*dir = e != NULL; /* "name/": it must be a directory */
	if (e)
		*e++ = '\0';
	else
		e = s + strlen(s);
	memcpy(name, s, strlen(s) + 1);
	while (*e == '/')
		e++;
	*last = !*e;
	memmove(w->rest, e, strlen(e) + 1);
	return true;
}

/* One step down into name, which is a directory or a symlink to follow. */
static int walk_step(struct walk *w, const char *name)
{
	struct stat st;
	int fd = openat(w->fd[w->depth], name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	int e = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		e = -errno;
	} else if (S_ISLNK(st.st_mode)) {
		char after[PATH_MAX];

		memcpy(after, w->rest, strlen(w->rest) + 1);
		e = walk_splice(w, fd, after);
	} else if (!S_ISDIR(st.st_mode)) {
		e = -ENOTDIR;
	} else if (w->depth + 1 >= MAX_DEPTH) {
		e = -ENAMETOOLONG;
	} else {
		w->fd[++w->depth] = fd;
		return 0;
	}
	close(fd);
	return e;
}

/* Is name in the current directory a symlink the open must follow? */
static int walk_is_link(struct walk *w, const char *name)
{
	struct stat st;

	if (fstatat(w->fd[w->depth], name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	return S_ISLNK(st.st_mode);
}

int resolve__open_in_root(int root_fd, const char *path, int flags, int mode)
{
	bool follow_last = !(flags & O_NOFOLLOW) && !((flags & O_CREAT) && (flags & O_EXCL));
	static __thread struct walk w; /* 5 KiB: off the replay threads' stacks */
	char name[PATH_MAX];
	bool last, dir;
	int e, fd;

	if (!*path)
		return -ENOENT;
	if (strlen(path) >= sizeof(w.rest))
		return -ENAMETOOLONG;
	w.fd[0] = root_fd;
	w.depth = 0;
	w.links = 0;
	memcpy(w.rest, path, strlen(path) + 1);
	while (walk_next(&w, name, &last, &dir)) {
		if (!strcmp(name, "."))
			continue;
		if (!strcmp(name, "..")) {
			walk_up(&w, w.depth ? w.depth - 1 : 0);
			continue;
		}
		if (last && !dir) {
			e = follow_last ? walk_is_link(&w, name) : 0;
			if (e < 0)
				goto out;
			if (!e) {
				fd = openat(w.fd[w.depth], name, flags | O_NOFOLLOW | O_CLOEXEC,
					    mode);
				e = fd < 0 ? -errno : fd;
				goto out;
			}
		}
		e = walk_step(&w, name);
		if (e)
			goto out;
	}
	/* the path ended on a directory: "/", "a/..", "a/" */
	fd = openat(w.fd[w.depth], ".", flags | O_CLOEXEC, mode);
	e = fd < 0 ? -errno : fd;
out:
	walk_up(&w, 0);
	return e;
}

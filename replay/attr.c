// SPDX-License-Identifier: GPL-2.0
/*
 * Metadata: chmod, chown and utimensat, getxattr and listxattr, on a path
 * or an fd.  A path is opened O_PATH inside the root first, then changed or
 * read through that fd, so the call can never land outside the root (chmod,
 * utimensat and the xattr calls have no AT_EMPTY_PATH: they go through the
 * fd's /proc/self/fd entry, which names exactly the file opened, wherever
 * the link text points, and a symlink opened O_NOFOLLOW itself).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "replay/replay.h"
#include "replay/run.h"

/*
 * The value or list goes to a buffer of the size the application gave: a
 * size too small fails with ERANGE in both.  A value set is that many bytes
 * of filler (the trace has no values), so later reads see its length; only
 * in the user and trusted namespaces, whose values the kernel does not
 * parse (an ACL or a security label of filler would be refused).
 */
static int64_t attr_xattr(const struct rp_op *op, int fd, const char *self)
{
	void *buf = op->a[1] ? calloc(1, op->a[1]) : NULL;
	ssize_t r;

	if (op->a[1] && !buf)
		return -ENOMEM;
	switch (op->a[0]) {
	case RP_ATTR_XLIST:
		r = self ? listxattr(self, buf, op->a[1]) : flistxattr(fd, buf, op->a[1]);
		break;
	case RP_ATTR_XGET:
		r = self ? getxattr(self, op->path2, buf, op->a[1]) :
			   fgetxattr(fd, op->path2, buf, op->a[1]);
		break;
	case RP_ATTR_XREMOVE:
		r = self ? removexattr(self, op->path2) : fremovexattr(fd, op->path2);
		break;
	default:
		r = self ? setxattr(self, op->path2, buf, op->a[1], op->a[2]) :
			   fsetxattr(fd, op->path2, buf, op->a[1], op->a[2]);
	}
	free(buf);
	return r < 0 ? -errno : r;
}

static bool xattr_settable(const char *name)
{
	return !strncmp(name, "user.", 5) || !strncmp(name, "trusted.", 8);
}

static int64_t attr_on_fd(const struct rp_op *op, int fd, bool opath)
{
	char self[64];

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	if (op->a[0] >= RP_ATTR_XGET)
		return attr_xattr(op, fd, opath ? self : NULL);
	switch (op->a[0]) {
	case RP_ATTR_MODE:
		return sys_res(opath ? fchmodat(AT_FDCWD, self, op->a[1] & 07777, 0) :
				       fchmod(fd, op->a[1] & 07777));
	case RP_ATTR_OWNER:
		return sys_res(fchownat(fd, "", op->a[1], op->a[2], AT_EMPTY_PATH));
	default:
		return sys_res(opath ? utimensat(AT_FDCWD, self, NULL, 0) : futimens(fd, NULL));
	}
}

int64_t attr__op(struct rp_plan *p, struct rp_op *op, bool *emul)
{
	int fd;
	int64_t r;

	if (op->a[0] >= RP_ATTR_XGET && op->a[0] != RP_ATTR_XLIST && !op->path2) {
		report__note(op, RR_PATH_UNKNOWN);
		return RP_SKIPPED;
	}
	if (op->a[0] == RP_ATTR_XSET && !xattr_settable(op->path2)) {
		report__note(op, RR_UNSUPPORTED);
		return RP_SKIPPED;
	}
	if (!op->path) {
		fd = fd__get(p, op, op->fd);
		if (fd == RP_FD_SINK) {
			report__note(op, RR_OUTSIDE);
			*emul = true;
			return op->ret;
		}
		return fd < 0 ? fd__missing(op, fd) : attr_on_fd(op, fd, false);
	}
	/* a symlink's own mode cannot change: lchmod-style calls fail as on Linux */
	fd = sandbox__open_in(op->root, op->path, O_PATH | (op->a[3] ? O_NOFOLLOW : 0), 0);
	if (fd < 0)
		return fd;
	r = attr_on_fd(op, fd, true);
	close(fd);
	return r;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Metadata changes: chmod, chown and utimensat, on a path or an fd.  A path
 * is opened O_PATH inside the root first, then changed through that fd, so
 * the change can never land outside the root (chmod and utimensat have no
 * AT_EMPTY_PATH: they go through the fd's /proc/self/fd entry, which names
 * exactly the file opened, wherever the link text points).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay/replay.h"
#include "replay/run.h"

static int64_t attr_on_fd(const struct rp_op *op, int fd, bool opath)
{
	char self[64];

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	switch (op->a[0]) {
	case RP_ATTR_MODE:
		return sys_res(opath ? fchmodat(AT_FDCWD, self, op->a[1] & 07777, 0) :
				       fchmod(fd, op->a[1] & 07777));
	case RP_ATTR_OWNER: return sys_res(fchownat(fd, "", op->a[1], op->a[2], AT_EMPTY_PATH));
	default: return sys_res(opath ? utimensat(AT_FDCWD, self, NULL, 0) : futimens(fd, NULL));
	}
}

int64_t attr__op(struct rp_plan *p, struct rp_op *op, bool *emul)
{
	int fd;
	int64_t r;

	if (!op->path) {
		fd = fd__get(p, op, op->fd);
		if (fd == RP_FD_SINK) {
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

// SPDX-License-Identifier: GPL-2.0
/*
 * Extended attributes read, listed, set and removed, for the replay's
 * tests: every outcome the replay must reproduce (a value's length, ERANGE
 * for a small buffer, ENODATA, a symlink's own attributes) and one set it
 * cannot (an ACL, whose value the trace does not hold).  Prints each
 * result as name=value.
 *
 *   xattr DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/xattr.h>
#include <unistd.h>

static void show(const char *what, ssize_t r)
{
	printf("%s=%zd\n", what, r < 0 ? -errno : r);
}

int main(int argc, char **argv)
{
	char f[512], l[512], buf[256];
	int fd;

	if (argc != 2)
		return 2;
	snprintf(f, sizeof(f), "%s/x", argv[1]);
	snprintf(l, sizeof(l), "%s/link", argv[1]);
	fd = open(f, O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (fd < 0 || symlink("x", l))
		return 1;
	show("set", setxattr(f, "user.k", "12345", 5, XATTR_CREATE));
	show("set_again", setxattr(f, "user.k", "12345", 5, XATTR_CREATE));
	show("get_size", getxattr(f, "user.k", NULL, 0));
	show("get_small", getxattr(f, "user.k", buf, 2));
	show("get", getxattr(f, "user.k", buf, sizeof(buf)));
	show("lget_follow", getxattr(l, "user.k", buf, sizeof(buf)));
	show("lget", lgetxattr(l, "user.k", buf, sizeof(buf)));
	show("fget", fgetxattr(fd, "user.k", buf, sizeof(buf)));
	show("list", listxattr(f, buf, sizeof(buf)));
	show("flist", flistxattr(fd, buf, sizeof(buf)));
	show("get_dir", getxattr(argv[1], "user.none", buf, sizeof(buf)));
	show("set_acl", setxattr(f, "system.posix_acl_access", "\2\0\0\0", 4, 0));
	show("remove", removexattr(f, "user.k"));
	show("get_gone", getxattr(f, "user.k", buf, sizeof(buf)));
	close(fd);
	return 0;
}

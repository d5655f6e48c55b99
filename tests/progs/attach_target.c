// SPDX-License-Identifier: GPL-2.0
/*
 * A process to attach to: it opens and fills a file, seeks to a known
 * position, says "ready" with the file's identity, then keeps reading it
 * through the fd it opened before any recorder came, every 20 ms.
 *
 *   attach_target FILE SECONDS
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	char buf[10000];
	struct stat st;
	int fd, loops;

	if (argc < 3)
		return 2;
	loops = atoi(argv[2]) * 50;
	fd = open(argv[1], O_CREAT | O_RDWR | O_TRUNC, 0644);
	memset(buf, 'x', sizeof(buf));
	if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf) || lseek(fd, 4096, SEEK_SET) < 0 ||
	    fstat(fd, &st))
		return 1;
	printf("ready pid=%d fd=%d dev=%lu ino=%lu size=%ld pos=4096\n", getpid(), fd,
	       (unsigned long)st.st_dev, (unsigned long)st.st_ino, (long)st.st_size);
	fflush(stdout);
	for (int i = 0; i < loops; i++) {
		if (pread(fd, buf, 512, 0) != 512)
			return 1;
		nanosleep(&tick, NULL);
	}
	return 0;
}

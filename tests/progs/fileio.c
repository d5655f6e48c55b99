// SPDX-License-Identifier: GPL-2.0
/*
 * Known file I/O in several threads, for the end-to-end tests.  Each thread
 * works on its own file in DIR and reports, as key=value lines, what stat()
 * says about it, so the test can compare the recorded enrichment with it.
 *
 *   fileio DIR [THREADS]
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *dir;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	long k = (long)arg;
	char path[512], buf[8192];
	struct stat st;
	int fd;

	memset(buf, 'a' + k, sizeof(buf));
	snprintf(path, sizeof(path), "%s/file%ld", dir, k);
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (fd < 0) {
		perror("open");
		exit(1);
	}
	if (pwrite(fd, buf, 4096, 8192) != 4096 ||			   /* size becomes 12288 */
	    lseek(fd, 100, SEEK_SET) != 100 || write(fd, buf, 50) != 50 || /* at pos 100 */
	    read(fd, buf, 1000) != 1000 ||				   /* at pos 150 */
	    pread(fd, buf, 512, 8192) != 512 || fsync(fd) || fstat(fd, &st)) {
		perror("io");
		exit(1);
	}
	pthread_mutex_lock(&out_lock);
	printf("thread=%ld tid=%ld fd=%d path=%s dev=%lu ino=%lu size=%ld\n", k,
	       (long)syscall(SYS_gettid), fd, path, (unsigned long)st.st_dev,
	       (unsigned long)st.st_ino, (long)st.st_size);
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
	close(fd);
	return NULL;
}

/* Namespace calls in the main thread: mkdir, symlink, readlink, rename, unlink. */
static void names(void)
{
	char a[512], b[512], link[512], target[512];
	ssize_t n;

	snprintf(a, sizeof(a), "%s/sub", dir);
	snprintf(b, sizeof(b), "%s/sub2", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	if (mkdir(a, 0755) || symlink("sub", link) || rename(a, b)) {
		perror("names");
		exit(1);
	}
	n = readlink(link, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	printf("readlink=%s\n", target);
	unlink(link);
	rmdir(b);
	if (access(a, F_OK) == 0)
		exit(1);
}

int main(int argc, char **argv)
{
	int nthreads = argc > 2 ? atoi(argv[2]) : 3;
	pthread_t th[16];

	if (argc < 2 || nthreads < 1 || nthreads > 16) {
		fprintf(stderr, "usage: fileio DIR [THREADS<=16]\n");
		return 2;
	}
	dir = argv[1];
	printf("pid=%d\n", getpid());
	for (long i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	names();
	return 0;
}

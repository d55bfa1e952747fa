/*
 * open_log.c - preloaded before the library by test_profiles.c: every
 * path the process opens with open() is appended, one per line, to the
 * file that OPEN_LOG names.  It calls nothing the library interposes
 * (openat, dprintf, close), so that its own writes are no I/O of the
 * process's.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	const char *log = getenv("OPEN_LOG");
	if (log) {
		int fd = openat(AT_FDCWD, log,
				O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0) {
			dprintf(fd, "%s\n", path);
			close(fd);
		}
	}
	return openat(AT_FDCWD, path, flags, mode);
}

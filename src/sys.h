/*
 * sys.h - the library's own reads and writes, as raw system calls.
 *
 * The library exports read and write (to see the program's I/O), so a
 * plain call to write from inside the library would land in its own hook.
 * These go straight to the kernel: they are never recorded, never
 * re-enter the library, and are async-signal-safe.
 */
#ifndef TRMS_SYS_H
#define TRMS_SYS_H

#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

static inline ssize_t sys_read(int fd, void *buf, size_t n)
{
	return syscall(SYS_read, fd, buf, n);
}

static inline ssize_t sys_write(int fd, const void *buf, size_t n)
{
	return syscall(SYS_write, fd, buf, n);
}

/* The first @len bytes of the file at @path, NUL-terminated, in @buf; 0
 * if it cannot be read. */
static inline size_t sys_read_head(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	size_t got = 0;
	ssize_t n;

	if (fd < 0)
		return 0;
	while (got + 1 < len &&
	       (n = sys_read(fd, buf + got, len - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	buf[got] = '\0';
	return got;
}

#endif

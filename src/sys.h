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

#endif

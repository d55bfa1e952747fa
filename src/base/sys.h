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

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/* Memory straight from the kernel: the library exports mmap, munmap and
 * madvise too (mapping_hooks.c), whose hooks its own memory must not go
 * through. */
static inline void *sys_mmap(void *addr, size_t n, int prot, int flags,
			     int fd, off_t offset)
{
	return (void *)syscall(SYS_mmap, addr, n, prot, flags, fd, offset);
}

static inline int sys_munmap(void *addr, size_t n)
{
	return (int)syscall(SYS_munmap, addr, n);
}

static inline int sys_madvise(void *addr, size_t n, int advice)
{
	return (int)syscall(SYS_madvise, addr, n, advice);
}

static inline void *sys_mremap(void *addr, size_t old, size_t n, int flags)
{
	return (void *)syscall(SYS_mremap, addr, old, n, flags);
}

static inline ssize_t sys_read(int fd, void *buf, size_t n)
{
	return syscall(SYS_read, fd, buf, n);
}

static inline ssize_t sys_pread(int fd, void *buf, size_t n, off_t at)
{
	return syscall(SYS_pread64, fd, buf, n, at);
}

static inline ssize_t sys_write(int fd, const void *buf, size_t n)
{
	return syscall(SYS_write, fd, buf, n);
}

/*
 * Write @buf to @fd unless the write itself would raise a signal in the
 * program: SIGXFSZ for a regular file that would pass RLIMIT_FSIZE (a
 * process-wide signal: blocking it here would only send it to another
 * thread), SIGPIPE for a pipe whose reader is gone or a socket (sent
 * with MSG_NOSIGNAL).  @return what write returns, or -1 with errno
 * EFBIG when it was not tried.  Async-signal-safe.
 */
static inline ssize_t sys_write_no_signal(int fd, const void *buf, size_t n)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return -1;
	if (S_ISSOCK(st.st_mode))
		return syscall(SYS_sendto, fd, buf, n, MSG_NOSIGNAL, NULL, 0);
	if (S_ISFIFO(st.st_mode)) {
		/* SIGPIPE (sent to the writing thread) blocked meanwhile, and
		 * the one the write raised, if none was pending before,
		 * taken back. */
		sigset_t pipe_only, saved, pending;
		const struct timespec now = { 0, 0 };
		sigemptyset(&pipe_only);
		sigaddset(&pipe_only, SIGPIPE);
		sigpending(&pending);
		int was_pending = sigismember(&pending, SIGPIPE);
		pthread_sigmask(SIG_BLOCK, &pipe_only, &saved);
		ssize_t written = sys_write(fd, buf, n);
		int saved_errno = errno;
		if (written < 0 && errno == EPIPE && !was_pending)
			sigtimedwait(&pipe_only, NULL, &now);
		pthread_sigmask(SIG_SETMASK, &saved, NULL);
		errno = saved_errno;
		return written;
	} else if (S_ISREG(st.st_mode)) {
		struct rlimit limit;
		int flags = fcntl(fd, F_GETFL);
		off_t at = flags >= 0 && (flags & O_APPEND)
				   ? st.st_size
				   : lseek(fd, 0, SEEK_CUR);
		if (getrlimit(RLIMIT_FSIZE, &limit) != 0 || at < 0 ||
		    (limit.rlim_cur != RLIM_INFINITY &&
		     (rlim_t)at + n > limit.rlim_cur))
			return errno = EFBIG, -1;
	}
	return sys_write(fd, buf, n);
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

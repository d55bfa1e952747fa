/*
 * io_hooks.c - data that enters or leaves the program's buffers through
 * the kernel (DESIGN §2: kwrite and kread).
 *
 * Each wrapper calls the C library's function first and, if it moved any
 * bytes, records exactly those bytes: a kernel write of the buffer for
 * data that arrived (read, recv, ...; external input for whoever reads the
 * buffer next), a kernel read for data that left (write, send, ...; input
 * of the caller).  Vectors are walked in order and cut at the count the
 * call returned.  The stdio functions that hand bytes to the caller are
 * wrapped too, because stdio fills its own buffers through internal calls
 * that an interposed read never sees.
 *
 * A failed call records nothing.  Return values and errno are the real
 * call's.  While the profiler is off, a wrapper adds one test of one word.
 */
#define _GNU_SOURCE
/* The wrappers define read, fgets, ...: the headers must declare them as
 * plain functions, not as fortified inline wrappers, and pread as pread
 * (not redirected to pread64: both are defined here). */
#undef _FORTIFY_SOURCE
#undef _FILE_OFFSET_BITS
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "call.h"
#include "log.h"
#include "real.h"

/* With optimisation, <stdio.h> defines these as macros. */
#undef fread_unlocked
#undef fwrite_unlocked
#undef fgets_unlocked
#undef fputs_unlocked

#define EXPORT __attribute__((visibility("default")))

/* glibc's entry points that its headers declare only for fortified or
 * internal use. */
ssize_t __read_chk(int, void *, size_t, size_t);
ssize_t __pread_chk(int, void *, size_t, off_t, size_t);
ssize_t __pread64_chk(int, void *, size_t, off_t, size_t);
ssize_t __recv_chk(int, void *, size_t, size_t, int);
ssize_t __recvfrom_chk(int, void *, size_t, size_t, int, struct sockaddr *,
		       socklen_t *);
size_t __fread_chk(void *, size_t, size_t, size_t, FILE *);
size_t __fread_unlocked_chk(void *, size_t, size_t, size_t, FILE *);
char *__fgets_chk(char *, size_t, int, FILE *);
char *__fgets_unlocked_chk(char *, size_t, int, FILE *);
ssize_t __getdelim(char **, size_t *, int, FILE *);

enum direction { ARRIVED, LEFT };

/* The bytes of one call: a buffer, or a vector cut at @bytes. */
struct transfer {
	const void *buf;
	const struct iovec *iov;
	size_t iovcnt;
	size_t bytes;
};

static int record_range(struct engine_thread *e, enum direction d,
			const void *addr, size_t size)
{
	return d == ARRIVED ? engine_kwrite(e, (uintptr_t)addr, size)
			    : engine_read(e, (uintptr_t)addr, size);
}

static int record_transfer(struct trms_thread *t, enum direction d,
			   const struct transfer *x)
{
	size_t left = x->bytes;
	int rc = 0;

	if (!x->iov)
		return record_range(&t->engine, d, x->buf, x->bytes);
	for (size_t i = 0; i < x->iovcnt && left && !rc; i++) {
		size_t n = x->iov[i].iov_len < left ? x->iov[i].iov_len : left;
		if (n)
			rc = record_range(&t->engine, d, x->iov[i].iov_base, n);
		left -= n;
	}
	return rc;
}

/* Record one successful call that moved @x.  Out of line: the wrappers
 * only test whether the profiler is on. */
static __attribute__((noinline)) void record(enum direction d,
					     const struct transfer *x)
{
	int saved_errno = errno;
	int rc;
	struct trms_thread *t = call_enter(&rc);

	if (!t)
		goto out;
	engine_count_event(&t->engine);
	if (call_timed()) {
		struct meter m;
		meter_start(t, &m, COST_OP_ACCESS,
			    (x->bytes >> runtime.engine.cell_shift) >=
				    COST_MEASURE_CELLS);
		rc = record_transfer(t, d, x);
		meter_stop(t, &m, COST_OP_ACCESS,
			   m.measure ? clock_ticks() : 0);
	} else {
		rc = record_transfer(t, d, x);
	}
	if (d == ARRIVED) {
		__atomic_store_n(&t->in_bytes, t->in_bytes + x->bytes,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&t->in_calls, t->in_calls + 1,
				 __ATOMIC_RELAXED);
	} else {
		__atomic_store_n(&t->out_bytes, t->out_bytes + x->bytes,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&t->out_calls, t->out_calls + 1,
				 __ATOMIC_RELAXED);
	}
	if (rc == -ENOMEM || rc == -EOVERFLOW)
		log_internal("cannot record I/O: %s", strerror(-rc));
	call_leave(t);
out:
	errno = saved_errno;
}

static inline bool recording(void)
{
	return __builtin_expect(runtime_tag() != 0, 1);
}

static inline void buffer_moved(enum direction d, const void *buf,
				ssize_t n)
{
	if (n > 0 && recording()) {
		struct transfer x = { buf, NULL, 0, (size_t)n };
		record(d, &x);
	}
}

static inline void vector_moved(enum direction d, const struct iovec *iov,
				size_t iovcnt, ssize_t n)
{
	if (n > 0 && recording()) {
		struct transfer x = { NULL, iov, iovcnt, (size_t)n };
		record(d, &x);
	}
}

/* A real function missing from this C library (a program that found it
 * with dlsym, say): fail the way an unimplemented call does. */
#define MISSING(value) (errno = ENOSYS, (value))

/* ---- data arriving ---- */

EXPORT ssize_t read(int fd, void *buf, size_t count)
{
	__typeof__(real.read) fn = REAL(read);
	ssize_t n = fn ? fn(fd, buf, count) : MISSING(-1);

	buffer_moved(ARRIVED, buf, n);
	return n;
}

EXPORT ssize_t pread(int fd, void *buf, size_t count, off_t offset)
{
	__typeof__(real.pread) fn = REAL(pread);
	ssize_t n = fn ? fn(fd, buf, count, offset) : MISSING(-1);

	buffer_moved(ARRIVED, buf, n);
	return n;
}

EXPORT ssize_t pread64(int fd, void *buf, size_t count, off_t offset)
{
	__typeof__(real.pread64) fn = REAL(pread64);
	ssize_t n = fn ? fn(fd, buf, count, offset) : MISSING(-1);

	buffer_moved(ARRIVED, buf, n);
	return n;
}

EXPORT ssize_t readv(int fd, const struct iovec *iov, int iovcnt)
{
	__typeof__(real.readv) fn = REAL(readv);
	ssize_t n = fn ? fn(fd, iov, iovcnt) : MISSING(-1);

	vector_moved(ARRIVED, iov, (size_t)iovcnt, n);
	return n;
}

EXPORT ssize_t preadv(int fd, const struct iovec *iov, int iovcnt,
		      off_t offset)
{
	__typeof__(real.preadv) fn = REAL(preadv);
	ssize_t n = fn ? fn(fd, iov, iovcnt, offset) : MISSING(-1);

	vector_moved(ARRIVED, iov, (size_t)iovcnt, n);
	return n;
}

EXPORT ssize_t preadv64(int fd, const struct iovec *iov, int iovcnt,
			off_t offset)
{
	__typeof__(real.preadv64) fn = REAL(preadv64);
	ssize_t n = fn ? fn(fd, iov, iovcnt, offset) : MISSING(-1);

	vector_moved(ARRIVED, iov, (size_t)iovcnt, n);
	return n;
}

EXPORT ssize_t preadv2(int fd, const struct iovec *iov, int iovcnt,
		       off_t offset, int flags)
{
	__typeof__(real.preadv2) fn = REAL(preadv2);
	ssize_t n = fn ? fn(fd, iov, iovcnt, offset, flags) : MISSING(-1);

	vector_moved(ARRIVED, iov, (size_t)iovcnt, n);
	return n;
}

EXPORT ssize_t preadv64v2(int fd, const struct iovec *iov, int iovcnt,
			  off_t offset, int flags)
{
	__typeof__(real.preadv64v2) fn = REAL(preadv64v2);
	ssize_t n = fn ? fn(fd, iov, iovcnt, offset, flags) : MISSING(-1);

	vector_moved(ARRIVED, iov, (size_t)iovcnt, n);
	return n;
}

EXPORT ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	__typeof__(real.recv) fn = REAL(recv);
	ssize_t n = fn ? fn(fd, buf, len, flags) : MISSING(-1);

	/* MSG_TRUNC on a datagram socket returns the datagram's size, which
	 * may exceed what was stored. */
	buffer_moved(ARRIVED, buf, n > (ssize_t)len ? (ssize_t)len : n);
	return n;
}

EXPORT ssize_t recvfrom(int fd, void *buf, size_t len, int flags,
			struct sockaddr *addr, socklen_t *addrlen)
{
	__typeof__(real.recvfrom) fn = REAL(recvfrom);
	ssize_t n = fn ? fn(fd, buf, len, flags, addr, addrlen) : MISSING(-1);

	buffer_moved(ARRIVED, buf, n > (ssize_t)len ? (ssize_t)len : n);
	return n;
}

EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	__typeof__(real.recvmsg) fn = REAL(recvmsg);
	ssize_t n = fn ? fn(fd, msg, flags) : MISSING(-1);

	if (n > 0)
		vector_moved(ARRIVED, msg->msg_iov, msg->msg_iovlen, n);
	return n;
}

/* The fortified versions that -D_FORTIFY_SOURCE programs call. */
EXPORT ssize_t __read_chk(int fd, void *buf, size_t count, size_t buflen)
{
	__typeof__(real.read_chk) fn = REAL(read_chk);
	ssize_t n = fn ? fn(fd, buf, count, buflen) : MISSING(-1);

	buffer_moved(ARRIVED, buf, n);
	return n;
}

EXPORT ssize_t __pread_chk(int fd, void *buf, size_t count, off_t offset,
			   size_t buflen)
{
	__typeof__(real.pread_chk) fn = REAL(pread_chk);
	ssize_t n = fn ? fn(fd, buf, count, offset, buflen) : MISSING(-1);

	buffer_moved(ARRIVED, buf, n);
	return n;
}

EXPORT ssize_t __pread64_chk(int fd, void *buf, size_t count, off_t offset,
			     size_t buflen)
{
	__typeof__(real.pread64_chk) fn = REAL(pread64_chk);
	ssize_t n = fn ? fn(fd, buf, count, offset, buflen) : MISSING(-1);

	buffer_moved(ARRIVED, buf, n);
	return n;
}

EXPORT ssize_t __recv_chk(int fd, void *buf, size_t len, size_t buflen,
			  int flags)
{
	__typeof__(real.recv_chk) fn = REAL(recv_chk);
	ssize_t n = fn ? fn(fd, buf, len, buflen, flags) : MISSING(-1);

	buffer_moved(ARRIVED, buf, n > (ssize_t)len ? (ssize_t)len : n);
	return n;
}

EXPORT ssize_t __recvfrom_chk(int fd, void *buf, size_t len, size_t buflen,
			      int flags, struct sockaddr *addr,
			      socklen_t *addrlen)
{
	__typeof__(real.recvfrom_chk) fn = REAL(recvfrom_chk);
	ssize_t n = fn ? fn(fd, buf, len, buflen, flags, addr, addrlen)
		       : MISSING(-1);

	buffer_moved(ARRIVED, buf, n > (ssize_t)len ? (ssize_t)len : n);
	return n;
}

/* stdio: whole items for fread (a partial item at the end of the file is
 * stored but not reported by fread, so it is not counted), the string for
 * fgets, the line for getline and getdelim. */
static inline void items_moved(enum direction d, const void *buf,
			       size_t size, size_t items)
{
	if (items && size && recording()) {
		struct transfer x = { buf, NULL, 0, size * items };
		record(d, &x);
	}
}

EXPORT size_t fread(void *ptr, size_t size, size_t nmemb, FILE *stream)
{
	__typeof__(real.fread) fn = REAL(fread);
	size_t n = fn ? fn(ptr, size, nmemb, stream) : MISSING(0);

	items_moved(ARRIVED, ptr, size, n);
	return n;
}

EXPORT size_t fread_unlocked(void *ptr, size_t size, size_t nmemb,
			     FILE *stream)
{
	__typeof__(real.fread_unlocked) fn = REAL(fread_unlocked);
	size_t n = fn ? fn(ptr, size, nmemb, stream) : MISSING(0);

	items_moved(ARRIVED, ptr, size, n);
	return n;
}

EXPORT size_t __fread_chk(void *ptr, size_t ptrlen, size_t size,
			  size_t nmemb, FILE *stream)
{
	__typeof__(real.fread_chk) fn = REAL(fread_chk);
	size_t n = fn ? fn(ptr, ptrlen, size, nmemb, stream) : MISSING(0);

	items_moved(ARRIVED, ptr, size, n);
	return n;
}

EXPORT size_t __fread_unlocked_chk(void *ptr, size_t ptrlen, size_t size,
				   size_t nmemb, FILE *stream)
{
	__typeof__(real.fread_unlocked_chk) fn = REAL(fread_unlocked_chk);
	size_t n = fn ? fn(ptr, ptrlen, size, nmemb, stream) : MISSING(0);

	items_moved(ARRIVED, ptr, size, n);
	return n;
}

static inline void string_moved(enum direction d, const char *s)
{
	if (s && recording())
		buffer_moved(d, s, (ssize_t)strlen(s));
}

EXPORT char *fgets(char *s, int size, FILE *stream)
{
	__typeof__(real.fgets) fn = REAL(fgets);
	char *r = fn ? fn(s, size, stream) : MISSING(NULL);

	string_moved(ARRIVED, r);
	return r;
}

EXPORT char *fgets_unlocked(char *s, int size, FILE *stream)
{
	__typeof__(real.fgets_unlocked) fn = REAL(fgets_unlocked);
	char *r = fn ? fn(s, size, stream) : MISSING(NULL);

	string_moved(ARRIVED, r);
	return r;
}

EXPORT char *__fgets_chk(char *s, size_t slen, int size, FILE *stream)
{
	__typeof__(real.fgets_chk) fn = REAL(fgets_chk);
	char *r = fn ? fn(s, slen, size, stream) : MISSING(NULL);

	string_moved(ARRIVED, r);
	return r;
}

EXPORT char *__fgets_unlocked_chk(char *s, size_t slen, int size,
				  FILE *stream)
{
	__typeof__(real.fgets_unlocked_chk) fn = REAL(fgets_unlocked_chk);
	char *r = fn ? fn(s, slen, size, stream) : MISSING(NULL);

	string_moved(ARRIVED, r);
	return r;
}

EXPORT ssize_t getdelim(char **lineptr, size_t *n, int delim, FILE *stream)
{
	__typeof__(real.getdelim) fn = REAL(getdelim);
	ssize_t r = fn ? fn(lineptr, n, delim, stream) : MISSING(-1);

	if (r > 0)
		buffer_moved(ARRIVED, *lineptr, r);
	return r;
}

EXPORT ssize_t __getdelim(char **lineptr, size_t *n, int delim, FILE *stream)
{
	__typeof__(real.getdelim_internal) fn = REAL(getdelim_internal);
	ssize_t r = fn ? fn(lineptr, n, delim, stream) : MISSING(-1);

	if (r > 0)
		buffer_moved(ARRIVED, *lineptr, r);
	return r;
}

EXPORT ssize_t getline(char **lineptr, size_t *n, FILE *stream)
{
	__typeof__(real.getline) fn = REAL(getline);
	ssize_t r = fn ? fn(lineptr, n, stream) : MISSING(-1);

	if (r > 0)
		buffer_moved(ARRIVED, *lineptr, r);
	return r;
}

/* ---- data leaving ---- */

EXPORT ssize_t write(int fd, const void *buf, size_t count)
{
	__typeof__(real.write) fn = REAL(write);
	ssize_t n = fn ? fn(fd, buf, count) : MISSING(-1);

	buffer_moved(LEFT, buf, n);
	return n;
}

EXPORT ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset)
{
	__typeof__(real.pwrite) fn = REAL(pwrite);
	ssize_t n = fn ? fn(fd, buf, count, offset) : MISSING(-1);

	buffer_moved(LEFT, buf, n);
	return n;
}

EXPORT ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset)
{
	__typeof__(real.pwrite64) fn = REAL(pwrite64);
	ssize_t n = fn ? fn(fd, buf, count, offset) : MISSING(-1);

	buffer_moved(LEFT, buf, n);
	return n;
}

EXPORT ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
	__typeof__(real.writev) fn = REAL(writev);
	ssize_t n = fn ? fn(fd, iov, iovcnt) : MISSING(-1);

	vector_moved(LEFT, iov, (size_t)iovcnt, n);
	return n;
}

EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt,
		       off_t offset)
{
	__typeof__(real.pwritev) fn = REAL(pwritev);
	ssize_t n = fn ? fn(fd, iov, iovcnt, offset) : MISSING(-1);

	vector_moved(LEFT, iov, (size_t)iovcnt, n);
	return n;
}

EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int iovcnt,
			 off_t offset)
{
	__typeof__(real.pwritev64) fn = REAL(pwritev64);
	ssize_t n = fn ? fn(fd, iov, iovcnt, offset) : MISSING(-1);

	vector_moved(LEFT, iov, (size_t)iovcnt, n);
	return n;
}

EXPORT ssize_t pwritev2(int fd, const struct iovec *iov, int iovcnt,
			off_t offset, int flags)
{
	__typeof__(real.pwritev2) fn = REAL(pwritev2);
	ssize_t n = fn ? fn(fd, iov, iovcnt, offset, flags) : MISSING(-1);

	vector_moved(LEFT, iov, (size_t)iovcnt, n);
	return n;
}

EXPORT ssize_t pwritev64v2(int fd, const struct iovec *iov, int iovcnt,
			   off_t offset, int flags)
{
	__typeof__(real.pwritev64v2) fn = REAL(pwritev64v2);
	ssize_t n = fn ? fn(fd, iov, iovcnt, offset, flags) : MISSING(-1);

	vector_moved(LEFT, iov, (size_t)iovcnt, n);
	return n;
}

EXPORT ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	__typeof__(real.send) fn = REAL(send);
	ssize_t n = fn ? fn(fd, buf, len, flags) : MISSING(-1);

	buffer_moved(LEFT, buf, n);
	return n;
}

EXPORT ssize_t sendto(int fd, const void *buf, size_t len, int flags,
		      const struct sockaddr *addr, socklen_t addrlen)
{
	__typeof__(real.sendto) fn = REAL(sendto);
	ssize_t n = fn ? fn(fd, buf, len, flags, addr, addrlen) : MISSING(-1);

	buffer_moved(LEFT, buf, n);
	return n;
}

EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	__typeof__(real.sendmsg) fn = REAL(sendmsg);
	ssize_t n = fn ? fn(fd, msg, flags) : MISSING(-1);

	if (n > 0)
		vector_moved(LEFT, msg->msg_iov, msg->msg_iovlen, n);
	return n;
}

EXPORT size_t fwrite(const void *ptr, size_t size, size_t nmemb, FILE *stream)
{
	__typeof__(real.fwrite) fn = REAL(fwrite);
	size_t n = fn ? fn(ptr, size, nmemb, stream) : MISSING(0);

	items_moved(LEFT, ptr, size, n);
	return n;
}

EXPORT size_t fwrite_unlocked(const void *ptr, size_t size, size_t nmemb,
			      FILE *stream)
{
	__typeof__(real.fwrite_unlocked) fn = REAL(fwrite_unlocked);
	size_t n = fn ? fn(ptr, size, nmemb, stream) : MISSING(0);

	items_moved(LEFT, ptr, size, n);
	return n;
}

EXPORT int fputs(const char *s, FILE *stream)
{
	__typeof__(real.fputs) fn = REAL(fputs);
	int r = fn ? fn(s, stream) : MISSING(EOF);

	if (r >= 0)
		string_moved(LEFT, s);
	return r;
}

EXPORT int fputs_unlocked(const char *s, FILE *stream)
{
	__typeof__(real.fputs_unlocked) fn = REAL(fputs_unlocked);
	int r = fn ? fn(s, stream) : MISSING(EOF);

	if (r >= 0)
		string_moved(LEFT, s);
	return r;
}

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
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include "call.h"
#include "runtime/sweep.h"
#include "base/log.h"
#include "base/real.h"
#include "hooks.h"
#include "base/text.h"

/* With optimisation, <stdio.h> defines these as macros. */
#undef fread_unlocked
#undef fwrite_unlocked
#undef fgets_unlocked
#undef fputs_unlocked

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

/* Data that leaves is read by the thread: a measured activation's
 * memory is watched (gate.h); data that arrives is written by nobody's
 * thread. */
static int record_range(struct trms_thread *t, enum direction d,
			const void *addr, size_t size)
{
	if (d == ARRIVED)
		return engine_kwrite(&t->engine, (uintptr_t)addr, size);
	selection_watch(&t->sel, (uintptr_t)addr, size);
	return engine_read(&t->engine, (uintptr_t)addr, size);
}

static int record_transfer(struct trms_thread *t, enum direction d,
			   const struct transfer *x)
{
	size_t left = x->bytes;
	int rc = 0;

	if (!x->iov)
		return record_range(t, d, x->buf, x->bytes);
	for (size_t i = 0; i < x->iovcnt && left && !rc; i++) {
		size_t n = x->iov[i].iov_len < left ? x->iov[i].iov_len : left;
		if (n)
			rc = record_range(t, d, x->iov[i].iov_base, n);
		left -= n;
	}
	return rc;
}

/*
 * In a program that cannot open a region (annotated.h: an unannotated
 * server under `trms run`), nothing is recorded until a region is named
 * (after a dlopen, say), if ever.  It changes no region's trms or rms
 * (DESIGN §2): every activation begins after
 * such an event, so the event cannot put a cell in or take it out of the
 * set L(a) of any activation, and a later read of the cell counts in
 * trms either way — as induced (the kernel's or another thread's write
 * came last) or as a first access (nothing of the thread's since); rms
 * ignores the kernel entirely, and a kernel read of the thread's buffer
 * (data leaving) before every activation is older than all of them.
 * What it could change is the kind of such a read: a buffer filled by
 * read() before the first region is named counts as a first access
 * instead of external input (induced_external), and one that another
 * thread wrote and this one sent out before that counts as
 * thread-induced.  A program that can open regions records from the
 * start, so the kinds stay exact there.  Only the counts of bytes and
 * calls per thread are kept meanwhile.
 */
static inline bool record_io(void)
{
	return atomic_load_explicit(&runtime.record_io, memory_order_relaxed);
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
	if (!record_io() ||
	    (d == LEFT && selection_skips_reads(&t->sel))) {
		rc = 0;
	} else {
		struct meter m = { 0 };
		bool timed = call_timed();
		call_access_start(t, &m, x->bytes, timed);
		rc = record_transfer(t, d, x);
		call_access_stop(t, &m, timed);
		if (rc)
			call_access_failed(t, rc);
		/* (A shadow that grew is swept here and at ends, not at
		 * every annotated access.) */
		sweep_if_due(t);
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
		log_internal("cannot record I/O: %s", text_errno(-rc));
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
/* Whole items of @size bytes; strings without their terminating NUL. */
static inline void items_moved(enum direction d, const void *buf,
			       size_t size, size_t items)
{
	if (items && size && recording()) {
		struct transfer x = { buf, NULL, 0, size * items };
		record(d, &x);
	}
}

static inline void string_moved(enum direction d, const char *s)
{
	if (s && recording())
		buffer_moved(d, s, (ssize_t)strlen(s));
}

/*
 * The wrappers, one line each.  A wrapper calls the real function (failing
 * with ENOSYS if this C library has none), then records what moved:
 *   BUFFER_HOOK   @ret bytes of the buffer @buf, at most @cap
 *   VECTOR_HOOK   @ret bytes along the vector @iov of @cnt entries
 *   ITEMS_HOOK    @ret items of @size bytes (stdio)
 *   STRING_HOOK   the string @buf, if the call succeeded
 *   LINE_HOOK     @ret bytes of the line at *@buf (getline, getdelim)
 */
#define WRAP(type, name, field, fail, params, args, record)                \
	PASS_ON(type, name, field, MISSING(fail), params, args, record)

#define BUFFER_HOOK(d, name, field, params, args, buf, cap)                \
	WRAP(ssize_t, name, field, -1, params, args,                      \
	     buffer_moved(d, buf, ret > (ssize_t)(cap) ? (ssize_t)(cap) : ret))
#define VECTOR_HOOK(d, name, field, params, args, iov, cnt)                \
	WRAP(ssize_t, name, field, -1, params, args,                      \
	     vector_moved(d, iov, (size_t)(cnt), ret))
#define ITEMS_HOOK(d, name, field, params, args, buf, size)                \
	WRAP(size_t, name, field, 0, params, args,                        \
	     items_moved(d, buf, size, ret))
#define STRING_HOOK(d, name, field, type, fail, params, args, buf, ok)     \
	WRAP(type, name, field, fail, params, args,                       \
	     if (ok) string_moved(d, buf))
#define LINE_HOOK(name, field, params, args, lineptr)                      \
	WRAP(ssize_t, name, field, -1, params, args,                      \
	     if (ret > 0) buffer_moved(ARRIVED, *(lineptr), ret))

/* ---- data arriving ---- */

/*
 * The kernel's memory devices (/dev/zero, /dev/urandom, ...: character
 * devices of major 1) stop copying at a pending signal and return what
 * they have.  Without the library no signal would have come: when the
 * sampling signal alone cut such a read short, the rest is read too, so
 * that the program gets the count it would have had.  Nothing else is
 * completed: from a pipe, a socket or a terminal a short count is the
 * normal answer, and regular files are not cut short by a signal.
 */
static bool memory_device(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) &&
	       major(st.st_rdev) == 1;
}

static ssize_t read_rest(int fd, char *buf, size_t count, ssize_t got,
			 struct interruptions *before)
{
	__typeof__(real.read) fn = REAL(read);
	int saved = errno;

	while (fn && got > 0 && (size_t)got < count &&
	       interrupted_by_us_only(before) && memory_device(fd)) {
		interruptions_note(before);
		ssize_t more = fn(fd, buf + got, count - (size_t)got);
		if (more <= 0)
			break;
		got += more;
	}
	errno = saved;
	return got;
}

#define READ_HOOK(name, field, params, args)                                \
	EXPORT ssize_t name params                                        \
	{                                                                  \
		__typeof__(real.field) fn = REAL(field);                   \
		struct sampler_thread *s_ = thread_block_begin();          \
		struct interruptions before;                               \
		if (s_) /* sampled: the signal may come */                 \
			interruptions_note(&before);                       \
		ssize_t ret = fn ? fn args : MISSING(-1);                  \
		if (s_)                                                    \
			ret = read_rest(fd, buf, count, ret, &before);     \
		thread_block_end(s_);                                      \
		buffer_moved(ARRIVED, buf, ret);                           \
		return ret;                                                \
	}

READ_HOOK(read, read, (int fd, void *buf, size_t count), (fd, buf, count))
BUFFER_HOOK(ARRIVED, pread, pread,
	    (int fd, void *buf, size_t count, off_t offset),
	    (fd, buf, count, offset), buf, count)
BUFFER_HOOK(ARRIVED, pread64, pread64,
	    (int fd, void *buf, size_t count, off_t offset),
	    (fd, buf, count, offset), buf, count)
READ_HOOK(__read_chk, read_chk,
	  (int fd, void *buf, size_t count, size_t buflen),
	  (fd, buf, count, buflen))
BUFFER_HOOK(ARRIVED, __pread_chk, pread_chk,
	    (int fd, void *buf, size_t count, off_t offset, size_t buflen),
	    (fd, buf, count, offset, buflen), buf, count)
BUFFER_HOOK(ARRIVED, __pread64_chk, pread64_chk,
	    (int fd, void *buf, size_t count, off_t offset, size_t buflen),
	    (fd, buf, count, offset, buflen), buf, count)
/* With MSG_TRUNC, a datagram socket returns the datagram's size, which may
 * exceed what was stored: hence the cap at the buffer's length. */
BUFFER_HOOK(ARRIVED, recv, recv, (int fd, void *buf, size_t len, int flags),
	    (fd, buf, len, flags), buf, len)
BUFFER_HOOK(ARRIVED, recvfrom, recvfrom,
	    (int fd, void *buf, size_t len, int flags, struct sockaddr *addr,
	     socklen_t *addrlen),
	    (fd, buf, len, flags, addr, addrlen), buf, len)
BUFFER_HOOK(ARRIVED, __recv_chk, recv_chk,
	    (int fd, void *buf, size_t len, size_t buflen, int flags),
	    (fd, buf, len, buflen, flags), buf, len)
BUFFER_HOOK(ARRIVED, __recvfrom_chk, recvfrom_chk,
	    (int fd, void *buf, size_t len, size_t buflen, int flags,
	     struct sockaddr *addr, socklen_t *addrlen),
	    (fd, buf, len, buflen, flags, addr, addrlen), buf, len)

VECTOR_HOOK(ARRIVED, readv, readv,
	    (int fd, const struct iovec *iov, int iovcnt), (fd, iov, iovcnt),
	    iov, iovcnt)
VECTOR_HOOK(ARRIVED, preadv, preadv,
	    (int fd, const struct iovec *iov, int iovcnt, off_t offset),
	    (fd, iov, iovcnt, offset), iov, iovcnt)
VECTOR_HOOK(ARRIVED, preadv64, preadv64,
	    (int fd, const struct iovec *iov, int iovcnt, off_t offset),
	    (fd, iov, iovcnt, offset), iov, iovcnt)
VECTOR_HOOK(ARRIVED, preadv2, preadv2,
	    (int fd, const struct iovec *iov, int iovcnt, off_t offset,
	     int flags),
	    (fd, iov, iovcnt, offset, flags), iov, iovcnt)
VECTOR_HOOK(ARRIVED, preadv64v2, preadv64v2,
	    (int fd, const struct iovec *iov, int iovcnt, off_t offset,
	     int flags),
	    (fd, iov, iovcnt, offset, flags), iov, iovcnt)
VECTOR_HOOK(ARRIVED, recvmsg, recvmsg,
	    (int fd, struct msghdr *msg, int flags), (fd, msg, flags),
	    ret > 0 ? msg->msg_iov : NULL, ret > 0 ? msg->msg_iovlen : 0)

/* stdio: whole items for fread (a partial item at the end of the file is
 * stored but not reported by fread, so it is not counted), the string for
 * fgets, the line for getline and getdelim. */
ITEMS_HOOK(ARRIVED, fread, fread,
	   (void *ptr, size_t size, size_t nmemb, FILE *stream),
	   (ptr, size, nmemb, stream), ptr, size)
ITEMS_HOOK(ARRIVED, fread_unlocked, fread_unlocked,
	   (void *ptr, size_t size, size_t nmemb, FILE *stream),
	   (ptr, size, nmemb, stream), ptr, size)
ITEMS_HOOK(ARRIVED, __fread_chk, fread_chk,
	   (void *ptr, size_t ptrlen, size_t size, size_t nmemb, FILE *stream),
	   (ptr, ptrlen, size, nmemb, stream), ptr, size)
ITEMS_HOOK(ARRIVED, __fread_unlocked_chk, fread_unlocked_chk,
	   (void *ptr, size_t ptrlen, size_t size, size_t nmemb, FILE *stream),
	   (ptr, ptrlen, size, nmemb, stream), ptr, size)

STRING_HOOK(ARRIVED, fgets, fgets, char *, NULL,
	    (char *s, int size, FILE *stream), (s, size, stream), ret, ret)
STRING_HOOK(ARRIVED, fgets_unlocked, fgets_unlocked, char *, NULL,
	    (char *s, int size, FILE *stream), (s, size, stream), ret, ret)
STRING_HOOK(ARRIVED, __fgets_chk, fgets_chk, char *, NULL,
	    (char *s, size_t slen, int size, FILE *stream),
	    (s, slen, size, stream), ret, ret)
STRING_HOOK(ARRIVED, __fgets_unlocked_chk, fgets_unlocked_chk, char *, NULL,
	    (char *s, size_t slen, int size, FILE *stream),
	    (s, slen, size, stream), ret, ret)

LINE_HOOK(getline, getline, (char **lineptr, size_t *n, FILE *stream),
	  (lineptr, n, stream), lineptr)
LINE_HOOK(getdelim, getdelim,
	  (char **lineptr, size_t *n, int delim, FILE *stream),
	  (lineptr, n, delim, stream), lineptr)
LINE_HOOK(__getdelim, getdelim_internal,
	  (char **lineptr, size_t *n, int delim, FILE *stream),
	  (lineptr, n, delim, stream), lineptr)

/* ---- data leaving ---- */

BUFFER_HOOK(LEFT, write, write, (int fd, const void *buf, size_t count),
	    (fd, buf, count), buf, count)
BUFFER_HOOK(LEFT, pwrite, pwrite,
	    (int fd, const void *buf, size_t count, off_t offset),
	    (fd, buf, count, offset), buf, count)
BUFFER_HOOK(LEFT, pwrite64, pwrite64,
	    (int fd, const void *buf, size_t count, off_t offset),
	    (fd, buf, count, offset), buf, count)
BUFFER_HOOK(LEFT, send, send, (int fd, const void *buf, size_t len, int flags),
	    (fd, buf, len, flags), buf, len)
BUFFER_HOOK(LEFT, sendto, sendto,
	    (int fd, const void *buf, size_t len, int flags,
	     const struct sockaddr *addr, socklen_t addrlen),
	    (fd, buf, len, flags, addr, addrlen), buf, len)

VECTOR_HOOK(LEFT, writev, writev,
	    (int fd, const struct iovec *iov, int iovcnt), (fd, iov, iovcnt),
	    iov, iovcnt)
VECTOR_HOOK(LEFT, pwritev, pwritev,
	    (int fd, const struct iovec *iov, int iovcnt, off_t offset),
	    (fd, iov, iovcnt, offset), iov, iovcnt)
VECTOR_HOOK(LEFT, pwritev64, pwritev64,
	    (int fd, const struct iovec *iov, int iovcnt, off_t offset),
	    (fd, iov, iovcnt, offset), iov, iovcnt)
VECTOR_HOOK(LEFT, pwritev2, pwritev2,
	    (int fd, const struct iovec *iov, int iovcnt, off_t offset,
	     int flags),
	    (fd, iov, iovcnt, offset, flags), iov, iovcnt)
VECTOR_HOOK(LEFT, pwritev64v2, pwritev64v2,
	    (int fd, const struct iovec *iov, int iovcnt, off_t offset,
	     int flags),
	    (fd, iov, iovcnt, offset, flags), iov, iovcnt)
VECTOR_HOOK(LEFT, sendmsg, sendmsg,
	    (int fd, const struct msghdr *msg, int flags), (fd, msg, flags),
	    ret > 0 ? msg->msg_iov : NULL, ret > 0 ? msg->msg_iovlen : 0)

ITEMS_HOOK(LEFT, fwrite, fwrite,
	   (const void *ptr, size_t size, size_t nmemb, FILE *stream),
	   (ptr, size, nmemb, stream), ptr, size)
ITEMS_HOOK(LEFT, fwrite_unlocked, fwrite_unlocked,
	   (const void *ptr, size_t size, size_t nmemb, FILE *stream),
	   (ptr, size, nmemb, stream), ptr, size)

STRING_HOOK(LEFT, fputs, fputs, int, EOF, (const char *s, FILE *stream),
	    (s, stream), s, ret >= 0)
STRING_HOOK(LEFT, fputs_unlocked, fputs_unlocked, int, EOF,
	    (const char *s, FILE *stream), (s, stream), s, ret >= 0)

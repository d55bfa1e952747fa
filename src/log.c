/*
 * log.c - diagnostics on stderr (see log.h).
 */
#include "log.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sys.h"

int log_verbosity;

static const char *const kind_prefix[] = {
	[LOG_CLIENT] = "trms: usage error: ",
	[LOG_ENVIRONMENT] = "trms: ",
	[LOG_INTERNAL] = "trms: internal error: ",
	[LOG_INFO] = "trms: ",
	[LOG_DEBUG] = "trms: debug: ",
};

/* Write to stderr without raising SIGPIPE in the program if its stderr is
 * a pipe nobody reads any more: SIGPIPE is blocked meanwhile, and the one
 * the write raised (if none was pending before) is taken back. */
static void write_quietly(const char *text, size_t len)
{
	sigset_t pipe_only, saved, pending;
	struct timespec now = { 0, 0 };

	sigemptyset(&pipe_only);
	sigaddset(&pipe_only, SIGPIPE);
	sigpending(&pending);
	bool was_pending = sigismember(&pending, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_only, &saved);
	ssize_t n = sys_write(STDERR_FILENO, text, len);
	if (n < 0 && errno == EPIPE && !was_pending)
		sigtimedwait(&pipe_only, NULL, &now);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

static void log_write(enum log_kind kind, const char *suffix, const char *fmt,
		      va_list ap)
{
	char line[512];
	size_t len;
	int saved_errno = errno;

	if (log_verbosity < 0)
		return;
	len = strlen(kind_prefix[kind]);
	memcpy(line, kind_prefix[kind], len);
	int n = vsnprintf(line + len, sizeof(line) - len - 1, fmt, ap);
	if (n > 0)
		len += (size_t)n < sizeof(line) - len - 1 ? (size_t)n
							  : sizeof(line) - len - 2;
	if (suffix) {
		size_t room = sizeof(line) - 1 - len;
		size_t slen = strlen(suffix);
		if (slen > room)
			slen = room;
		memcpy(line + len, suffix, slen);
		len += slen;
	}
	line[len++] = '\n';
	/* One write: a line from another thread cannot land in the middle. */
	write_quietly(line, len);
	errno = saved_errno;
}

void log_message(enum log_kind kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_write(kind, NULL, fmt, ap);
	va_end(ap);
}

void log_limited(struct log_limit *limit, enum log_kind kind, const char *fmt,
		 ...)
{
	unsigned seen = atomic_fetch_add_explicit(&limit->count, 1,
						  memory_order_relaxed);
	va_list ap;

	if (seen >= LOG_LIMIT_PER_SITE)
		return;
	va_start(ap, fmt);
	log_write(kind,
		  seen + 1 == LOG_LIMIT_PER_SITE
			  ? " (further messages like this are suppressed)"
			  : NULL,
		  fmt, ap);
	va_end(ap);
}

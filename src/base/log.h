/*
 * log.h - diagnostics on stderr, saying whose problem each one is.
 *
 *   log_client   the program misused the API (unmatched end, NULL name...)
 *   log_environment  the system refused something the library needed (a
 *                profile that cannot be written: no such directory, no
 *                space left, a file size limit, ...)
 *   log_internal the library failed (out of memory, ...) and degraded
 *   log_info     what TRMS_VERBOSE=1 asks to see
 *   log_debug    what TRMS_VERBOSE=2 asks to see
 *
 * Client and internal messages are limited per call site: a program that
 * makes the same mistake a million times gets a few lines, not a million.
 * Messages are formatted on the stack and written with one write(2), so
 * they neither allocate nor interleave with other threads' lines.
 */
#ifndef TRMS_LOG_H
#define TRMS_LOG_H

#include <stdatomic.h>

enum log_kind { LOG_CLIENT, LOG_ENVIRONMENT, LOG_INTERNAL, LOG_INFO, LOG_DEBUG };

/* 0: only client and internal errors; 1: info too; 2: debug too;
 * -1: nothing at all. */
extern int log_verbosity;

/* A per-call-site budget of messages; see log_limited. */
struct log_limit {
	atomic_uint count;
};

#define LOG_LIMIT_PER_SITE 5

void log_message(enum log_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Print unless @limit has used up its budget; the last allowed message
 * says that further ones are suppressed. */
void log_limited(struct log_limit *limit, enum log_kind kind, const char *fmt,
		 ...) __attribute__((format(printf, 3, 4)));

#define log_client(...)                                                  \
	do {                                                             \
		static struct log_limit site_limit_;                     \
		log_limited(&site_limit_, LOG_CLIENT, __VA_ARGS__);      \
	} while (0)

#define log_environment(...)                                             \
	do {                                                             \
		static struct log_limit site_limit_;                     \
		log_limited(&site_limit_, LOG_ENVIRONMENT, __VA_ARGS__); \
	} while (0)

#define log_internal(...)                                                \
	do {                                                             \
		static struct log_limit site_limit_;                     \
		log_limited(&site_limit_, LOG_INTERNAL, __VA_ARGS__);    \
	} while (0)

#define log_info(...)                                                    \
	do {                                                             \
		if (log_verbosity >= 1)                                  \
			log_message(LOG_INFO, __VA_ARGS__);              \
	} while (0)

#define log_debug(...)                                                   \
	do {                                                             \
		if (log_verbosity >= 2)                                  \
			log_message(LOG_DEBUG, __VA_ARGS__);             \
	} while (0)

#endif

/*
 * real.h - the C library's own versions of the functions the library
 * interposes (read, pthread_create, execve, sigaction, ...).
 *
 * Each is looked up once with dlsym(RTLD_NEXT), all together, at start or
 * at the first interposed call, whichever comes first (another library's
 * constructor may call read before ours has run).  dlsym itself calls no
 * function that the library interposes, so the lookup cannot recurse.
 */
#ifndef TRMS_REAL_H
#define TRMS_REAL_H

#include <link.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <semaphore.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <signal.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

struct real_functions {
#define REAL_FUNCTION(field, symbol, ret, params, attributes)             \
	ret(*field) params attributes;
#define REAL_FUNCTION_VERSIONED(field, symbol, version, ret, params,     \
				attributes)                              \
	REAL_FUNCTION(field, symbol, ret, params, attributes)
#define INTERPOSED(symbol)
#include "base/real_functions.def"
#undef REAL_FUNCTION
#undef REAL_FUNCTION_VERSIONED
#undef INTERPOSED
};

extern struct real_functions real;

/* Look up every real function (idempotent, thread-safe). */
void real_resolve(void);

/* real.NAME, resolved first if need be. */
#define REAL(name)                                                     \
	(__builtin_expect(real.name != NULL, 1) ? real.name             \
						: (real_resolve(), real.name))

#endif

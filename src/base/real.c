/*
 * real.c - looking up the C library's versions of interposed functions
 * (see real.h).
 */
#define _GNU_SOURCE
#include "base/real.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <unistd.h>

struct real_functions real;

#define LOOK_UP(field, symbol)                                           \
	__atomic_store_n((void **)&real.field, dlsym(RTLD_NEXT, symbol), \
			 __ATOMIC_RELEASE)

#define LOOK_UP_VERSION(field, symbol, version)                          \
	do {                                                             \
		void *p_ = dlvsym(RTLD_NEXT, symbol, version);           \
		__atomic_store_n((void **)&real.field,                   \
				 p_ ? p_ : dlsym(RTLD_NEXT, symbol),     \
				 __ATOMIC_RELEASE);                      \
	} while (0)

static void resolve_once(void)
{
#define REAL_FUNCTION(field, symbol, ret, params, attributes)             \
	LOOK_UP(field, symbol);
/* Plain dlsym finds, for instance, the condition variables of glibc
 * 2.2.5, kept for old binaries, which are not the ones programs use
 * today. */
#define REAL_FUNCTION_VERSIONED(field, symbol, version, ret, params,     \
				attributes)                              \
	LOOK_UP_VERSION(field, symbol, version);
#define INTERPOSED(symbol)
#include "base/real_functions.def"
#undef REAL_FUNCTION
#undef REAL_FUNCTION_VERSIONED
#undef INTERPOSED
}

void real_resolve(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, resolve_once);
}

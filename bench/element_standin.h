/*
 * element_standin.h - the least an inline check can cost: annotations
 * that test a thread-local flag (initial-exec, as trms.h's gate) and
 * call a function only when it is set.  The flag is never set and the
 * function never called: bench/element.sh builds bench/element_loop.c
 * against this header to show what "decided without a call" costs on
 * the machine, beside what trms.h's own inline checks cost.
 */
#include <stddef.h>

extern __thread int standin_flag __attribute__((tls_model("initial-exec")));
int standin_call(const void *addr, size_t size);

#define STANDIN_CHECKED(a, s) \
	(__builtin_expect(standin_flag, 0) ? standin_call((a), (s)) : 0)
static inline int trms_region_begin(const char *n) { return STANDIN_CHECKED(n, 0); }
static inline int trms_region_end(const char *n) { return STANDIN_CHECKED(n, 0); }
static inline int trms_read(const void *a, size_t s) { return STANDIN_CHECKED(a, s); }
static inline int trms_write(const void *a, size_t s) { return STANDIN_CHECKED(a, s); }

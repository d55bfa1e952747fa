/*
 * hooks.c - stand-ins for the callbacks that compiler instrumentation
 * calls (bench/instrumentation/run.sh), built as a shared object as
 * libtrms would be.  With -DWORK, each memory callback does what the
 * engine's fast path must do at the least: find the cell's stamp in a
 * shadow table and compare it with the thread's current activation,
 * storing when it is older.  Without, they return at once: the price of
 * the call alone.
 */
#include <stddef.h>
#include <stdint.h>

#ifdef WORK
#define SHADOW_CELLS ((size_t)1 << 24) /* 64 MiB of 32-bit stamps */
static uint32_t shadow[SHADOW_CELLS];
static __thread uint32_t activation __attribute__((tls_model("initial-exec")));
static __thread uint64_t first_reads __attribute__((tls_model("initial-exec")));

static inline void touch(uintptr_t addr)
{
	uint32_t *cell = &shadow[(addr >> 2) & (SHADOW_CELLS - 1)];

	if (__builtin_expect(*cell >= activation, 1))
		return;
	*cell = activation;
	first_reads++;
}
#define BODY(a) touch(a)
#define ENTER() activation++
#else
#define BODY(a) (void)(a)
#define ENTER() (void)0
#endif

void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)fn;
	(void)site;
	ENTER();
}

void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
}

#define ASAN(n)                                                          \
	void __asan_load##n##_noabort(uintptr_t a) { BODY(a); }          \
	void __asan_store##n##_noabort(uintptr_t a) { BODY(a); }
ASAN(1) ASAN(2) ASAN(4) ASAN(8) ASAN(16)
void __asan_loadN_noabort(uintptr_t a, size_t n) { (void)n; BODY(a); }
void __asan_storeN_noabort(uintptr_t a, size_t n) { (void)n; BODY(a); }
void __asan_handle_no_return(void) {}

void __sanitizer_cov_trace_pc_guard(uint32_t *g) { (void)g; }
void __sanitizer_cov_trace_pc_guard_init(uint32_t *a, uint32_t *b)
{
	(void)a;
	(void)b;
}
#define COV(n, t)                                                        \
	void __sanitizer_cov_load##n(t *p) { BODY((uintptr_t)p); }       \
	void __sanitizer_cov_store##n(t *p) { BODY((uintptr_t)p); }
COV(1, uint8_t) COV(2, uint16_t) COV(4, uint32_t) COV(8, uint64_t)
COV(16, __int128)

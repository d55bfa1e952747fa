/*
 * test_dynsym.c - functions' extents found by name in a loaded object's
 * dynamic symbol table (src/sampler/dynsym.c) are those the dynamic loader gives
 * by address (dladdr1), for the C library's functions the sampler counts
 * as waiting, a versioned one among them, and for a function of another
 * object; a name at another address is not taken.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dlfcn.h>
#include <libunwind.h>
#include <link.h>

#include "sampler/dynsym.h"
#include "suite_main.h"

static void check_like_dladdr1(void *handle, const char *name)
{
	uintptr_t start = (uintptr_t)dlsym(handle, name), end = 0;
	const ElfW(Sym) *sym = NULL;
	Dl_info info;

	ck_assert_msg(start != 0, "%s: not found by dlsym", name);
	ck_assert(dladdr1((void *)start, &info, (void **)&sym,
			  RTLD_DL_SYMENT));
	ck_assert_ptr_nonnull(sym);
	ck_assert_msg(dynsym_function_end(start, name, &end),
		      "%s: not found in the dynamic symbols", name);
	ck_assert_uint_eq(end, start + (sym->st_size ? sym->st_size : 1));
}

START_TEST(extents_are_the_loaders)
{
	static const char *const names[] = {
		"pthread_mutex_lock", "pthread_mutex_timedlock",
		"pthread_cond_wait", "pthread_cond_timedwait",
		"pthread_rwlock_rdlock", "pthread_rwlock_wrlock",
		"pthread_spin_lock", "pthread_barrier_wait", "pthread_join",
		"sem_wait", "sem_timedwait", "fopen", "qsort",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		check_like_dladdr1(RTLD_DEFAULT, names[i]);
	/* The older version of a versioned function. */
	void *old = dlvsym(RTLD_DEFAULT, "pthread_cond_wait", "GLIBC_2.2.5");
	if (old) {
		uintptr_t end;
		ck_assert(old != dlsym(RTLD_DEFAULT, "pthread_cond_wait"));
		ck_assert(dynsym_function_end((uintptr_t)old,
					      "pthread_cond_wait", &end));
		ck_assert_uint_gt(end, (uintptr_t)old);
	}
	/* Another object than the C library: libunwind (referred to
	 * through a volatile pointer, so that the reference stays and the
	 * object is loaded). */
	void *volatile referred = (void *)unw_backtrace;
	ck_assert_ptr_nonnull(referred);
	check_like_dladdr1(RTLD_DEFAULT, "unw_backtrace");
}
END_TEST

START_TEST(wrong_name_or_address_is_not_taken)
{
	uintptr_t start = (uintptr_t)dlsym(RTLD_DEFAULT, "sem_wait"), end;

	ck_assert(!dynsym_function_end(start, "sem_post", &end));
	ck_assert(!dynsym_function_end(start + 1, "sem_wait", &end));
	ck_assert(!dynsym_function_end(0, "sem_wait", &end));
}
END_TEST

static Suite *dynsym_suite(void)
{
	Suite *s = suite_create("dynsym");
	TCase *tc = tcase_create("dynsym");

	SUITE_TESTS(tc, extents_are_the_loaders,
		    wrong_name_or_address_is_not_taken);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(dynsym_suite());
}

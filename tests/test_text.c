/*
 * test_text.c - the library's async-signal-safe formatting (src/base/text.c)
 * prints what the C library's snprintf and strerror print, for every
 * conversion it supports, on many values.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suite_main.h"
#include "base/text.h"

#define SAME(fmt, ...)                                                    \
	do {                                                              \
		char ours[256], libc[256];                                \
		int n1 = text_format(ours, sizeof(ours), fmt, __VA_ARGS__); \
		int n2 = snprintf(libc, sizeof(libc), fmt, __VA_ARGS__);  \
		ck_assert_msg(!strcmp(ours, libc) && n1 == n2,            \
			      "format \"%s\": \"%s\" (%d), snprintf says "  \
			      "\"%s\" (%d)",                              \
			      fmt, ours, n1, libc, n2);                   \
	} while (0)

static uint64_t next(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

START_TEST(integers_as_snprintf)
{
	uint64_t state = 88172645463325252ull;

	for (int i = 0; i < 20000; i++) {
		uint64_t v = next(&state) >> (next(&state) % 64);
		SAME("%d|%u|%x", (int)v, (unsigned)v, (unsigned)v);
		SAME("%ld %lu", (long)v, (unsigned long)v);
		SAME("%lld %llu", (long long)v, (unsigned long long)v);
		SAME("n=%zu z=%zd", (size_t)v, (ssize_t)v);
		SAME("%p", (void *)(uintptr_t)(v | 1));
		SAME("%c%%", (int)('a' + (int)(v % 26)));
	}
	SAME("%d %lld", -2147483647 - 1, (long long)INT64_MIN);
	SAME("%llu", (unsigned long long)UINT64_MAX);
}
END_TEST

START_TEST(strings_as_snprintf)
{
	static const char *const s[] = { "", "x", "profile.trms",
					 "a name with spaces", "%s not a format" };

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		SAME("[%s]", s[i]);
		SAME("[%.3s]", s[i]);
		SAME("[%.40s]", s[i]);
		SAME("[%.*s]", 2, s[i]);
	}
}
END_TEST

START_TEST(fixed_point_within_a_last_digit)
{
	uint64_t state = 2463534242ull;

	for (int i = 0; i < 20000; i++) {
		double v = (double)(next(&state) % 100000000) /
			   (double)(1 + next(&state) % 1000);
		for (int p = 0; p <= 6; p += 3) {
			char ours[64], libc[64], fmt[16];
			snprintf(fmt, sizeof(fmt), "%%.%df", p);
			text_format(ours, sizeof(ours), "%.*f", p, v);
			snprintf(libc, sizeof(libc), fmt, v);
			double step = 1;
			for (int k = 0; k < p; k++)
				step /= 10;
			/* Halfway cases may round either way. */
			ck_assert_msg(strtod(ours, NULL) - strtod(libc, NULL) <=
						      step * 1.0001 &&
					      strtod(libc, NULL) -
							      strtod(ours, NULL) <=
						      step * 1.0001,
				      "%.17g at %d digits: \"%s\", snprintf \"%s\"",
				      v, p, ours, libc);
		}
	}
}
END_TEST

START_TEST(truncated_like_snprintf)
{
	char ours[8], libc[8];
	/* Not a literal: the compiler would warn of the truncation that is
	 * the point. */
	const char *volatile word = "abcdef";

	for (size_t cap = 0; cap <= sizeof(ours); cap++) {
		memset(ours, 'x', sizeof(ours));
		memset(libc, 'x', sizeof(libc));
		int n1 = text_format(ours, cap, "%s-%d", word, 42);
		int n2 = snprintf(libc, cap, "%s-%d", word, 42);
		ck_assert_int_eq(n1, n2);
		ck_assert(!memcmp(ours, libc, sizeof(ours)));
	}
}
END_TEST

START_TEST(errno_text_as_strerror)
{
	static const int errs[] = { EPERM, ENOENT, EIO, EACCES, EEXIST,
				    ENOTDIR, EISDIR, EINVAL, EMFILE, EFBIG,
				    ENOSPC, EROFS, EPIPE, ENAMETOOLONG, ENOMEM,
				    EBUSY, EDQUOT, ELOOP, EOVERFLOW };

	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		ck_assert_str_eq(text_errno(errs[i]), strerror(errs[i]));
	ck_assert_str_eq(text_errno(123456), "error 123456");
}
END_TEST

static Suite *text_suite(void)
{
	Suite *s = suite_create("text");
	TCase *tc = tcase_create("text");

	SUITE_TESTS(tc, integers_as_snprintf, strings_as_snprintf,
		    fixed_point_within_a_last_digit, truncated_like_snprintf,
		    errno_text_as_strerror);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(text_suite());
}

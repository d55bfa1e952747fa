/*
 * suite_main.h - what every Check program does: make its cases, run one
 * suite and exit with its verdict.
 */
#ifndef TRMS_SUITE_MAIN_H
#define TRMS_SUITE_MAIN_H

#include <check.h>
#include <stdlib.h>

/* A case of @suite called @name (what CK_RUN_CASE names): each of its
 * tests runs between @before_each and @after_each (either may be NULL),
 * within @timeout seconds (0: Check's default, or CK_DEFAULT_TIMEOUT). */
static inline TCase *suite_case(Suite *suite, const char *name,
				double timeout, void (*before_each)(void),
				void (*after_each)(void))
{
	TCase *tc = tcase_create(name);

	if (timeout > 0)
		tcase_set_timeout(tc, timeout);
	if (before_each || after_each)
		tcase_add_checked_fixture(tc, before_each, after_each);
	suite_add_tcase(suite, tc);
	return tc;
}

/* Add the tests named to @tc, in order: SUITE_TESTS(tc, a, b, c) is
 * tcase_add_test(tc, a) and so on (START_TEST names a const TTest *). */
#define SUITE_TESTS(tc, ...)                                                \
	suite_add_tests((tc), (const TTest *const[]){ __VA_ARGS__, NULL })

static inline void suite_add_tests(TCase *tc, const TTest *const *tests)
{
	for (; *tests; tests++)
		tcase_add_test(tc, *tests);
}

static inline int run_suite(Suite *suite)
{
	SRunner *sr = srunner_create(suite);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif

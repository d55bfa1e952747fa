/*
 * suite_main.h - what every Check program's main does: run one suite and
 * exit with its verdict.
 */
#ifndef TRMS_SUITE_MAIN_H
#define TRMS_SUITE_MAIN_H

#include <check.h>
#include <stdlib.h>

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

/*
 * accuracy.h - the synthetic accuracy case of the growth suite
 * (test_accuracy.c), which test_growth.c's suite adds.
 */
#ifndef TRMS_GROWTH_ACCURACY_H
#define TRMS_GROWTH_ACCURACY_H

#include <check.h>

/* The head of the table the accuracy case prints, row by row. */
void print_accuracy_header(void);

/* The case "accuracy": every synthetic case at every noise level. */
void add_accuracy_tests(Suite *s);

#endif

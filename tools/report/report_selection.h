/*
 * report_selection.h - what the table report says about activations the
 * library did not measure (TRMS_ACTIVATION_SAMPLE, TRMS_BUDGET,
 * TRMS_PARTITION): the settings, the parts merged, and for each region
 * measured in part how many of its activations were measured; which
 * windows of the run (TRMS_INTERVAL) a profile holds; and what the
 * library's memory limit left out.
 */
#ifndef TRMS_REPORT_SELECTION_H
#define TRMS_REPORT_SELECTION_H

#include <stddef.h>
#include <stdio.h>

#include "profile_reader.h"

/* One paragraph; nothing if every activation was measured. */
void report_print_selection(const struct profile_doc *docs, size_t n,
			    FILE *out);

/* One paragraph if the library's memory limit left something out. */
void report_print_memory(const struct profile_doc *docs, size_t n,
			 FILE *out);

#endif

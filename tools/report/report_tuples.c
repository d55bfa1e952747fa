/*
 * report_tuples.c - `trms report --tuples`: every tuple of the report as
 * tab-separated values (see report_output.h).
 */
#include <inttypes.h>
#include <stdio.h>

#include "format/profile_format.h"
#include "report_output.h"

/* @s with tabs, newlines and backslashes written as \t, \n, \\. */
static void print_field(const char *s, FILE *out)
{
	for (; *s; s++) {
		if (*s == '\t')
			fputs("\\t", out);
		else if (*s == '\n')
			fputs("\\n", out);
		else if (*s == '\\')
			fputs("\\\\", out);
		else
			putc(*s, out);
	}
}

void report_print_tuples(const struct report *r, FILE *out)
{
	char sumsq[40];

	fputs("region\tthread\tmetric\tn\tcount\tmin\tmax\tsum\tsumsq\t"
	      "induced_thread\tinduced_external\n",
	      out);
	for (size_t i = 0; i < r->n_rows; i++) {
		const struct report_row *row = &r->rows[i];
		const struct tuple_data *d = &row->data;
		print_field(row->region, out);
		putc('\t', out);
		if (row->thread)
			print_field(row->thread, out);
		else
			fprintf(out, "%" PRIu32, row->thread_ordinal);
		fprintf(out,
			"\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
			"\t%" PRIu64 "\t%s\t%" PRIu64 "\t%" PRIu64 "\n",
			profile_metric_word(d->metric), d->n, d->count, d->min,
			d->max, d->sum, u128_to_text(d->sumsq, sumsq),
			d->induced_thread, d->induced_external);
	}
}

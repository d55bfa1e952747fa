/*
 * report_tuples.c - `trms report --tuples`: every tuple of the report as
 * tab-separated values (see report_output.h).
 */
#include <inttypes.h>
#include <stdio.h>

#include "format/profile_format.h"
#include "report_form.h"
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

/* Every tuple of the report (its rows) as tab-separated values under a
 * header line (the format the help below states). */
static int print_tuples(const struct report_form_input *in)
{
	const struct report *r = in->r;
	FILE *out = stdout;
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
	return 0;
}

const struct report_form report_form_tuples = {
	.option = "tuples", .print = print_tuples, .raw_names = true,
	.help =
		"every tuple as tab-separated values, one per line, under a "
		"header line that names the columns: region thread metric n "
		"count min max sum sumsq induced_thread induced_external; "
		"sorted by region, thread, metric (trms first) and n. "
		"thread is the thread's name if it has one, else its "
		"ordinal (0 is the main thread); tabs, newlines and "
		"backslashes in names are written as \\t, \\n, \\\\",
};

/*
 * report_form.c - what the forms of trms report share (report_form.h),
 * and the table, the form printed when no other is asked for.
 */
#include "report_form.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "output_file.h"
#include "report_library.h"
#include "report_output.h"
#include "report_selection.h"

int report_form_failed(const char *message, int status)
{
	fprintf(stderr, "trms report: %s\n", message);
	return status;
}

int report_form_write_out(const struct report_form_input *in, void *data,
			  size_t len)
{
	char err[512];
	int rc = output_file_write(in->out, data, len, err, sizeof(err));

	free(data);
	return rc ? report_form_failed(err, 1) : 0;
}

static int print_table(const struct report_form_input *in)
{
	const struct report *r = in->r;
	uint64_t samples = in->view->root.total_samples;

	if (r->n_regions)
		report_print_table(r, stdout, in->colour);
	else if (r->n_rows && in->filter)
		printf("no region matches '%s'\n", in->filter);
	if (samples) {
		printf("%s%" PRIu64 " call-stack samples; the functions where "
		       "most ended (trms report --tree for the paths):\n",
		       r->n_regions ? "\n" : "", samples);
		view_print_hot(in->view, stdout, 15);
	} else if (!r->n_rows) {
		printf("no regions and no call-stack samples in this "
		       "profile\n");
	}
	report_print_selection(in->docs, in->n_docs, stdout);
	report_print_memory(in->docs, in->n_docs, stdout);
	report_print_library(&r->library, stdout);
	return 0;
}

const struct report_form report_form_table = {
	.print = print_table, .selects = true, .tree = true
};

/*
 * report_form.h - the forms `trms report` prints in (the table, --json,
 * --tree, --pprof OUT, ...).  Each form is one struct report_form, defined
 * in the file that prints it, and one line of cmd_report.c's table, which
 * makes its options, its --help paragraph and the man page from it.
 */
#ifndef TRMS_REPORT_FORM_H
#define TRMS_REPORT_FORM_H

#include <stdbool.h>
#include <stddef.h>

#include "cct_view.h"
#include "report_model.h"

/* What a form prints from. */
struct report_form_input {
	struct report *r;
	struct profile_doc *docs;
	size_t n_docs;
	char *const *paths;
	const struct view *view; /* the sampled trees, if the form asks */
	const char *out;	 /* the form's argument (OUT), or NULL */
	const struct report_options *opt;
	const char *filter; /* the regions' filter, or NULL */
	bool colour;	    /* the terminal takes colours */
	double min_percent; /* --min-percent */
};

struct report_form {
	const char *option; /* its option, without "--"; NULL: the table */
	const char *arg;    /* its argument's name, or NULL */
	const char *help;   /* its --help paragraph */
	/* Print it.  @return the exit status. */
	int (*print)(const struct report_form_input *in);
	bool windows;	/* a directory stands for the windows in it */
	bool raw_names; /* C++ names as the linker knows them */
	bool selects;	/* the regions sorted, filtered and limited */
	bool tree;	/* the sampled trees merged into a view */
};

/* The forms, each defined beside its printer. */
extern const struct report_form report_form_table, report_form_json,
	report_form_html, report_form_tuples, report_form_tree,
	report_form_folded, report_form_prometheus, report_form_openmetrics,
	report_form_callgrind, report_form_windows;

/* The view if it has samples, or NULL (JSON and HTML leave the tree
 * out then). */
static inline const struct view *
report_form_sampled(const struct report_form_input *in)
{
	return in->view && in->view->root.total_samples ? in->view : NULL;
}

/* The form's file OUT, @len bytes at @data (freed): put in place whole.
 * @return the exit status. */
int report_form_write_out(const struct report_form_input *in, void *data,
			  size_t len);

/* Say @message as trms report's; @return @status. */
int report_form_failed(const char *message, int status);

#endif

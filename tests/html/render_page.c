/*
 * render_page.c - `render-page JSON OUT.html`: the page of `trms report
 * --html` (tools/report/report_html.c and its template) around a JSON document
 * written by hand, so that the page can be checked on reports that no
 * profile makes easily: every kind of region, odd names, thread nodes.
 *
 * report_write_html gets its JSON from report_print_json; this program
 * links report_html.c with the report_print_json below, which copies the
 * file JSON instead of printing a report.  Exit status: 0, or 1 with
 * report_write_html's message.
 */
#include <stdio.h>
#include <stdlib.h>

#include "report_output.h"

static const char *json_path;

void report_print_json(const struct report *r, const struct view *tree,
		       char *const *profiles, size_t n_profiles, FILE *out)
{
	FILE *in = fopen(json_path, "r");
	char buf[65536];
	size_t n;

	(void)r;
	(void)tree;
	(void)profiles;
	(void)n_profiles;
	if (!in) {
		perror(json_path);
		exit(2);
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
}

int main(int argc, char **argv)
{
	struct report r = { 0 };
	char err[512];

	if (argc != 3) {
		fprintf(stderr, "usage: render-page JSON OUT.html\n");
		return 2;
	}
	json_path = argv[1];
	if (report_write_html(&r, NULL, NULL, 0, argv[2], err, sizeof(err))) {
		fprintf(stderr, "render-page: %s\n", err);
		return 1;
	}
	return 0;
}

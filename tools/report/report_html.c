/*
 * report_html.c - `trms report --html OUT`: the report as one
 * self-contained page.  The page itself (report_html/report.html, .css and
 * .js, compiled in by report_html/embed.py) draws every plot in the
 * browser from the report's JSON, the same document `--json` prints,
 * which is written into it here.
 */
#define _GNU_SOURCE
#include "report_output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output_file.h"
#include "report_form.h"
#include "report_html/page.h"
#include "xalloc.h"

/* The JSON goes inside a <script type="application/json"> element, which
 * the HTML parser ends at the first "</script" and treats "<!--" in
 * specially.  In JSON text "<" can only occur within strings, where
 * "\u003c" means the same character: so a region or function named
 * "</script>" stays a name. */
static void put_json_in_script(FILE *out, const char *json, size_t len)
{
	const char *end = json + len;

	while (json < end) {
		const char *lt = memchr(json, '<', (size_t)(end - json));
		size_t run = (size_t)((lt ? lt : end) - json);
		fwrite(json, 1, run, out);
		json += run;
		if (lt) {
			fputs("\\u003c", out);
			json++;
		}
	}
}

/* The page: its head, the report as JSON, its tail; in memory. */
static char *page_text(const struct report *r, const struct view *tree,
		       char *const *profiles, size_t n_profiles, size_t *len)
{
	char *json = NULL, *page = NULL;
	size_t json_len = 0;
	FILE *mem = open_memstream(&json, &json_len);

	if (!mem)
		out_of_memory();
	report_print_json(r, tree, profiles, n_profiles, mem);
	if (fclose(mem))
		out_of_memory();
	mem = open_memstream(&page, len);
	if (!mem)
		out_of_memory();
	fwrite(report_page_head, 1, report_page_head_size, mem);
	put_json_in_script(mem, json, json_len);
	fwrite(report_page_tail, 1, report_page_tail_size, mem);
	if (fclose(mem))
		out_of_memory();
	free(json);
	return page;
}

int report_write_html(const struct report *r, const struct view *tree,
		      char *const *profiles, size_t n_profiles,
		      const char *path, char *err, size_t errlen)
{
	size_t len;
	char *page = page_text(r, tree, profiles, n_profiles, &len);
	int rc = output_file_write(path, page, len, err, errlen);

	free(page);
	return rc;
}

static int write_html(const struct report_form_input *in)
{
	char err[512];

	if (report_write_html(in->r, report_form_sampled(in), in->paths,
			      in->n_docs, in->out, err, sizeof(err)))
		return report_form_failed(err, 1);
	return 0;
}

const struct report_form report_form_html = {
	.option = "html", .arg = "OUT", .print = write_html, .selects = true,
	.tree = true,
	.help =
		"the report as one self-contained HTML page written to OUT "
		"(no network access needed to view it): per region, cost "
		"against input size with the fitted curve, the number of "
		"activations per size, cost / g(n), trms against rms; and "
		"the sampled calling context tree as an icicle.  The "
		"options above apply",
};

/*
 * report_html.c - `trms report --html OUT`: the report as one
 * self-contained page.  The page itself (report_html/report.html, .css and
 * .js, compiled in by report_html/embed.py) draws every plot in the
 * browser from the report's JSON, the same document `--json` prints,
 * which is written into it here.
 */
#define _GNU_SOURCE
#include "report_output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "report_html/page.h"

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

/* The report as JSON, in memory: 0, or an errno value. */
static int report_json_text(const struct report *r, const struct view *tree,
			    char *const *profiles, size_t n_profiles,
			    char **json, size_t *len)
{
	FILE *mem = open_memstream(json, len);

	if (!mem)
		return errno ? errno : ENOMEM;
	report_print_json(r, tree, profiles, n_profiles, mem);
	int failed = ferror(mem);
	if (fclose(mem) || failed) {
		free(*json);
		*json = NULL;
		return ENOMEM;
	}
	return 0;
}

int report_write_html(const struct report *r, const struct view *tree,
		      char *const *profiles, size_t n_profiles,
		      const char *path, char *err, size_t errlen)
{
	char *json = NULL;
	size_t json_len = 0;
	struct atomic_file f;
	FILE *out;
	int saved;

	saved = report_json_text(r, tree, profiles, n_profiles, &json,
				 &json_len);
	if (saved)
		goto fail;
	if (atomic_file_open(&f, path, err, errlen)) {
		free(json);
		return 1;
	}
	if (!(out = fdopen(f.fd, "w"))) {
		saved = errno;
		close(f.fd);
		atomic_file_abort(&f);
		goto fail;
	}
	errno = 0;
	fwrite(report_page_head, 1, report_page_head_size, out);
	put_json_in_script(out, json, json_len);
	fwrite(report_page_tail, 1, report_page_tail_size, out);
	/* fclose flushes: the error of a write that failed late is its. */
	saved = ferror(out) ? (errno ? errno : EIO) : 0;
	if (fclose(out) && !saved)
		saved = errno ? errno : EIO;
	if (saved)
		atomic_file_abort(&f);
	else
		saved = atomic_file_commit(&f);
	if (!saved) {
		free(json);
		return 0;
	}
fail:
	free(json);
	snprintf(err, errlen, "cannot write %s: %s", path, strerror(saved));
	return 1;
}

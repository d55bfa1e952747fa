/*
 * profile_read.c - the profile format's reader: the file as a sequence of
 * lines (the first line, how lines end, the end line's promise kept),
 * each checked and added to the document by profile_doc_lines.c.
 */
#define _GNU_SOURCE
#include "format/profile_doc_lines.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Lines longer than this are refused: the library writes none longer
 * than a few kilobytes (a module path, a symbol name), and a file whose
 * line never ends (/dev/zero) must not take all memory. */
#define LINE_MAX_BYTES ((size_t)1 << 20)

enum line_end {
	LINE_NEWLINE,
	LINE_EOF, /* nothing read */
	LINE_CUT, /* the file ends in the line */
	LINE_TOO_LONG,
	LINE_NUL,
	LINE_READ_ERROR,
	LINE_NO_MEMORY,
};

/* Make room in *@line for a byte at @len and the NUL after it.
 * @return false if there is no memory for it. */
static bool line_room(char **line, size_t *cap, size_t len)
{
	if (len + 1 < *cap)
		return true;
	size_t more = *cap ? 2 * *cap : 256;
	char *bigger = realloc(*line, more);
	if (!bigger)
		return false;
	*line = bigger;
	*cap = more;
	return true;
}

/* The next line of @f, without its newline, in *@line (grown as needed);
 * if it is refused, as much of it as was read. */
static enum line_end next_line(FILE *f, char **line, size_t *cap)
{
	size_t len = 0;
	int c;

	if (!line_room(line, cap, 0))
		return LINE_NO_MEMORY;
	while ((c = getc_unlocked(f)) != EOF && c != '\n' && c != '\0') {
		if (len == LINE_MAX_BYTES)
			break;
		if (!line_room(line, cap, len)) {
			(*line)[len] = '\0';
			return LINE_NO_MEMORY;
		}
		(*line)[len++] = (char)c;
	}
	(*line)[len] = '\0';
	if (c == '\n')
		return LINE_NEWLINE;
	if (c == '\0')
		return LINE_NUL;
	if (c != EOF)
		return LINE_TOO_LONG;
	if (ferror(f))
		return LINE_READ_ERROR;
	return len ? LINE_CUT : LINE_EOF;
}

/* The first line: the magic and the version. */
static int read_header(struct reading *r, const char *line)
{
	const char *version = line + PROFILE_MAGIC_LEN;
	uint64_t v;

	if (strncmp(line, PROFILE_MAGIC, PROFILE_MAGIC_LEN) || !*version ||
	    version[strspn(version, "0123456789")])
		return bad(r, "not a trms profile (the first line should be "
			      "'%s%d')",
			   PROFILE_MAGIC, PROFILE_FORMAT_OLDEST);
	if (!profile_parse_u64(version, &v) || v < PROFILE_FORMAT_OLDEST ||
	    v > PROFILE_FORMAT_VERSION)
		return bad(r, "profile format version %.20s; this trms reads "
			      "versions %d to %d",
			   version, PROFILE_FORMAT_OLDEST,
			   PROFILE_FORMAT_VERSION);
	r->version = (unsigned)v;
	return 0;
}

/* Whether the start of a first line that could not be read whole may be
 * the start of a profile's. */
static bool could_be_header(const char *start)
{
	size_t len = strlen(start);

	return len && !strncmp(start, PROFILE_MAGIC,
			       len < PROFILE_MAGIC_LEN ? len
						       : PROFILE_MAGIC_LEN);
}

/* What is wrong with the way the last line read ended (@end, with @error
 * the errno of a read error): 0 if nothing. */
static int check_last_line(struct reading *r, enum line_end end, int error,
			   const char *line)
{
	r->line++;
	if (r->line == 1 && (end == LINE_CUT || end == LINE_TOO_LONG ||
			     end == LINE_NUL) && !could_be_header(line))
		return read_header(r, line);
	switch (end) {
	case LINE_NEWLINE:
	case LINE_EOF:
		break;
	case LINE_CUT:
		return bad(r, "truncated line (no newline at the end)");
	case LINE_TOO_LONG:
		return bad(r, "line longer than %zu bytes", LINE_MAX_BYTES);
	case LINE_NUL:
		return bad(r, "NUL byte in the line");
	case LINE_READ_ERROR:
		return reading_fail(r, -error, "read error: %s",
				    strerror(error));
	case LINE_NO_MEMORY:
		return reading_no_memory(r);
	}
	if (r->line == 1) {
		r->line = 0;
		return bad(r, "empty file, not a trms profile");
	}
	if (!r->ended)
		return bad(r, "truncated profile: no end line");
	return 0;
}

/* Every line of @f into @doc. */
static int read_lines(struct reading *r, FILE *f, struct profile_doc *doc)
{
	char *line = NULL;
	size_t cap = 0;
	enum line_end end = LINE_EOF;
	int rc = 0;

	while (!rc && (end = next_line(f, &line, &cap)) == LINE_NEWLINE) {
		r->line++;
		rc = r->line == 1 ? read_header(r, line)
				  : profile_read_line(r, doc, line);
	}
	if (!rc)
		rc = check_last_line(r, end, errno, line);
	free(line);
	return rc;
}

int profile_read(const char *path, struct profile_doc *doc, char *err,
		 size_t errlen)
{
	struct reading r = { .path = path, .err = err, .errlen = errlen };
	struct stat st;
	int rc;

	memset(doc, 0, sizeof(*doc));
	if (!(doc->path = strdup(path)))
		return reading_no_memory(&r);
	FILE *f = fopen(path, "r");
	if (!f)
		return reading_fail(&r, -errno, "%s", strerror(errno));
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode))
		rc = reading_fail(&r, -EISDIR, "a directory, not a profile");
	else
		rc = read_lines(&r, f, doc);
	/* Sorted, for the lookups; one name per address. */
	if (!rc && doc->n_symbols && profile_add_symbols(doc, NULL, 0))
		rc = reading_no_memory(&r);
	free(r.nodes);
	fclose(f);
	return rc;
}


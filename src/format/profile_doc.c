/*
 * profile_doc.c - the profile format's reader: the file as a sequence of
 * lines, and the document read (see profile_doc.h).  What each line says
 * is checked in profile_doc_lines.c.
 */
#define _GNU_SOURCE
#include "profile_doc_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int reading_fail(struct reading *r, int rc, const char *fmt, ...)
{
	va_list ap;
	int n = r->line ? snprintf(r->err, r->errlen, "%s:%zu: ", r->path,
				   r->line)
			: snprintf(r->err, r->errlen, "%s: ", r->path);

	if (n < 0 || (size_t)n >= r->errlen)
		return rc;
	va_start(ap, fmt);
	vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return rc;
}

int reading_no_memory(struct reading *r)
{
	return reading_fail(r, -ENOMEM, "out of memory");
}

static int compare_symbols(const void *a, const void *b)
{
	const struct profile_symbol *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

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
	if (!rc && doc->n_symbols)
		qsort(doc->symbols, doc->n_symbols, sizeof(*doc->symbols),
		      compare_symbols);
	free(r.nodes);
	fclose(f);
	return rc;
}

void profile_doc_free(struct profile_doc *doc)
{
	for (size_t i = 0; i < doc->n_meta; i++) {
		free(doc->meta[i].key);
		free(doc->meta[i].value);
	}
	for (size_t i = 0; i < doc->n_regions; i++) {
		free(doc->regions[i].name);
		free(doc->regions[i].object);
	}
	for (size_t i = 0; i < doc->n_threads; i++)
		free(doc->threads[i].name);
	free(doc->meta);
	free(doc->regions);
	free(doc->threads);
	free(doc->tuples);
	free(doc->activations);
	for (size_t i = 0; i < doc->n_modules; i++)
		free(doc->modules[i].path);
	for (size_t i = 0; i < doc->n_symbols; i++)
		free(doc->symbols[i].name);
	free(doc->modules);
	free(doc->symbols);
	free(doc->cct);
	free(doc->path);
	if (doc->free_lookups)
		doc->free_lookups(doc->lookups);
	memset(doc, 0, sizeof(*doc));
}

const char *profile_meta(const struct profile_doc *doc, const char *key)
{
	for (size_t i = 0; i < doc->n_meta; i++)
		if (!strcmp(doc->meta[i].key, key))
			return doc->meta[i].value;
	return NULL;
}

struct profile_region *profile_region(const struct profile_doc *doc,
				      uint32_t id)
{
	if (id < doc->n_regions && doc->regions[id].id == id)
		return &doc->regions[id];
	for (size_t i = 0; i < doc->n_regions; i++)
		if (doc->regions[i].id == id)
			return &doc->regions[i];
	return NULL;
}

const char *profile_region_name(const struct profile_doc *doc, uint32_t id)
{
	const struct profile_region *r = profile_region(doc, id);

	return r ? r->name : NULL;
}

const struct profile_module *profile_module(const struct profile_doc *doc,
					    uint32_t id)
{
	if (id < doc->n_modules && doc->modules[id].id == id)
		return &doc->modules[id];
	for (size_t i = 0; i < doc->n_modules; i++)
		if (doc->modules[i].id == id)
			return &doc->modules[i];
	return NULL;
}

const struct profile_thread *profile_thread(const struct profile_doc *doc,
					    uint32_t ordinal)
{
	if (ordinal < doc->n_threads && doc->threads[ordinal].ordinal == ordinal)
		return &doc->threads[ordinal];
	for (size_t i = 0; i < doc->n_threads; i++)
		if (doc->threads[i].ordinal == ordinal)
			return &doc->threads[i];
	return NULL;
}

const struct profile_symbol *profile_find_symbol(
	const struct profile_doc *doc, uint32_t module, uint64_t offset)
{
	struct profile_symbol key = { module, offset, NULL, 0 };

	if (!doc->n_symbols)
		return NULL;
	return bsearch(&key, doc->symbols, doc->n_symbols,
		       sizeof(*doc->symbols), compare_symbols);
}

int profile_add_symbols(struct profile_doc *doc,
			struct profile_symbol *symbols, size_t n)
{
	size_t kept = doc->n_symbols;

	if (n) {
		struct profile_symbol *all = realloc(
			doc->symbols, (kept + n) * sizeof(*doc->symbols));
		if (!all)
			return -ENOMEM;
		doc->symbols = all;
	}
	for (size_t i = 0; i < n; i++) {
		if (profile_find_symbol(doc, symbols[i].module,
					symbols[i].offset))
			free(symbols[i].name);
		else
			doc->symbols[kept++] = symbols[i];
	}
	if (kept)
		qsort(doc->symbols, kept, sizeof(*doc->symbols),
		      compare_symbols);
	/* One name per address: the first of those met twice. */
	doc->n_symbols = 0;
	for (size_t i = 0; i < kept; i++) {
		struct profile_symbol *s = &doc->symbols[i];
		if (doc->n_symbols &&
		    !compare_symbols(&doc->symbols[doc->n_symbols - 1], s))
			free(s->name);
		else
			doc->symbols[doc->n_symbols++] = *s;
	}
	return 0;
}

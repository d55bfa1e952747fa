/*
 * profile_reader.c - reading and checking profile files (see
 * profile_reader.h).
 */
#define _GNU_SOURCE
#include "profile_reader.h"
#include "demangle.h"

#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "elf_symbols.h"
#include "profile_writer.h"
#include "xalloc.h"

#define APPEND(arr, n, item)                                               \
	do {                                                               \
		if (((n) & ((n)-1)) == 0)                                  \
			(arr) = xrealloc((arr), 2 * ((n) + 1) * sizeof(*(arr))); \
		(arr)[(n)++] = (item);                                     \
	} while (0)

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int profile_unescape(char *s)
{
	char *out = s;

	for (char *p = s; *p; p++) {
		if (*p != '%') {
			*out++ = *p;
			continue;
		}
		int hi = hexval(p[1]), lo = hi < 0 ? -1 : hexval(p[2]);
		if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
			return -1;
		*out++ = (char)(hi << 4 | lo);
		p += 2;
	}
	*out = '\0';
	return 0;
}

static bool parse_u128(const char *s, unsigned __int128 *out)
{
	unsigned __int128 v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		unsigned __int128 next = v * 10 + (unsigned)(*s - '0');
		if (next / 10 != v)
			return false; /* overflow */
		v = next;
	}
	*out = v;
	return true;
}

static bool parse_u64(const char *s, uint64_t *out)
{
	unsigned __int128 v;

	if (!parse_u128(s, &v) || v > UINT64_MAX)
		return false;
	*out = (uint64_t)v;
	return true;
}

bool profile_parse_u64(const char *s, uint64_t *out)
{
	return parse_u64(s, out);
}

static bool parse_u32(const char *s, uint32_t *out)
{
	uint64_t v;

	if (!parse_u64(s, &v) || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* The cct nodes read so far, by thread and node number: open
 * addressing, so that any numbers a file uses cost no more than its
 * lines. */
struct node_slot {
	uint32_t thread, node;
	unsigned depth; /* 1 at the top of the tree; 0: an empty slot */
};

struct reading {
	const char *path;
	size_t line;
	char *err;
	size_t errlen;
	struct node_slot *nodes;
	size_t n_nodes, cap_nodes; /* cap_nodes: 0 or a power of two */
};

static int bad(struct reading *r, const char *fmt, ...)
{
	va_list ap;
	int n = r->line ? snprintf(r->err, r->errlen, "%s:%zu: ", r->path,
				   r->line)
			: snprintf(r->err, r->errlen, "%s: ", r->path);

	if (n < 0 || (size_t)n >= r->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

#define MAX_FIELDS 16

static size_t split(char *line, char **fields)
{
	size_t n = 0;
	char *save = NULL;

	for (char *tok = strtok_r(line, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		if (n == MAX_FIELDS)
			return MAX_FIELDS + 1;
		fields[n++] = tok;
	}
	return n;
}

static int read_tuple(struct reading *r, struct profile_doc *doc,
		      char **f, size_t n)
{
	struct profile_tuple t = { 0 };
	struct tuple_data *d = &t.data;
	uint64_t *u64s[] = { &d->n, &d->count, &d->min, &d->max, &d->sum };

	if (n != 12)
		return bad(r, "a tuple line has 12 fields, this one has %zu", n);
	if (!parse_u32(f[1], &d->region))
		return bad(r, "bad region id '%s'", f[1]);
	if (!profile_region_name(doc, d->region))
		return bad(r, "tuple for undeclared region %u", d->region);
	if (!parse_u32(f[2], &t.thread))
		return bad(r, "bad thread ordinal '%s'", f[2]);
	if (!profile_thread(doc, t.thread))
		return bad(r, "tuple for undeclared thread %u", t.thread);
	if (!strcmp(f[3], "trms"))
		d->metric = METRIC_TRMS;
	else if (!strcmp(f[3], "rms"))
		d->metric = METRIC_RMS;
	else
		return bad(r, "unknown metric '%s' (expected trms or rms)", f[3]);
	for (size_t i = 0; i < 5; i++)
		if (!parse_u64(f[4 + i], u64s[i]))
			return bad(r, "bad number '%s'", f[4 + i]);
	if (!parse_u128(f[9], &d->sumsq))
		return bad(r, "bad number '%s'", f[9]);
	if (!parse_u64(f[10], &d->induced_thread) ||
	    !parse_u64(f[11], &d->induced_external))
		return bad(r, "bad induced count");
	if (d->count == 0)
		return bad(r, "tuple with count 0");
	if (d->min > d->max)
		return bad(r, "tuple with min %llu above max %llu",
			   (unsigned long long)d->min,
			   (unsigned long long)d->max);
	APPEND(doc->tuples, doc->n_tuples, t);
	return 0;
}

/* "context=3/7/2": region ids, outermost first. */
static int read_context(struct reading *r, struct profile_thread *th,
			char *value)
{
	char *save = NULL;

	for (char *id = strtok_r(value, "/", &save); id;
	     id = strtok_r(NULL, "/", &save)) {
		if (th->context_depth == PROFILE_CONTEXT_MAX)
			return bad(r, "creation context deeper than %d",
				   PROFILE_CONTEXT_MAX);
		if (!parse_u32(id, &th->context[th->context_depth]))
			return bad(r, "bad region id '%s' in context", id);
		th->context_depth++;
	}
	return 0;
}

/* One key=value field of a thread line; unknown keys are ignored. */
static int read_thread_field(struct reading *r, struct profile_thread *th,
			     char *field)
{
#define COUNTER(name) #name, offsetof(struct profile_thread, name)
	static const struct {
		const char *key;
		size_t offset;
		bool sampling; /* written only with sampling on */
	} counters[] = {
		{ COUNTER(in_bytes), false },  { COUNTER(in_calls), false },
		{ COUNTER(out_bytes), false }, { COUNTER(out_calls), false },
		{ COUNTER(samples), true },    { COUNTER(cpu_ns), true },
		{ COUNTER(library_samples), true },
		{ COUNTER(library_ns), false },
	};
#undef COUNTER
	char *value = strchr(field, '=');

	if (!value)
		return bad(r, "thread field '%s' is not key=value", field);
	*value++ = '\0';
	if (!strcmp(field, "name")) {
		if (profile_unescape(value) || !*value)
			return bad(r, "bad thread name");
		free(th->name);
		th->name = xstrdup(value);
	} else if (!strcmp(field, "creator")) {
		if (!parse_u32(value, &th->creator))
			return bad(r, "bad creator '%s'", value);
		th->has_creator = true;
	} else if (!strcmp(field, "context")) {
		return read_context(r, th, value);
	} else {
		for (size_t k = 0; k < sizeof(counters) / sizeof(counters[0]); k++) {
			if (strcmp(field, counters[k].key))
				continue;
			if (!parse_u64(value, (uint64_t *)((char *)th +
							   counters[k].offset)))
				return bad(r, "bad %s '%s'", field, value);
			th->sampled |= counters[k].sampling;
		}
	}
	return 0;
}

/* thread <ordinal> [key=value...] */
static int read_thread(struct reading *r, struct profile_doc *doc, char **f,
		       size_t n)
{
	struct profile_thread th = { 0 };

	if (n < 2 || n > MAX_FIELDS)
		return bad(r, "malformed thread line");
	if (!parse_u32(f[1], &th.ordinal))
		return bad(r, "bad thread ordinal '%s'", f[1]);
	if (profile_thread(doc, th.ordinal))
		return bad(r, "thread %u declared twice", th.ordinal);
	for (size_t i = 2; i < n; i++) {
		if (read_thread_field(r, &th, f[i])) {
			free(th.name);
			return -1;
		}
	}
	APPEND(doc->threads, doc->n_threads, th);
	return 0;
}

static int read_numbers(struct reading *r, char **f, size_t from, size_t to,
			uint64_t *const *out)
{
	for (size_t i = from; i < to; i++)
		if (!parse_u64(f[i], out[i - from]))
			return bad(r, "bad number '%s'", f[i]);
	return 0;
}

/* module <id> <start> <end> <base> loaded|unloaded <path> */
static int read_module(struct reading *r, struct profile_doc *doc, char **f,
		       size_t n)
{
	struct profile_module m = { 0 };
	uint64_t id;
	uint64_t *const numbers[] = { &id, &m.start, &m.end, &m.base };

	if (n != 7)
		return bad(r, "a module line has 7 fields");
	if (read_numbers(r, f, 1, 5, numbers))
		return -1;
	if (id > UINT32_MAX)
		return bad(r, "bad module id");
	m.id = (uint32_t)id;
	if (!strcmp(f[5], "unloaded"))
		m.unloaded = true;
	else if (strcmp(f[5], "loaded"))
		return bad(r, "expected loaded or unloaded, not '%s'", f[5]);
	if (profile_unescape(f[6]))
		return bad(r, "bad escape in module path");
	m.path = xstrdup(f[6]);
	APPEND(doc->modules, doc->n_modules, m);
	return 0;
}

/* symbol <module> <offset> <name> <offset in the function> */
static int read_symbol(struct reading *r, struct profile_doc *doc, char **f,
		       size_t n)
{
	struct profile_symbol s = { 0 };
	uint64_t module = 0;
	uint64_t *const numbers[] = { &module, &s.offset };

	if (n != 5)
		return bad(r, "a symbol line has 5 fields");
	if (read_numbers(r, f, 1, 3, numbers) ||
	    !parse_u64(f[4], &s.name_offset))
		return bad(r, "bad number in symbol line");
	if (module > UINT32_MAX || !profile_module(doc, (uint32_t)module))
		return bad(r, "symbol of undeclared module %s", f[1]);
	s.module = (uint32_t)module;
	if (profile_unescape(f[3]))
		return bad(r, "bad escape in symbol name");
	s.name = xstrdup(f[3]);
	APPEND(doc->symbols, doc->n_symbols, s);
	return 0;
}

/* The slot of node @node of thread @thread in r->nodes (which has room). */
static struct node_slot *node_slot(const struct reading *r, uint32_t thread,
				   uint32_t node)
{
	uint64_t h = ((uint64_t)thread << 32 | node) * 0x9e3779b97f4a7c15u;
	size_t mask = r->cap_nodes - 1, i = (size_t)(h >> 32) & mask;

	while (r->nodes[i].depth &&
	       (r->nodes[i].thread != thread || r->nodes[i].node != node))
		i = (i + 1) & mask;
	return &r->nodes[i];
}

/* Make room for one more node: at most half the slots are taken. */
static void grow_nodes(struct reading *r)
{
	struct node_slot *old = r->nodes;
	size_t old_cap = r->cap_nodes;

	if (2 * (r->n_nodes + 1) <= r->cap_nodes)
		return;
	r->cap_nodes = old_cap ? 2 * old_cap : 64;
	r->nodes = xcalloc(r->cap_nodes, sizeof(*r->nodes));
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].depth)
			*node_slot(r, old[i].thread, old[i].node) = old[i];
	free(old);
}

/* Where @c sits in its thread's tree: its node number is new, its parent
 * came before it, and the tree is no deeper than the report's recursive
 * walks can go. */
static int place_cct(struct reading *r, const struct profile_cct *c)
{
	unsigned depth = 1;

	grow_nodes(r);
	struct node_slot *slot = node_slot(r, c->thread, c->node);
	if (slot->depth)
		return bad(r, "cct node %u of thread %u declared twice",
			   c->node, c->thread);
	if (c->has_parent) {
		const struct node_slot *up =
			node_slot(r, c->thread, c->parent);
		if (!up->depth)
			return bad(r, "cct node %u before its parent %u",
				   c->node, c->parent);
		depth = up->depth + 1;
		if (depth > PROFILE_CCT_DEPTH_MAX)
			return bad(r, "cct tree deeper than %d",
				   PROFILE_CCT_DEPTH_MAX);
	}
	*slot = (struct node_slot){ c->thread, c->node, depth };
	r->n_nodes++;
	return 0;
}

/* cct <thread> <node> <parent|-> frame|region|thread <a> <b> <samples>
 *     <work> <idleness> <overhead> <blocked> */
static int read_cct(struct reading *r, struct profile_doc *doc, char **f,
		    size_t n)
{
	struct profile_cct c = { 0 };
	uint64_t thread = 0, node = 0, parent = 0;
	uint64_t *const ids[] = { &thread, &node };
	uint64_t *const numbers[] = { &c.a, &c.b, &c.samples, &c.work,
				      &c.idleness_millionths, &c.overhead,
				      &c.blocked };

	if (n != 12)
		return bad(r, "a cct line has 12 fields, this one has %zu", n);
	if (read_numbers(r, f, 1, 3, ids) || read_numbers(r, f, 5, 12, numbers))
		return -1;
	if (thread > UINT32_MAX || node > UINT32_MAX)
		return bad(r, "bad thread or node number");
	c.thread = (uint32_t)thread;
	c.node = (uint32_t)node;
	if (!profile_thread(doc, c.thread))
		return bad(r, "cct of undeclared thread %u", c.thread);
	if (strcmp(f[3], "-")) {
		if (!parse_u64(f[3], &parent) || parent > UINT32_MAX)
			return bad(r, "bad parent '%s'", f[3]);
		c.has_parent = true;
		c.parent = (uint32_t)parent;
	}
	if (!strcmp(f[4], "frame"))
		c.kind = PROFILE_CCT_FRAME;
	else if (!strcmp(f[4], "region"))
		c.kind = PROFILE_CCT_REGION;
	else if (!strcmp(f[4], "thread"))
		c.kind = PROFILE_CCT_THREAD;
	else
		return bad(r, "unknown cct node kind '%s'", f[4]);
	if (c.kind == PROFILE_CCT_REGION && c.a <= UINT32_MAX &&
	    !profile_region_name(doc, (uint32_t)c.a))
		return bad(r, "cct node of undeclared region %llu",
			   (unsigned long long)c.a);
	if (place_cct(r, &c))
		return -1;
	APPEND(doc->cct, doc->n_cct, c);
	return 0;
}

static int read_line(struct reading *r, struct profile_doc *doc, char *line,
		     bool *ended)
{
	char *f[MAX_FIELDS];
	size_t n;

	if (*ended)
		return bad(r, "text after the end line");
	if (!strncmp(line, "meta ", 5)) {
		char *key = line + 5;
		char *value = strchr(key, ' ');
		if (value)
			*value++ = '\0';
		if (!*key)
			return bad(r, "meta line without a key");
		struct profile_meta m = { xstrdup(key),
					  xstrdup(value ? value : "") };
		APPEND(doc->meta, doc->n_meta, m);
		return 0;
	}
	n = split(line, f);
	if (n == 0)
		return bad(r, "empty line");
	if (!strcmp(f[0], "region")) {
		struct profile_region reg;
		if (n != 3)
			return bad(r, "a region line has 3 fields");
		if (!parse_u32(f[1], &reg.id))
			return bad(r, "bad region id '%s'", f[1]);
		if (profile_region_name(doc, reg.id))
			return bad(r, "region %u declared twice", reg.id);
		if (profile_unescape(f[2]))
			return bad(r, "bad escape in region name");
		reg.name = xstrdup(f[2]);
		APPEND(doc->regions, doc->n_regions, reg);
		return 0;
	}
	if (!strcmp(f[0], "thread"))
		return read_thread(r, doc, f, n);
	if (!strcmp(f[0], "tuple"))
		return read_tuple(r, doc, f, n);
	if (!strcmp(f[0], "module"))
		return read_module(r, doc, f, n);
	if (!strcmp(f[0], "symbol"))
		return read_symbol(r, doc, f, n);
	if (!strcmp(f[0], "cct"))
		return read_cct(r, doc, f, n);
	if (!strcmp(f[0], "end")) {
		uint64_t count;
		if (n != 2 || !parse_u64(f[1], &count))
			return bad(r, "malformed end line");
		if (count != doc->n_tuples)
			return bad(r,
				   "end line promises %llu tuples, the file "
				   "has %zu",
				   (unsigned long long)count, doc->n_tuples);
		*ended = true;
		return 0;
	}
	return bad(r, "unknown line type '%.32s'", f[0]);
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
};

/* The next line of @f, without its newline, in *@line (grown as needed);
 * if it is refused, as much of it as was read. */
static enum line_end next_line(FILE *f, char **line, size_t *cap)
{
	size_t len = 0;
	int c;

	if (!*cap) {
		*cap = 256;
		*line = xrealloc(NULL, *cap);
	}
	while ((c = getc_unlocked(f)) != EOF && c != '\n' && c != '\0') {
		if (len == LINE_MAX_BYTES)
			break;
		if (len + 1 == *cap) {
			*cap *= 2;
			*line = xrealloc(*line, *cap);
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

static const char header[] = "trms-profile ";
#define HEADER_LEN (sizeof(header) - 1)

/* The first line: "trms-profile <version>". */
static int read_header(struct reading *r, const char *line)
{
	const char *version = line + HEADER_LEN;
	uint64_t v;

	if (strncmp(line, header, HEADER_LEN) || !*version ||
	    version[strspn(version, "0123456789")])
		return bad(r, "not a trms profile (the first line should be "
			      "'trms-profile %d')",
			   PROFILE_FORMAT_VERSION);
	if (!parse_u64(version, &v) || v != PROFILE_FORMAT_VERSION)
		return bad(r, "profile format version %.20s; this trms reads "
			      "version %d",
			   version, PROFILE_FORMAT_VERSION);
	return 0;
}

/* Whether the start of a first line that could not be read whole may be
 * the start of a profile's. */
static bool could_be_header(const char *start)
{
	size_t len = strlen(start);

	return len && !strncmp(start, header,
			       len < HEADER_LEN ? len : HEADER_LEN);
}

int profile_read(const char *path, struct profile_doc *doc, char *err,
		 size_t errlen)
{
	struct reading r = { .path = path, .err = err, .errlen = errlen };
	FILE *f = fopen(path, "r");
	struct stat st;
	char *line = NULL;
	size_t cap = 0;
	bool ended = false;
	enum line_end end;
	int rc = -1;

	memset(doc, 0, sizeof(*doc));
	doc->path = xstrdup(path);
	if (!f)
		return bad(&r, "%s", strerror(errno));
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		bad(&r, "a directory, not a profile");
		goto out;
	}
	while ((end = next_line(f, &line, &cap)) == LINE_NEWLINE) {
		r.line++;
		if (r.line == 1 ? read_header(&r, line)
				: read_line(&r, doc, line, &ended))
			goto out;
	}
	int error = errno;
	r.line++;
	if (r.line == 1 && (end == LINE_CUT || end == LINE_TOO_LONG ||
			    end == LINE_NUL) && !could_be_header(line)) {
		read_header(&r, line);
		goto out;
	}
	switch (end) {
	case LINE_NEWLINE:
	case LINE_EOF:
		break;
	case LINE_CUT:
		bad(&r, "truncated line (no newline at the end)");
		goto out;
	case LINE_TOO_LONG:
		bad(&r, "line longer than %zu bytes", LINE_MAX_BYTES);
		goto out;
	case LINE_NUL:
		bad(&r, "NUL byte in the line");
		goto out;
	case LINE_READ_ERROR:
		bad(&r, "read error: %s", strerror(error));
		goto out;
	}
	if (r.line == 1) {
		r.line = 0;
		bad(&r, "empty file, not a trms profile");
		goto out;
	}
	if (!ended) {
		bad(&r, "truncated profile: no end line");
		goto out;
	}
	if (doc->n_symbols)
		qsort(doc->symbols, doc->n_symbols, sizeof(*doc->symbols),
		      compare_symbols);
	rc = 0;
out:
	free(line);
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
	for (size_t i = 0; i < doc->n_regions; i++)
		free(doc->regions[i].name);
	for (size_t i = 0; i < doc->n_threads; i++)
		free(doc->threads[i].name);
	free(doc->meta);
	free(doc->regions);
	free(doc->threads);
	free(doc->tuples);
	for (size_t i = 0; i < doc->n_modules; i++)
		free(doc->modules[i].path);
	for (size_t i = 0; i < doc->n_symbols; i++)
		free(doc->symbols[i].name);
	free(doc->modules);
	free(doc->symbols);
	free(doc->cct);
	free(doc->path);
	profile_lines_free(doc);
	memset(doc, 0, sizeof(*doc));
}

const char *profile_meta(const struct profile_doc *doc, const char *key)
{
	for (size_t i = 0; i < doc->n_meta; i++)
		if (!strcmp(doc->meta[i].key, key))
			return doc->meta[i].value;
	return NULL;
}

const char *profile_region_name(const struct profile_doc *doc, uint32_t id)
{
	/* Regions are written in id order: try the direct position first. */
	if (id < doc->n_regions && doc->regions[id].id == id)
		return doc->regions[id].name;
	for (size_t i = 0; i < doc->n_regions; i++)
		if (doc->regions[i].id == id)
			return doc->regions[i].name;
	return NULL;
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


/* Names, from the module's file, for the frames of @m the profile did not
 * name (it was written without names, from a signal handler say): all of
 * them at once. */
static void look_up_symbols(struct profile_doc *doc, struct profile_module *m)
{
	struct stat st;

	m->symbols_looked_up = true;
	/* A regular file only: opening a FIFO would wait for a writer, and
	 * opening a device may do something. */
	if (stat(m->path, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	struct elf_symbols *symbols = elf_symbols_load(m->path);
	if (!symbols)
		return;
	size_t named = doc->n_symbols;
	for (size_t i = 0; i < doc->n_cct; i++) {
		const struct profile_cct *c = &doc->cct[i];
		struct profile_symbol key = { m->id, c->b, NULL, 0 };
		if (c->kind != PROFILE_CCT_FRAME || c->a != m->id ||
		    (named && bsearch(&key, doc->symbols, named, sizeof(key),
				      compare_symbols)))
			continue;
		uintptr_t in_symbol;
		const char *name = elf_symbols_find(symbols, c->b, &in_symbol);
		if (name) {
			key.name = xstrdup(name);
			key.name_offset = in_symbol;
			APPEND(doc->symbols, doc->n_symbols, key);
		}
	}
	elf_symbols_free(symbols);
	/* A frame met twice above is named twice: keep one. */
	if (doc->n_symbols)
		qsort(doc->symbols, doc->n_symbols, sizeof(*doc->symbols),
		      compare_symbols);
	size_t kept = 0;
	for (size_t i = 0; i < doc->n_symbols; i++) {
		if (kept && !compare_symbols(&doc->symbols[kept - 1],
					     &doc->symbols[i]))
			free(doc->symbols[i].name);
		else
			doc->symbols[kept++] = doc->symbols[i];
	}
	doc->n_symbols = kept;
}

const char *profile_symbol(struct profile_doc *doc, uint32_t module,
			   uint64_t offset)
{
	struct profile_symbol key = { module, offset, NULL, 0 };
	const struct profile_symbol *found;

	found = doc->n_symbols ? bsearch(&key, doc->symbols, doc->n_symbols,
					 sizeof(*doc->symbols),
					 compare_symbols)
			       : NULL;
	if (found)
		return found->name;
	struct profile_module *m = (struct profile_module *)profile_module(
		doc, module);
	if (!m || m->symbols_looked_up)
		return NULL;
	look_up_symbols(doc, m);
	return profile_symbol(doc, module, offset);
}

void profile_demangle(struct profile_doc *doc)
{
	/* Every frame named first: names looked up later would not be. */
	for (size_t i = 0; i < doc->n_cct; i++)
		if (doc->cct[i].kind == PROFILE_CCT_FRAME)
			profile_symbol(doc, (uint32_t)doc->cct[i].a,
				       doc->cct[i].b);
	char **names = xrealloc(NULL, (doc->n_symbols + 1) * sizeof(*names));
	for (size_t i = 0; i < doc->n_symbols; i++)
		names[i] = doc->symbols[i].name;
	demangle_names(names, doc->n_symbols);
	for (size_t i = 0; i < doc->n_symbols; i++)
		doc->symbols[i].name = names[i];
	free(names);
	doc->demangle = true;
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

/*
 * trace.c - reading event traces (see trace.h).
 */
#define _GNU_SOURCE
#include "trace.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/fnv1a.h"
#include "shadow.h"
#include "xalloc.h"

static const char *const op_names[] = {
	[TRACE_CALL] = "call",	 [TRACE_RETURN] = "return",
	[TRACE_READ] = "read",	 [TRACE_WRITE] = "write",
	[TRACE_KREAD] = "kread", [TRACE_KWRITE] = "kwrite",
};

const char *trace_op_name(enum trace_op op)
{
	return op_names[op];
}

void trace_init(struct trace *t)
{
	memset(t, 0, sizeof(*t));
}

void trace_free(struct trace *t)
{
	for (size_t i = 0; i < t->n_names; i++)
		free(t->names[i]);
	free(t->names);
	free(t->events);
	free(t->tids);
	free(t->name_index);
	free(t->tid_index);
	trace_init(t);
}

static void *grow_array(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	size_t cap2 = *cap ? *cap : 16;
	while (cap2 < need)
		cap2 *= 2;
	void *q = xrealloc(p, cap2 * elem);
	*cap = cap2;
	return q;
}

static uint64_t hash_u64(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 33;
	return v;
}

/* Open-addressing index of entries 1..n (0 = empty slot). */
static void index_rebuild(uint32_t **index, size_t *cap, size_t n,
			  uint64_t (*key_hash)(const struct trace *, uint32_t),
			  const struct trace *t)
{
	size_t cap2 = 64;

	while (cap2 < 2 * (n + 1))
		cap2 *= 2;
	free(*index);
	*index = xcalloc(cap2, sizeof(**index));
	*cap = cap2;
	for (uint32_t i = 0; i < n; i++) {
		size_t j = key_hash(t, i) & (cap2 - 1);
		while ((*index)[j])
			j = (j + 1) & (cap2 - 1);
		(*index)[j] = i + 1;
	}
}

static uint64_t name_hash(const struct trace *t, uint32_t i)
{
	return fnv1a_string(t->names[i]);
}

static uint64_t tid_hash(const struct trace *t, uint32_t i)
{
	return hash_u64(t->tids[i]);
}

uint32_t trace_name(struct trace *t, const char *name)
{
	if (2 * (t->n_names + 1) > t->name_index_cap)
		index_rebuild(&t->name_index, &t->name_index_cap, t->n_names,
			      name_hash, t);
	size_t mask = t->name_index_cap - 1;
	size_t j = fnv1a_string(name) & mask;
	for (; t->name_index[j]; j = (j + 1) & mask)
		if (!strcmp(t->names[t->name_index[j] - 1], name))
			return t->name_index[j] - 1;
	t->names = grow_array(t->names, &t->cap_names, t->n_names + 1,
			      sizeof(*t->names));
	t->names[t->n_names] = xstrdup(name);
	t->name_index[j] = (uint32_t)++t->n_names;
	return (uint32_t)(t->n_names - 1);
}

uint32_t trace_thread(struct trace *t, uint64_t tid)
{
	if (2 * (t->n_threads + 1) > t->tid_index_cap)
		index_rebuild(&t->tid_index, &t->tid_index_cap, t->n_threads,
			      tid_hash, t);
	size_t mask = t->tid_index_cap - 1;
	size_t j = hash_u64(tid) & mask;
	for (; t->tid_index[j]; j = (j + 1) & mask)
		if (t->tids[t->tid_index[j] - 1] == tid)
			return t->tid_index[j] - 1;
	t->tids = grow_array(t->tids, &t->cap_threads, t->n_threads + 1,
			     sizeof(*t->tids));
	t->tids[t->n_threads] = tid;
	t->tid_index[j] = (uint32_t)++t->n_threads;
	return (uint32_t)(t->n_threads - 1);
}

int trace_append(struct trace *t, const struct trace_event *e)
{
	t->events = grow_array(t->events, &t->cap_events, t->n_events + 1,
			       sizeof(*t->events));
	t->events[t->n_events++] = *e;
	return 0;
}

/* A number: decimal, or also 0x hex when @hex_ok.  Whole token only. */
static bool parse_number(const char *s, bool hex_ok, uint64_t *out)
{
	int base = 10;
	char *end;

	if (hex_ok && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	/* strtoull accepts signs and spaces: allow only digits. */
	if (!*s)
		return false;
	for (const char *p = s; *p; p++) {
		bool digit = base == 16 ? (*p >= '0' && *p <= '9') ||
						  (*p >= 'a' && *p <= 'f') ||
						  (*p >= 'A' && *p <= 'F')
					: (*p >= '0' && *p <= '9');
		if (!digit)
			return false;
	}
	errno = 0;
	*out = strtoull(s, &end, base);
	return errno == 0 && *end == '\0';
}

/* A trace being parsed. */
struct parsing {
	const char *name;
	size_t line;
	char *err;
	size_t errlen;
	size_t *depth, depth_cap; /* pending calls, per thread */
};

/* "NAME:LINE: " and the message into p->err.  @return -EINVAL. */
static int fail(struct parsing *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct parsing *p, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(p->err, p->errlen, "%s:%zu: ", p->name, p->line);

	if (n < 0 || (size_t)n >= p->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

#define MAX_FIELDS 5

/* Split @line at blanks into at most MAX_FIELDS fields, after cutting a
 * comment; returns the number of fields (MAX_FIELDS + 1 if more). */
static size_t split_fields(char *line, char **fields)
{
	size_t n = 0;
	char *hash = strchr(line, '#');

	if (hash)
		*hash = '\0';
	for (char *tok = strtok(line, " \t\r\n\v\f"); tok;
	     tok = strtok(NULL, " \t\r\n\v\f")) {
		if (n == MAX_FIELDS)
			return MAX_FIELDS + 1;
		fields[n++] = tok;
	}
	return n;
}

static int parse_op(const char *s)
{
	for (size_t i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++)
		if (!strcmp(s, op_names[i]))
			return (int)i;
	return -1;
}

/* The operation and thread of a line of @n fields, and whether it has
 * the fields its operation takes. */
static int parse_head(struct parsing *p, char **f, size_t n, uint64_t *tid,
		      int *op)
{
	if (!parse_number(f[0], false, tid) || *tid > UINT32_MAX)
		return fail(p, "bad thread id '%s'", f[0]);
	if (n < 2)
		return fail(p, "missing operation after the thread id");
	*op = parse_op(f[1]);
	if (*op < 0)
		return fail(p, "unknown operation '%s' (expected call, return, "
			       "read, write, kread or kwrite)",
			    f[1]);
	size_t want = *op == TRACE_CALL ? 3 : *op == TRACE_RETURN ? 2 : 4;
	if (n < want)
		return fail(p, "missing %s for '%s'",
			    *op == TRACE_CALL ? "region name"
			    : n == 2	       ? "address and size"
					       : "size",
			    f[1]);
	if (n > want)
		return fail(p, "extra field '%s' after '%s'",
			    n > MAX_FIELDS ? "..." : f[want], f[1]);
	return 0;
}

/* The range of an access: "<addr> <size>". */
static int parse_range(struct parsing *p, char **f, struct trace_event *e)
{
	if (!parse_number(f[2], true, &e->addr))
		return fail(p, "bad address '%s'", f[2]);
	if (!parse_number(f[3], false, &e->size))
		return fail(p, "bad size '%s'", f[3]);
	if (e->size == 0)
		return fail(p, "size must be at least 1");
	if (e->addr >= SHADOW_ADDR_LIMIT || e->size > SHADOW_ADDR_LIMIT - e->addr)
		return fail(p, "range beyond the 47-bit address space");
	return 0;
}

/* The event of a line of @n fields @f (at least one), appended to @t. */
static int parse_event(struct parsing *p, struct trace *t, char **f, size_t n)
{
	struct trace_event e = { 0 };
	uint64_t tid;
	int op = 0, rc = parse_head(p, f, n, &tid, &op);

	if (rc)
		return rc;
	e.op = (uint32_t)op;
	size_t known = t->n_threads;
	e.thread = trace_thread(t, tid);
	p->depth = grow_array(p->depth, &p->depth_cap, t->n_threads,
			      sizeof(*p->depth));
	if (t->n_threads > known)
		p->depth[e.thread] = 0;
	if (op == TRACE_CALL) {
		e.name = trace_name(t, f[2]);
		p->depth[e.thread]++;
	} else if (op == TRACE_RETURN) {
		if (!p->depth[e.thread])
			return fail(p, "return on thread %llu, which has no "
				       "pending activation",
				    (unsigned long long)tid);
		p->depth[e.thread]--;
	} else if ((rc = parse_range(p, f, &e))) {
		return rc;
	}
	return trace_append(t, &e);
}

int trace_parse(FILE *f, const char *name, struct trace *t, char *err,
		size_t errlen)
{
	struct parsing p = { name, 0, err, errlen, NULL, 0 };
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;

	while (!rc && getline(&line, &cap, f) >= 0) {
		char *fields[MAX_FIELDS];
		p.line++;
		size_t n = split_fields(line, fields);
		if (n)
			rc = parse_event(&p, t, fields, n);
	}
	if (!rc && ferror(f)) {
		int e = errno;
		p.line++;
		fail(&p, "read error: %s", strerror(e));
		rc = -e;
	}
	free(line);
	free(p.depth);
	return rc;
}

/*
 * profile_doc_lines.c - the reader's check of each line of a profile: its
 * fields, their numbers and names, and what they refer to (see
 * profile_doc_lines.h).
 */
#define _GNU_SOURCE
#include "format/profile_doc_lines.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

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

static bool parse_u32(const char *s, uint32_t *out)
{
	uint64_t v;

	if (!profile_parse_u64(s, &v) || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

#define MAX_FIELDS 16

/* The blank-separated fields of @line; MAX_FIELDS + 1 if there are more
 * than MAX_FIELDS. */
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

static int read_numbers(struct reading *r, char **f, size_t from, size_t to,
			uint64_t *const *out)
{
	for (size_t i = from; i < to; i++)
		if (!profile_parse_u64(f[i], out[i - from]))
			return bad(r, "bad number '%s'", f[i]);
	return 0;
}

/* A copy of @s for the document, or NULL with r->err set. */
static char *copy(struct reading *r, const char *s)
{
	char *c = strdup(s);

	if (!c)
		reading_no_memory(r);
	return c;
}

/* meta <key> [<value>...]: the value is the rest of the line, as it is. */
static int read_meta(struct reading *r, struct profile_doc *doc, char *line)
{
	char *key = line + strlen(profile_line_word(PROFILE_LINE_META)) + 1;
	char *value = strchr(key, ' ');

	if (value)
		*value++ = '\0';
	if (!*key)
		return bad(r, "meta line without a key");
	struct profile_meta m = { strdup(key), strdup(value ? value : "") };
	if (m.key && m.value && APPEND(doc->meta, doc->n_meta, m))
		return 0;
	free(m.key);
	free(m.value);
	return reading_no_memory(r);
}

/* region <id> <name> */
static int read_region(struct reading *r, struct profile_doc *doc, char **f,
		       size_t n)
{
	struct profile_region reg = { 0 };

	if (n != 3)
		return bad(r, "a region line has 3 fields");
	if (!parse_u32(f[1], &reg.id))
		return bad(r, "bad region id '%s'", f[1]);
	if (profile_region_name(doc, reg.id))
		return bad(r, "region %u declared twice", reg.id);
	if (profile_unescape(f[2]))
		return bad(r, "bad escape in region name");
	if (!(reg.name = copy(r, f[2])))
		return -ENOMEM;
	if (APPEND(doc->regions, doc->n_regions, reg))
		return 0;
	free(reg.name);
	return reading_no_memory(r);
}

/* The correction's fields of a tuple (version 3 on), @f: corrected,
 * library, estimated. */
static int read_correction(struct reading *r, struct tuple_data *d, char **f)
{
	uint64_t *const numbers[] = { &d->corrected, &d->library,
				      &d->estimated };

	if (read_numbers(r, f, 0, 3, numbers))
		return -EINVAL;
	if (d->corrected > d->count)
		return bad(r, "tuple with more activations corrected than it "
			      "has");
	if (d->estimated > d->library)
		return bad(r, "tuple with more library time estimated than "
			      "taken out");
	if (!d->corrected && d->library)
		return bad(r, "tuple with library time but no activation "
			      "corrected");
	return 0;
}

/* tuple <region> <thread> <metric> <n> <count> <min> <max> <sum> <sumsq>
 *       <induced_thread> <induced_external>
 *       [<corrected> <library> <estimated>: from version 3 on] */
static int read_tuple(struct reading *r, struct profile_doc *doc,
		      char **f, size_t n)
{
	struct profile_tuple t = { 0 };
	struct tuple_data *d = &t.data;
	uint64_t *u64s[] = { &d->n, &d->count, &d->min, &d->max, &d->sum };
	size_t fields = r->version >= PROFILE_FORMAT_CORRECTIONS ? 15 : 12;

	if (n != fields)
		return bad(r, "a tuple line has %zu fields, this one has %zu",
			   fields, n);
	if (!parse_u32(f[1], &d->region))
		return bad(r, "bad region id '%s'", f[1]);
	if (!profile_region_name(doc, d->region))
		return bad(r, "tuple for undeclared region %u", d->region);
	if (!parse_u32(f[2], &t.thread))
		return bad(r, "bad thread ordinal '%s'", f[2]);
	if (!profile_thread(doc, t.thread))
		return bad(r, "tuple for undeclared thread %u", t.thread);
	int metric = profile_metric(f[3]);
	if (metric < 0)
		return bad(r, "unknown metric '%s' (expected %s or %s)", f[3],
			   profile_metric_word(METRIC_TRMS),
			   profile_metric_word(METRIC_RMS));
	d->metric = (uint32_t)metric;
	for (size_t i = 0; i < 5; i++)
		if (!profile_parse_u64(f[4 + i], u64s[i]))
			return bad(r, "bad number '%s'", f[4 + i]);
	if (!profile_parse_u128(f[9], &d->sumsq))
		return bad(r, "bad number '%s'", f[9]);
	if (!profile_parse_u64(f[10], &d->induced_thread) ||
	    !profile_parse_u64(f[11], &d->induced_external))
		return bad(r, "bad induced count");
	if (d->count == 0)
		return bad(r, "tuple with count 0");
	if (d->min > d->max)
		return bad(r, "tuple with min %llu above max %llu",
			   (unsigned long long)d->min,
			   (unsigned long long)d->max);
	if (fields == 15 && read_correction(r, d, f + 12))
		return -EINVAL;
	return APPEND(doc->tuples, doc->n_tuples, t) ? 0
						      : reading_no_memory(r);
}

/* "context=3/7/2": region ids, outermost first. */
static int read_context(struct reading *r, struct profile_thread *th,
			char *value)
{
	char *save = NULL;

	for (char *id = strtok_r(value, PROFILE_CONTEXT_SEPARATOR, &save); id;
	     id = strtok_r(NULL, PROFILE_CONTEXT_SEPARATOR, &save)) {
		if (th->context_depth == PROFILE_CONTEXT_MAX)
			return bad(r, "creation context deeper than %d",
				   PROFILE_CONTEXT_MAX);
		if (!parse_u32(id, &th->context[th->context_depth]))
			return bad(r, "bad region id '%s' in context", id);
		th->context_depth++;
	}
	return 0;
}

/* The counter a thread line's key sets; NULL for another key. */
static uint64_t *thread_counter(struct profile_thread *th,
				enum profile_thread_key key)
{
	switch (key) {
	case PROFILE_THREAD_IN_BYTES:
		return &th->in_bytes;
	case PROFILE_THREAD_IN_CALLS:
		return &th->in_calls;
	case PROFILE_THREAD_OUT_BYTES:
		return &th->out_bytes;
	case PROFILE_THREAD_OUT_CALLS:
		return &th->out_calls;
	case PROFILE_THREAD_SAMPLES:
		return &th->samples;
	case PROFILE_THREAD_CPU_NS:
		return &th->cpu_ns;
	case PROFILE_THREAD_LIBRARY_SAMPLES:
		return &th->library_samples;
	case PROFILE_THREAD_LIBRARY_NS:
		return &th->library_ns;
	case PROFILE_THREAD_ENDED_THREADS:
		return &th->ended_threads;
	default:
		return NULL;
	}
}

/* Whether the writer writes @key only with sampling on. */
static bool sampling_key(enum profile_thread_key key)
{
	return key == PROFILE_THREAD_SAMPLES || key == PROFILE_THREAD_CPU_NS ||
	       key == PROFILE_THREAD_LIBRARY_SAMPLES;
}

/* One key=value field of a thread line; unknown keys are ignored. */
static int read_thread_field(struct reading *r, struct profile_thread *th,
			     char *field)
{
	char *value = strchr(field, '=');

	if (!value)
		return bad(r, "thread field '%s' is not key=value", field);
	*value++ = '\0';
	int key = profile_thread_key(field);
	uint64_t *counter = key < 0 ? NULL : thread_counter(th, key);
	switch (key) {
	case PROFILE_THREAD_NAME:
		if (profile_unescape(value) || !*value)
			return bad(r, "bad thread name");
		free(th->name);
		th->name = copy(r, value);
		return th->name ? 0 : -ENOMEM;
	case PROFILE_THREAD_CREATOR:
		if (!parse_u32(value, &th->creator))
			return bad(r, "bad creator '%s'", value);
		th->has_creator = true;
		return 0;
	case PROFILE_THREAD_FOLDED_INTO:
		if (!parse_u32(value, &th->folded_into))
			return bad(r, "bad folded_into '%s'", value);
		th->has_folded_into = true;
		return 0;
	case PROFILE_THREAD_CONTEXT:
		return read_context(r, th, value);
	default:
		if (!counter)
			return 0;
		if (!profile_parse_u64(value, counter))
			return bad(r, "bad %s '%s'", field, value);
		th->sampled |= sampling_key(key);
		return 0;
	}
}

/* thread <ordinal> [key=value...] */
static int read_thread(struct reading *r, struct profile_doc *doc, char **f,
		       size_t n)
{
	struct profile_thread th = { 0 };
	int rc = 0;

	if (n < 2 || n > MAX_FIELDS)
		return bad(r, "malformed thread line");
	if (!parse_u32(f[1], &th.ordinal))
		return bad(r, "bad thread ordinal '%s'", f[1]);
	if (profile_thread(doc, th.ordinal))
		return bad(r, "thread %u declared twice", th.ordinal);
	for (size_t i = 2; i < n && !rc; i++)
		rc = read_thread_field(r, &th, f[i]);
	if (!rc && !APPEND(doc->threads, doc->n_threads, th))
		rc = reading_no_memory(r);
	if (rc)
		free(th.name);
	return rc;
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
		return -EINVAL;
	if (id > UINT32_MAX)
		return bad(r, "bad module id");
	m.id = (uint32_t)id;
	if (!strcmp(f[5], PROFILE_MODULE_UNLOADED))
		m.unloaded = true;
	else if (strcmp(f[5], PROFILE_MODULE_LOADED))
		return bad(r, "expected %s or %s, not '%s'",
			   PROFILE_MODULE_LOADED, PROFILE_MODULE_UNLOADED,
			   f[5]);
	if (profile_unescape(f[6]))
		return bad(r, "bad escape in module path");
	if (!(m.path = copy(r, f[6])))
		return -ENOMEM;
	if (APPEND(doc->modules, doc->n_modules, m))
		return 0;
	free(m.path);
	return reading_no_memory(r);
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
	    !profile_parse_u64(f[4], &s.name_offset))
		return bad(r, "bad number in symbol line");
	if (module > UINT32_MAX || !profile_module(doc, (uint32_t)module))
		return bad(r, "symbol of undeclared module %s", f[1]);
	s.module = (uint32_t)module;
	if (profile_unescape(f[3]))
		return bad(r, "bad escape in symbol name");
	if (!(s.name = copy(r, f[3])))
		return -ENOMEM;
	if (APPEND(doc->symbols, doc->n_symbols, s))
		return 0;
	free(s.name);
	return reading_no_memory(r);
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

/* Make room for one more node: at most half the slots are taken.
 * @return false if there is no memory for it. */
static bool grow_nodes(struct reading *r)
{
	struct node_slot *old = r->nodes;
	size_t old_cap = r->cap_nodes;

	if (2 * (r->n_nodes + 1) <= r->cap_nodes)
		return true;
	size_t cap = old_cap ? 2 * old_cap : 64;
	struct node_slot *nodes = calloc(cap, sizeof(*nodes));
	if (!nodes)
		return false;
	r->nodes = nodes;
	r->cap_nodes = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].depth)
			*node_slot(r, old[i].thread, old[i].node) = old[i];
	free(old);
	return true;
}

/* Where @c sits in its thread's tree: its node number is new, its parent
 * came before it, and the tree is no deeper than the report's recursive
 * walks can go. */
static int place_cct(struct reading *r, const struct profile_cct *c)
{
	unsigned depth = 1;

	if (!grow_nodes(r))
		return reading_no_memory(r);
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
		return -EINVAL;
	if (thread > UINT32_MAX || node > UINT32_MAX)
		return bad(r, "bad thread or node number");
	c.thread = (uint32_t)thread;
	c.node = (uint32_t)node;
	if (!profile_thread(doc, c.thread))
		return bad(r, "cct of undeclared thread %u", c.thread);
	if (strcmp(f[3], PROFILE_NO_PARENT)) {
		if (!profile_parse_u64(f[3], &parent) || parent > UINT32_MAX)
			return bad(r, "bad parent '%s'", f[3]);
		c.has_parent = true;
		c.parent = (uint32_t)parent;
	}
	int kind = profile_cct_kind(f[4]);
	if (kind < 0)
		return bad(r, "unknown cct node kind '%s'", f[4]);
	c.kind = (enum profile_cct_kind)kind;
	if (c.kind == PROFILE_CCT_REGION && c.a <= UINT32_MAX &&
	    !profile_region_name(doc, (uint32_t)c.a))
		return bad(r, "cct node of undeclared region %llu",
			   (unsigned long long)c.a);
	int rc = place_cct(r, &c);
	if (rc)
		return rc;
	return APPEND(doc->cct, doc->n_cct, c) ? 0 : reading_no_memory(r);
}

/* activations <region> <thread> <activations> <measured> */
static int read_activations(struct reading *r, struct profile_doc *doc,
			    char **f, size_t n)
{
	struct profile_activations a;
	uint64_t region, thread;
	uint64_t *const numbers[] = { &region, &thread, &a.activations,
				      &a.measured };

	if (r->version < PROFILE_FORMAT_ACTIVATIONS)
		return bad(r, "an activations line in a version 1 profile");
	if (n != 5)
		return bad(r, "an activations line has 5 fields, this one has "
			      "%zu",
			   n);
	if (read_numbers(r, f, 1, 5, numbers))
		return -EINVAL;
	if (region > UINT32_MAX || thread > UINT32_MAX)
		return bad(r, "bad region or thread number");
	a.region = (uint32_t)region;
	a.thread = (uint32_t)thread;
	if (!profile_region_name(doc, a.region))
		return bad(r, "activations of undeclared region %u", a.region);
	if (!profile_thread(doc, a.thread))
		return bad(r, "activations of undeclared thread %u", a.thread);
	if (a.measured > a.activations)
		return bad(r, "more activations measured than there were");
	return APPEND(doc->activations, doc->n_activations, a)
		       ? 0
		       : reading_no_memory(r);
}

/* object <region> <path>: the file of the function region <region>'s
 * code (version 4 on). */
static int read_object(struct reading *r, struct profile_doc *doc, char **f,
		       size_t n)
{
	uint32_t id;
	struct profile_region *reg;

	if (r->version < PROFILE_FORMAT_OBJECTS)
		return bad(r, "an object line in a version %u profile",
			   r->version);
	if (n != 3)
		return bad(r, "an object line has 3 fields");
	if (!parse_u32(f[1], &id) || !(reg = profile_region(doc, id)))
		return bad(r, "object of undeclared region '%s'", f[1]);
	if (reg->object)
		return bad(r, "region %u's object given twice", id);
	if (profile_unescape(f[2]))
		return bad(r, "bad escape in object path");
	return (reg->object = copy(r, f[2])) ? 0 : -ENOMEM;
}

/* end <tuples> */
static int read_end(struct reading *r, struct profile_doc *doc, char **f,
		    size_t n)
{
	uint64_t count;

	if (n != 2 || !profile_parse_u64(f[1], &count))
		return bad(r, "malformed end line");
	if (count != doc->n_tuples)
		return bad(r, "end line promises %llu tuples, the file has %zu",
			   (unsigned long long)count, doc->n_tuples);
	r->ended = true;
	return 0;
}

int profile_read_line(struct reading *r, struct profile_doc *doc,
		      char *line)
{
	const char *meta = profile_line_word(PROFILE_LINE_META);
	size_t meta_len = strlen(meta);
	char *f[MAX_FIELDS];
	size_t n;

	if (r->ended)
		return bad(r, "text after the end line");
	/* A meta line's value is the rest of the line, blanks and all. */
	if (!strncmp(line, meta, meta_len) && line[meta_len] == ' ')
		return read_meta(r, doc, line);
	n = split(line, f);
	if (n == 0)
		return bad(r, "empty line");
	switch (profile_line_kind(f[0])) {
	case PROFILE_LINE_REGION:
		return read_region(r, doc, f, n);
	case PROFILE_LINE_THREAD:
		return read_thread(r, doc, f, n);
	case PROFILE_LINE_TUPLE:
		return read_tuple(r, doc, f, n);
	case PROFILE_LINE_MODULE:
		return read_module(r, doc, f, n);
	case PROFILE_LINE_SYMBOL:
		return read_symbol(r, doc, f, n);
	case PROFILE_LINE_CCT:
		return read_cct(r, doc, f, n);
	case PROFILE_LINE_ACTIVATIONS:
		return read_activations(r, doc, f, n);
	case PROFILE_LINE_OBJECT:
		return read_object(r, doc, f, n);
	case PROFILE_LINE_END:
		return read_end(r, doc, f, n);
	default:
		/* "meta" without a blank after it is no meta line. */
		return bad(r, "unknown line type '%.32s'", f[0]);
	}
}

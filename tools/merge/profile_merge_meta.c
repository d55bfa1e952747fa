/*
 * profile_merge_meta.c - the meta lines of a merge: each key combined by
 * its rule (docs/merge.md, "Meta"), and the keys whose values must agree
 * for the inputs to be merged at all.
 */
#define _GNU_SOURCE
#include "profile_merge_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

enum meta_rule {
	META_AGREE,      /* kept if every input has the same value */
	META_SUM,        /* the sum over the inputs that have it */
	META_MINIMUM,    /* the smallest ... */
	META_MAXIMUM,    /* the largest ... */
	META_COMPATIBLE, /* inputs that have it must agree */
	META_DERIVED,    /* computed from the sums */
	META_UNION,      /* every word of any input's value, once, sorted */
};

/* What must be equal wherever present, and how to say so. */
struct compatible_key {
	const char *key, *fallback, *before, *after;
};

static const struct compatible_key compatible_keys[] = {
	{ PROFILE_META_COST, "ns", "costs in ", "" },
	{ PROFILE_META_GRANULARITY, NULL, "cells of ", " bytes (granularity)" },
	{ PROFILE_META_SAMPLE_CLOCK, NULL, "samples of ",
	  " time (sample_clock)" },
	{ PROFILE_META_SAMPLE_HZ, NULL, "samples at ", " Hz (sample_hz)" },
};

/* The entry of @key in compatible_keys, or NULL. */
static const struct compatible_key *compatible_key(const char *key)
{
	for (size_t i = 0; i < COUNT(compatible_keys); i++)
		if (!strcmp(key, compatible_keys[i].key))
			return &compatible_keys[i];
	return NULL;
}

static enum meta_rule meta_rule(const char *key)
{
	static const char *const sums[] = {
		PROFILE_META_MERGED,
		PROFILE_META_RENUMBERS,
		PROFILE_META_TUPLES_SKIPPED,
		PROFILE_META_TUPLES_DROPPED,
		PROFILE_META_SAMPLES,
		PROFILE_META_SAMPLES_UNATTACHED,
		PROFILE_META_SAMPLES_OVERRUN,
		PROFILE_META_SAMPLE_THREADS_LEFT_PERF,
		PROFILE_META_BUDGET_PERIODS,
		PROFILE_META_SAMPLE_HANDLER_NS,
		PROFILE_META_SAMPLE_CPU_NS,
		PROFILE_META_SAMPLE_ELAPSED_NS,
		PROFILE_META_MEMORY_REFUSED,
		PROFILE_META_ACTIVATIONS_INCOMPLETE,
		PROFILE_META_SHADOW_FORGOTTEN,
	};

	for (size_t i = 0; i < COUNT(sums); i++)
		if (!strcmp(key, sums[i]))
			return META_SUM;
	if (!strncmp(key, PROFILE_META_SAMPLES_DROPPED,
		     sizeof(PROFILE_META_SAMPLES_DROPPED) - 1))
		return META_SUM;
	if (compatible_key(key))
		return META_COMPATIBLE;
	if (!strcmp(key, PROFILE_META_START_NS) ||
	    !strcmp(key, PROFILE_META_WINDOW_START))
		return META_MINIMUM;
	if (!strcmp(key, PROFILE_META_END_NS) ||
	    !strcmp(key, PROFILE_META_WINDOW_END) ||
	    !strcmp(key, PROFILE_META_MEMORY_PEAK))
		return META_MAXIMUM;
	if (!strcmp(key, PROFILE_META_SAMPLE_HZ_DELIVERED))
		return META_DERIVED;
	/* The parts of a partition merged ("1/3 2/3"), the windows of a
	 * run ("1 2 3"). */
	if (!strcmp(key, PROFILE_META_PARTITION) ||
	    !strcmp(key, PROFILE_META_WINDOW))
		return META_UNION;
	return META_AGREE;
}

/* The value of @key in @in, with what its absence means. */
static const char *meta_value(const struct profile_doc *in, const char *key)
{
	const char *v = profile_meta(in, key);
	const struct compatible_key *compatible;

	if (v)
		return v;
	if (!strcmp(key, PROFILE_META_MERGED))
		return "1"; /* a profile that was not merged is one */
	compatible = compatible_key(key);
	return compatible ? compatible->fallback : NULL;
}

static int compare_text(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int compare_meta(const void *a, const void *b)
{
	const struct profile_meta *x = a, *y = b;

	return strcmp(x->key, y->key);
}

static void put_meta(struct profile_doc *out, const char *key,
		     const char *value)
{
	struct profile_meta *m = &out->meta[out->n_meta++];

	m->key = xstrdup(key);
	m->value = xstrdup(value);
}

static void put_meta_u64(struct profile_doc *out, const char *key,
			 uint64_t value)
{
	char text[32];

	snprintf(text, sizeof(text), "%" PRIu64, value);
	put_meta(out, key, text);
}

static int merge_compatible(struct merge *m, const char *key)
{
	const struct compatible_key *k = compatible_key(key);
	const struct profile_doc *first = NULL;

	for (size_t i = 0; i < m->n_inputs; i++) {
		const char *v = meta_value(&m->inputs[i], key);
		if (!v)
			continue;
		if (!first) {
			first = &m->inputs[i];
			continue;
		}
		const char *w = meta_value(first, key);
		if (strcmp(v, w))
			return merge_fail(m,
					  "%s: %s%s%s, but %s has %s%s%s; they "
					  "cannot be merged",
					  m->inputs[i].path, k->before, v,
					  k->after, first->path, k->before, w,
					  k->after);
	}
	if (first)
		put_meta(m->out, key, meta_value(first, key));
	return 0;
}

static int merge_number(struct merge *m, const char *key,
			enum meta_rule rule)
{
	bool present = false;
	uint64_t result = 0;

	for (size_t i = 0; i < m->n_inputs; i++) {
		const char *text = meta_value(&m->inputs[i], key);
		uint64_t v;
		if (!text)
			continue;
		if (!profile_parse_u64(text, &v))
			return merge_fail(m,
					  "%s: meta %s: '%s' is not a number",
					  m->inputs[i].path, key, text);
		if (rule == META_SUM)
			merge_add(m, &result, v);
		else if (!present || (rule == META_MINIMUM ? v < result
							    : v > result))
			result = v;
		present = true;
	}
	if (present)
		put_meta_u64(m->out, key, result);
	return 0;
}

/* Numbers and parts in their order: "2" before "10", "2/3" before
 * "10/12". */
static int compare_words(const void *a, const void *b)
{
	return strverscmp(*(const char *const *)a, *(const char *const *)b);
}

static void merge_union(struct merge *m, const char *key)
{
	size_t n = 0, cap = 8, len = 1;
	char **words = xcalloc(cap, sizeof(*words));

	for (size_t i = 0; i < m->n_inputs; i++) {
		const char *v = meta_value(&m->inputs[i], key);
		char *copy = v ? xstrdup(v) : NULL, *save = NULL;
		for (char *w = copy ? strtok_r(copy, " ", &save) : NULL; w;
		     w = strtok_r(NULL, " ", &save)) {
			if (n == cap)
				words = xrealloc(words,
						 (cap *= 2) * sizeof(*words));
			words[n++] = xstrdup(w);
			len += strlen(w) + 1;
		}
		free(copy);
	}
	qsort(words, n, sizeof(*words), compare_words);
	char *value = xcalloc(len, 1);
	for (size_t i = 0; i < n; i++)
		if (!i || strcmp(words[i], words[i - 1])) {
			if (*value)
				strcat(value, " ");
			strcat(value, words[i]);
		}
	for (size_t i = 0; i < n; i++)
		free(words[i]);
	if (n)
		put_meta(m->out, key, value);
	free(value);
	free(words);
}

static void merge_agreed(struct merge *m, const char *key)
{
	const char *v = meta_value(&m->inputs[0], key);

	for (size_t i = 1; i < m->n_inputs && v; i++) {
		const char *w = meta_value(&m->inputs[i], key);
		if (!w || strcmp(v, w))
			v = NULL;
	}
	if (v)
		put_meta(m->out, key, v);
}

/* The rate the merged samples were delivered at, as the library computes
 * it: samples per second of sampled CPU time, or with the wall clock of
 * the threads' elapsed time. */
static void derive_rate(struct profile_doc *out)
{
	const char *clock = profile_meta(out, PROFILE_META_SAMPLE_CLOCK);
	bool wall = clock && !strcmp(clock, "wall");
	uint64_t samples = profile_meta_u64(out, PROFILE_META_SAMPLES, 0);
	uint64_t cpu_ns = profile_meta_u64(out,
					   wall ? PROFILE_META_SAMPLE_ELAPSED_NS
						: PROFILE_META_SAMPLE_CPU_NS,
					   0);

	if (profile_meta(out, PROFILE_META_SAMPLES) && cpu_ns)
		put_meta_u64(out, PROFILE_META_SAMPLE_HZ_DELIVERED,
			     (uint64_t)((double)samples * 1e9 / (double)cpu_ns +
					0.5));
}

/* Every key of any input, and the ones whose absence means something,
 * sorted (with repeats). */
static const char **all_keys(const struct merge *m, size_t *n_keys)
{
	size_t total = 1 + COUNT(compatible_keys);

	for (size_t i = 0; i < m->n_inputs; i++)
		total += m->inputs[i].n_meta;
	const char **keys = xcalloc(total, sizeof(*keys));
	*n_keys = 0;
	keys[(*n_keys)++] = PROFILE_META_MERGED;
	for (size_t k = 0; k < COUNT(compatible_keys); k++)
		keys[(*n_keys)++] = compatible_keys[k].key;
	for (size_t i = 0; i < m->n_inputs; i++)
		for (size_t j = 0; j < m->inputs[i].n_meta; j++)
			keys[(*n_keys)++] = m->inputs[i].meta[j].key;
	qsort(keys, *n_keys, sizeof(*keys), compare_text);
	return keys;
}

int merge_meta(struct merge *m)
{
	size_t n_keys;
	const char **keys = all_keys(m, &n_keys);
	int rc = 0;

	m->out->meta = xcalloc(n_keys + 1, sizeof(*m->out->meta));
	for (size_t k = 0; k < n_keys && !rc; k++) {
		if (k && !strcmp(keys[k], keys[k - 1]))
			continue;
		enum meta_rule rule = meta_rule(keys[k]);
		switch (rule) {
		case META_COMPATIBLE:
			rc = merge_compatible(m, keys[k]);
			break;
		case META_SUM:
		case META_MINIMUM:
		case META_MAXIMUM:
			rc = merge_number(m, keys[k], rule);
			break;
		case META_AGREE:
			merge_agreed(m, keys[k]);
			break;
		case META_UNION:
			merge_union(m, keys[k]);
			break;
		case META_DERIVED:
			break;
		}
	}
	free(keys);
	if (rc)
		return rc;
	derive_rate(m->out);
	qsort(m->out->meta, m->out->n_meta, sizeof(*m->out->meta),
	      compare_meta);
	return 0;
}

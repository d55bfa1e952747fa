/*
 * pprof_tables.c - the tables the export looks things up in (see
 * pprof_internal.h).
 */
#define _GNU_SOURCE
#include "pprof_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/fnv1a.h"
#include "xalloc.h"

static size_t map_home(const struct map *m, const uint64_t key[3])
{
	return (size_t)fnv1a_bytes(key, 3 * sizeof(*key), FNV1A_OFFSET) &
	       (m->cap - 1);
}

/* The slot of @key: its own, or the free one where it would go. */
static struct map_entry *map_slot(const struct map *m, const uint64_t key[3])
{
	size_t i = map_home(m, key);

	while (m->slots[i].value &&
	       memcmp(m->slots[i].key, key, 3 * sizeof(*key)))
		i = (i + 1) & (m->cap - 1);
	return &m->slots[i];
}

uint64_t map_get(const struct map *m, uint64_t a, uint64_t b, uint64_t c)
{
	const uint64_t key[3] = { a, b, c };

	return m->cap ? map_slot(m, key)->value : 0;
}

/* Room for one more key: at most half the slots taken. */
static void map_grow(struct map *m)
{
	struct map old = *m;

	if (2 * (m->n + 1) <= m->cap)
		return;
	m->cap = old.cap ? 2 * old.cap : 64;
	m->slots = xcalloc(m->cap, sizeof(*m->slots));
	for (size_t i = 0; i < old.cap; i++)
		if (old.slots[i].value)
			*map_slot(m, old.slots[i].key) = old.slots[i];
	free(old.slots);
}

uint64_t *map_at(struct map *m, uint64_t a, uint64_t b, uint64_t c)
{
	const uint64_t key[3] = { a, b, c };

	map_grow(m);
	struct map_entry *e = map_slot(m, key);
	if (!e->value) {
		memcpy(e->key, key, sizeof(key));
		m->n++;
	}
	return &e->value;
}

void map_clear(struct map *m)
{
	m->n = 0;
	if (m->cap)
		memset(m->slots, 0, m->cap * sizeof(*m->slots));
}

static size_t string_home(const struct strings *s, const char *text)
{
	return (size_t)fnv1a_string(text) & (s->cap - 1);
}

/* Room for one more string: at most half the slots taken. */
static void strings_grow(struct strings *s)
{
	if (2 * (s->n + 1) <= s->cap)
		return;
	free(s->slots);
	s->cap = s->cap ? 2 * s->cap : 256;
	s->slots = xcalloc(s->cap, sizeof(*s->slots));
	for (size_t k = 0; k < s->n; k++) {
		size_t j = string_home(s, s->v[k]);
		while (s->slots[j])
			j = (j + 1) & (s->cap - 1);
		s->slots[j] = k + 1;
	}
}

int64_t intern(struct strings *s, const char *text)
{
	strings_grow(s);
	size_t i = string_home(s, text);
	while (s->slots[i] && strcmp(s->v[s->slots[i] - 1], text))
		i = (i + 1) & (s->cap - 1);
	if (!s->slots[i]) {
		if ((s->n & (s->n - 1)) == 0)
			s->v = xrealloc(s->v, 2 * (s->n + 1) * sizeof(*s->v));
		s->v[s->n] = xstrdup(text);
		s->slots[i] = ++s->n;
	}
	return (int64_t)(s->slots[i] - 1);
}

void strings_free(struct strings *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	free(s->slots);
}

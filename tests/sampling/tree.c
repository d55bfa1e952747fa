/*
 * tree.c - a sampled profile read as its calling context trees: a label
 * for every node, sums over subtrees, paths, the heaviest paths for
 * failure messages (see sampling.h).
 */
#define _GNU_SOURCE
#include "sampling.h"

#include <inttypes.h>
#include <stdlib.h>

uint64_t meta_u64(const struct profile_doc *doc, const char *key)
{
	const char *v = profile_meta(doc, key);

	SM_CHECK(v != NULL, "%s: expected a 'meta %s' line, there is none",
		      doc->path, key);
	return strtoull(v, NULL, 10);
}

struct node_key {
	uint64_t key;
	size_t index;
};

static int by_node_key(const void *a, const void *b)
{
	const struct node_key *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static char *node_label(struct profile_doc *doc, const struct profile_cct *c)
{
	switch (c->kind) {
	case PROFILE_CCT_THREAD:
		return strdup("(thread start)");
	case PROFILE_CCT_REGION: {
		const char *name = profile_region_name(doc, (uint32_t)c->a);
		return xasprintf("[%s]", name ? name : "?");
	}
	case PROFILE_CCT_FRAME:
		break;
	}
	const char *name = profile_symbol(doc, (uint32_t)c->a, c->b);
	if (name)
		return strdup(name);
	const struct profile_module *m = profile_module(doc, (uint32_t)c->a);
	const char *file = m ? strrchr(m->path, '/') : NULL;
	return xasprintf("%s+0x%" PRIx64,
			 m ? (file ? file + 1 : m->path) : "?", c->b);
}

void tree_build(struct tree *t, struct profile_doc *doc)
{
	size_t n = doc->n_cct;
	struct node_key *keys = calloc(n + 1, sizeof(*keys));

	memset(t, 0, sizeof(*t));
	t->doc = doc;
	t->n = n;
	t->parent = calloc(n + 1, sizeof(*t->parent));
	t->label = calloc(n + 1, sizeof(*t->label));
	t->samples = calloc(n + 1, sizeof(*t->samples));
	t->work = calloc(n + 1, sizeof(*t->work));
	t->blocked = calloc(n + 1, sizeof(*t->blocked));
	t->idleness = calloc(n + 1, sizeof(*t->idleness));
	ck_assert(keys && t->parent && t->label && t->samples && t->work &&
		  t->blocked && t->idleness);
	for (size_t i = 0; i < n; i++) {
		keys[i].key = (uint64_t)doc->cct[i].thread << 32 |
			      doc->cct[i].node;
		keys[i].index = i;
	}
	qsort(keys, n, sizeof(*keys), by_node_key);
	for (size_t i = 0; i < n; i++) {
		const struct profile_cct *c = &doc->cct[i];
		t->parent[i] = -1;
		if (c->has_parent) {
			struct node_key k = { (uint64_t)c->thread << 32 |
						      c->parent,
					      0 };
			struct node_key *p = bsearch(&k, keys, n, sizeof(*keys),
						     by_node_key);
			SM_CHECK(p && p->index < i,
				      "%s: cct node %" PRIu32 " of thread %" PRIu32
				      " has parent %" PRIu32
				      ", which does not come before it",
				      doc->path, c->node, c->thread, c->parent);
			t->parent[i] = (long)p->index;
		}
		t->label[i] = node_label(doc, c);
		t->samples[i] = c->samples;
		t->work[i] = c->work;
		t->blocked[i] = c->blocked;
		t->idleness[i] = (double)c->idleness_millionths / 1e6;
	}
	/* Parents come before children: add each subtree to its parent. */
	for (size_t i = n; i-- > 0;) {
		if (t->parent[i] < 0)
			continue;
		size_t p = (size_t)t->parent[i];
		t->samples[p] += t->samples[i];
		t->work[p] += t->work[i];
		t->blocked[p] += t->blocked[i];
		t->idleness[p] += t->idleness[i];
	}
	free(keys);
}

void tree_free(struct tree *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->label[i]);
	free(t->label);
	free(t->parent);
	free(t->samples);
	free(t->work);
	free(t->blocked);
	free(t->idleness);
}

bool has_ancestor(const struct tree *t, size_t i, const char *label)
{
	for (long p = t->parent[i]; p >= 0; p = t->parent[p])
		if (!strcmp(t->label[p], label))
			return true;
	return false;
}

char *path_of(const struct tree *t, size_t i)
{
	size_t chain[1024], depth = 0;
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	ck_assert_ptr_nonnull(f);
	for (long p = (long)i; p >= 0 && depth < 1024; p = t->parent[p])
		chain[depth++] = (size_t)p;
	while (depth-- > 0)
		fprintf(f, "%s%s", t->label[chain[depth]], depth ? ";" : "");
	fclose(f);
	return s;
}

struct agg under(const struct tree *t, const char *label, const char *parent,
		 long thread)
{
	struct agg a = { 0 };

	for (size_t i = 0; i < t->n; i++) {
		if (strcmp(t->label[i], label))
			continue;
		if (thread >= 0 && t->doc->cct[i].thread != (uint32_t)thread)
			continue;
		if (parent && (t->parent[i] < 0 ||
			       strcmp(t->label[t->parent[i]], parent)))
			continue;
		if (has_ancestor(t, i, label))
			continue;
		a.samples += t->samples[i];
		a.work += t->work[i];
		a.blocked += t->blocked[i];
		a.idleness += t->idleness[i];
		a.nodes++;
	}
	return a;
}

uint64_t samples_of(const struct tree *t, long thread)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < t->n; i++)
		if (thread < 0 || t->doc->cct[i].thread == (uint32_t)thread)
			sum += t->doc->cct[i].samples;
	return sum;
}

char *top_paths(const struct tree *t, size_t max)
{
	char *s = NULL;
	size_t len = 0, shown = 0;
	FILE *f = open_memstream(&s, &len);
	bool *used = calloc(t->n + 1, sizeof(*used));

	ck_assert(f && used);
	while (shown < max) {
		size_t best = t->n;
		for (size_t i = 0; i < t->n; i++)
			if (!used[i] && t->doc->cct[i].samples &&
			    (best == t->n || t->doc->cct[i].samples >
						     t->doc->cct[best].samples))
				best = i;
		if (best == t->n)
			break;
		used[best] = true;
		char *p = path_of(t, best);
		fprintf(f, "\n  thread %" PRIu32 ": %s %" PRIu64,
			t->doc->cct[best].thread, p, t->doc->cct[best].samples);
		free(p);
		shown++;
	}
	fclose(f);
	free(used);
	return s;
}


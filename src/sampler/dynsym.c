/*
 * dynsym.c - functions' extents from dynamic symbol tables (see dynsym.h).
 */
#define _GNU_SOURCE
#include "sampler/dynsym.h"

#include <link.h>
#include <string.h>

/* The loaded object that holds an address, and its dynamic section. */
struct holder {
	uintptr_t address;
	ElfW(Addr) base;
	const ElfW(Dyn) *dynamic;
};

static int find_holder(struct dl_phdr_info *info, size_t size, void *data)
{
	struct holder *h = data;
	const ElfW(Dyn) *dynamic = NULL;
	bool holds = false;

	(void)size;
	for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && h->address >= lo &&
		    h->address - lo < ph->p_memsz)
			holds = true;
		else if (ph->p_type == PT_DYNAMIC)
			dynamic = (const ElfW(Dyn) *)lo;
	}
	if (!holds)
		return 0;
	h->base = info->dlpi_addr;
	h->dynamic = dynamic;
	return 1;
}

/* The dynamic loader relocates the addresses in most objects' dynamic
 * sections in place; not in all (the vDSO's, read-only ones). */
static uintptr_t dynamic_address(const struct holder *h, ElfW(Addr) value)
{
	return value < h->base ? h->base + value : value;
}

static uint32_t gnu_hash(const char *name)
{
	uint32_t h = 5381;

	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		h = h * 33 + *c;
	return h;
}

bool dynsym_function_end(uintptr_t start, const char *name, uintptr_t *end)
{
	struct holder h = { .address = start };
	const uint32_t *table = NULL;
	const ElfW(Sym) *symbols = NULL;
	const char *strings = NULL;

	if (!dl_iterate_phdr(find_holder, &h) || !h.dynamic)
		return false;
	for (const ElfW(Dyn) *d = h.dynamic; d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_GNU_HASH)
			table = (const uint32_t *)dynamic_address(&h,
								  d->d_un.d_ptr);
		else if (d->d_tag == DT_SYMTAB)
			symbols = (const ElfW(Sym) *)dynamic_address(
				&h, d->d_un.d_ptr);
		else if (d->d_tag == DT_STRTAB)
			strings = (const char *)dynamic_address(&h,
								d->d_un.d_ptr);
	}
	if (!table || !symbols || !strings)
		return false;
	/* Header: buckets, first hashed symbol, Bloom filter words (of the
	 * address size), shift; then the filter, the buckets, and a chain
	 * of hashes (the last of each bucket's with its low bit set). */
	uint32_t n_buckets = table[0], first = table[1];
	const ElfW(Addr) *bloom = (const ElfW(Addr) *)(table + 4);
	const uint32_t *buckets = (const uint32_t *)(bloom + table[2]);
	const uint32_t *chain = buckets + n_buckets;
	uint32_t hash = gnu_hash(name);

	if (!n_buckets)
		return false;
	/* Several versions of a symbol share its name: the one at @start. */
	for (uint32_t i = buckets[hash % n_buckets]; i >= first; i++) {
		uint32_t chained = chain[i - first];
		const ElfW(Sym) *s = &symbols[i];
		if ((chained | 1) == (hash | 1) && s->st_shndx != SHN_UNDEF &&
		    h.base + s->st_value == start &&
		    !strcmp(strings + s->st_name, name)) {
			*end = start + (s->st_size ? s->st_size : 1);
			return true;
		}
		if (chained & 1)
			break;
	}
	return false;
}

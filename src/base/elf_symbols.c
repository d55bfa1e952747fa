/*
 * elf_symbols.c - function names from ELF symbol tables (see
 * elf_symbols.h).
 */
#define _GNU_SOURCE
#include "elf_symbols.h"

#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sort.h"
#include "vm.h"

struct symbol {
	uintptr_t start, size;
	const char *name; /* in names */
};

struct elf_symbols {
	size_t n;
	struct symbol *symbols; /* sorted by start */
	size_t symbols_bytes;
	char *names;
	size_t names_bytes;
};

static int by_start(const void *a, const void *b)
{
	const struct symbol *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The section headers of @image, checked to lie within it. */
static const Elf64_Shdr *sections(const unsigned char *image, size_t size,
				  size_t *count)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)image;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > size ||
	    eh->e_shnum > (size - eh->e_shoff) / sizeof(Elf64_Shdr))
		return NULL;
	*count = eh->e_shnum;
	return (const Elf64_Shdr *)(image + eh->e_shoff);
}

/* The symbol table of type @type (SHT_SYMTAB or SHT_DYNSYM), copied out
 * of @image. */
/* A symbol table of @image and its strings, checked to lie within it. */
struct table {
	const Elf64_Sym *sym;
	size_t nsym;
	const char *str;
	size_t str_size;
};

/* The next table of type @type (SHT_SYMTAB or SHT_DYNSYM), looking from
 * section *@next on (which it moves past it); false if there is none. */
static bool next_table(const unsigned char *image, size_t size, unsigned type,
		       size_t *next, struct table *t)
{
	size_t count;
	const Elf64_Shdr *sh = sections(image, size, &count);

	for (size_t i = *next; sh && i < count; i++) {
		if (sh[i].sh_type != type || sh[i].sh_link >= count ||
		    sh[i].sh_offset > size ||
		    sh[i].sh_size > size - sh[i].sh_offset ||
		    sh[i].sh_entsize != sizeof(Elf64_Sym))
			continue;
		const Elf64_Shdr *strtab = &sh[sh[i].sh_link];
		if (strtab->sh_offset > size ||
		    strtab->sh_size > size - strtab->sh_offset)
			continue;
		t->sym = (const Elf64_Sym *)(image + sh[i].sh_offset);
		t->nsym = sh[i].sh_size / sizeof(Elf64_Sym);
		t->str = (const char *)image + strtab->sh_offset;
		t->str_size = strtab->sh_size;
		*next = i + 1;
		return true;
	}
	return false;
}

/* Is @sym a function that can be named? */
static bool named_function(const struct table *t, const Elf64_Sym *sym)
{
	unsigned kind = ELF64_ST_TYPE(sym->st_info);

	return (kind == STT_FUNC || kind == STT_GNU_IFUNC) && sym->st_value &&
	       sym->st_shndx != SHN_UNDEF && sym->st_name < t->str_size;
}

static struct elf_symbols *read_table(const unsigned char *image, size_t size,
				      unsigned type)
{
	struct table t;
	size_t next = 0;

	while (next_table(image, size, type, &next, &t)) {
		const Elf64_Sym *sym = t.sym;
		size_t nsym = t.nsym;
		const char *str = t.str;
		struct elf_symbols *s = vm_alloc(sizeof(*s));
		if (!s)
			return NULL;
		s->symbols_bytes = (nsym + 1) * sizeof(struct symbol);
		s->names_bytes = t.str_size + 1;
		s->symbols = vm_alloc(s->symbols_bytes);
		s->names = vm_alloc(s->names_bytes);
		if (!s->symbols || !s->names) {
			elf_symbols_free(s);
			return NULL;
		}
		memcpy(s->names, str, t.str_size);
		for (size_t k = 0; k < nsym; k++) {
			if (!named_function(&t, &sym[k]))
				continue;
			s->symbols[s->n++] = (struct symbol){
				sym[k].st_value, sym[k].st_size,
				s->names + sym[k].st_name
			};
		}
		if (!s->n) {
			elf_symbols_free(s);
			continue;
		}
		sort_in_place(s->symbols, s->n, sizeof(*s->symbols), by_start);
		return s;
	}
	return NULL;
}

/* The file at @path mapped read-only: its address and *@size, or NULL. */
static const unsigned char *map_file(const char *path, size_t *size)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *image = MAP_FAILED;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		*size = (size_t)st.st_size;
		image = mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0);
	}
	close(fd);
	return image == MAP_FAILED ? NULL : image;
}

struct elf_symbols *elf_symbols_load(const char *path)
{
	size_t size;
	const unsigned char *image = map_file(path, &size);
	struct elf_symbols *s;

	if (!image)
		return NULL;
	s = read_table(image, size, SHT_SYMTAB);
	if (!s)
		s = read_table(image, size, SHT_DYNSYM);
	munmap((void *)image, size);
	return s;
}

/* The first of the @n ascending @addrs at or after @value. */
static size_t first_at_or_after(const uint64_t *addrs, size_t n,
				uint64_t value)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (addrs[mid] < value)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Name @addrs from table @t; false if it has no function at all.  Which
 * symbol elf_symbols_find gives an address: the one starting last at or
 * before it.  First pass: each symbol offers its start to the first
 * address at or after it, and a running maximum carries the best start
 * to the addresses after (any symbol starting at or before an address
 * offers its start to that address or to one before it).  Second pass:
 * the symbols with that start, for the run of addresses whose best it
 * is; of several (aliases), one that contains the address.
 */
static bool name_from_table(const struct table *t, const uint64_t *addrs,
			    size_t n, uint64_t *best, const Elf64_Sym **chosen,
			    elf_symbols_named *named, void *ctx)
{
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		best[i] = 0;
		chosen[i] = NULL;
	}
	for (size_t k = 0; k < t->nsym; k++) {
		const Elf64_Sym *sym = &t->sym[k];
		if (!named_function(t, sym))
			continue;
		any = true;
		size_t i = first_at_or_after(addrs, n, sym->st_value);
		if (i < n && sym->st_value > best[i])
			best[i] = sym->st_value;
	}
	if (!any)
		return false;
	for (size_t i = 1; i < n; i++)
		if (best[i - 1] > best[i])
			best[i] = best[i - 1];
	for (size_t k = 0; k < t->nsym; k++) {
		const Elf64_Sym *sym = &t->sym[k];
		if (!named_function(t, sym))
			continue;
		uint64_t start = sym->st_value;
		for (size_t i = first_at_or_after(addrs, n, start);
		     i < n && best[i] == start; i++)
			if (!chosen[i] || (chosen[i]->st_size &&
					   addrs[i] >= start + chosen[i]->st_size))
				chosen[i] = sym;
	}
	for (size_t i = 0; i < n; i++) {
		const Elf64_Sym *sym = chosen[i];
		if (!sym ||
		    (sym->st_size && addrs[i] >= sym->st_value + sym->st_size))
			continue;
		const char *name = t->str + sym->st_name;
		/* A name must end inside its table. */
		if (!memchr(name, '\0', t->str_size - sym->st_name))
			continue;
		named(ctx, i, name, addrs[i] - sym->st_value);
	}
	return true;
}

int elf_symbols_name(const char *path, const uint64_t *addrs, size_t n,
		     elf_symbols_named *named, void *ctx)
{
	static const unsigned types[] = { SHT_SYMTAB, SHT_DYNSYM };
	size_t size, scratch_bytes = n * (sizeof(uint64_t) + sizeof(void *));
	const unsigned char *image;

	if (!n)
		return 0;
	image = map_file(path, &size);
	if (!image)
		return -ENOENT;
	uint64_t *best = vm_alloc(scratch_bytes);
	if (!best) {
		munmap((void *)image, size);
		return -ENOMEM;
	}
	const Elf64_Sym **chosen = (const Elf64_Sym **)(best + n);
	/* The first table with a function in it, .symtab before .dynsym,
	 * as elf_symbols_load takes it. */
	bool done = false;
	for (size_t k = 0; k < 2 && !done; k++) {
		struct table t;
		size_t next = 0;
		while (!done && next_table(image, size, types[k], &next, &t))
			done = name_from_table(&t, addrs, n, best, chosen,
					       named, ctx);
	}
	vm_free(best, scratch_bytes);
	munmap((void *)image, size);
	return 0;
}

void elf_symbols_free(struct elf_symbols *s)
{
	if (!s)
		return;
	vm_free(s->symbols, s->symbols_bytes);
	vm_free(s->names, s->names_bytes);
	vm_free(s, sizeof(*s));
}

const char *elf_symbols_find(const struct elf_symbols *s, uintptr_t addr,
			     uintptr_t *offset)
{
	size_t lo = 0, hi;

	if (!s)
		return NULL;
	hi = s->n;
	/* The last symbol starting at or before addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->symbols[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct symbol *sym = &s->symbols[lo - 1];
	/* A sized symbol must contain the address; an unsized one (hand
	 * written assembly) is taken if it is the nearest. */
	if (sym->size && addr >= sym->start + sym->size)
		return NULL;
	*offset = addr - sym->start;
	return sym->name;
}

/*
 * elf_symbols.c - function names from ELF symbol tables (see
 * elf_symbols.h).
 */
#define _GNU_SOURCE
#include "elf_symbols.h"

#include <elf.h>
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
static struct elf_symbols *read_table(const unsigned char *image, size_t size,
				      unsigned type)
{
	size_t count;
	const Elf64_Shdr *sh = sections(image, size, &count);

	for (size_t i = 0; sh && i < count; i++) {
		if (sh[i].sh_type != type || sh[i].sh_link >= count ||
		    sh[i].sh_offset > size ||
		    sh[i].sh_size > size - sh[i].sh_offset ||
		    sh[i].sh_entsize != sizeof(Elf64_Sym))
			continue;
		const Elf64_Shdr *strtab = &sh[sh[i].sh_link];
		if (strtab->sh_offset > size ||
		    strtab->sh_size > size - strtab->sh_offset)
			continue;
		const Elf64_Sym *sym =
			(const Elf64_Sym *)(image + sh[i].sh_offset);
		size_t nsym = sh[i].sh_size / sizeof(Elf64_Sym);
		const char *str = (const char *)image + strtab->sh_offset;
		struct elf_symbols *s = vm_alloc(sizeof(*s));
		if (!s)
			return NULL;
		s->symbols_bytes = (nsym + 1) * sizeof(struct symbol);
		s->names_bytes = strtab->sh_size + 1;
		s->symbols = vm_alloc(s->symbols_bytes);
		s->names = vm_alloc(s->names_bytes);
		if (!s->symbols || !s->names) {
			elf_symbols_free(s);
			return NULL;
		}
		memcpy(s->names, str, strtab->sh_size);
		for (size_t k = 0; k < nsym; k++) {
			unsigned kind = ELF64_ST_TYPE(sym[k].st_info);
			if ((kind != STT_FUNC && kind != STT_GNU_IFUNC) ||
			    !sym[k].st_value || sym[k].st_shndx == SHN_UNDEF ||
			    sym[k].st_name >= strtab->sh_size)
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

struct elf_symbols *elf_symbols_load(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct elf_symbols *s = NULL;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		size_t size = (size_t)st.st_size;
		void *image = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (image != MAP_FAILED) {
			s = read_table(image, size, SHT_SYMTAB);
			if (!s)
				s = read_table(image, size, SHT_DYNSYM);
			munmap(image, size);
		}
	}
	close(fd);
	return s;
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

/* element_standin.c - the library of element_standin.h: a flag, and a
 * function that does nothing (never called: the flag stays 0). */
#include <stddef.h>

__thread int standin_flag __attribute__((tls_model("initial-exec")));

int standin_call(const void *addr, size_t size)
{
	(void)addr;
	(void)size;
	return 0;
}

/*
 * fortify_shim.c - the glibc _FORTIFY_SOURCE entry points that Debian's
 * libbearssl.a calls, for the static musl build only (see bearssl.mk).
 *
 * The contract is glibc's: the compiler passed the destination object's
 * size (dlen); an operation that would write past it is a memory-safety
 * bug, so the process aborts rather than corrupt memory.
 */
#include <stdlib.h>
#include <string.h>

void *__memcpy_chk(void *, const void *, size_t, size_t);
void *__memmove_chk(void *, const void *, size_t, size_t);
void *__memset_chk(void *, int, size_t, size_t);

void *
__memcpy_chk(void *d, const void *s, size_t n, size_t dlen)
{
	if (n > dlen)
		abort();
	return memcpy(d, s, n);
}

void *
__memmove_chk(void *d, const void *s, size_t n, size_t dlen)
{
	if (n > dlen)
		abort();
	return memmove(d, s, n);
}

void *
__memset_chk(void *d, int c, size_t n, size_t dlen)
{
	if (n > dlen)
		abort();
	return memset(d, c, n);
}

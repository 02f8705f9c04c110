/*
 * fuzz_cpname - the name check box cp's reader applies to every name a
 * box's tar stream sends (box/import/cp.h): a name it accepts is relative, holds
 * no "." or ".." component and no control byte, and is bounded.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "box/import/cp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	const char *p;

	if (s == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (cp_name_ok(s) == 0) {
		if (s[0] == '/' || strlen(s) >= 4096)
			abort();
		for (p = s; *p != '\0'; p++)
			if ((unsigned char)*p < 0x20)
				abort();
		for (p = s; p != NULL; p = strchr(p, '/') ? strchr(p, '/') + 1 :
		    NULL) {
			size_t k = strcspn(p, "/");

			if ((k == 1 && p[0] == '.') || (k == 2 && p[0] == '.' &&
			    p[1] == '.') || (k == 0 && p[0] != '\0'))
				abort();
		}
	}
	free(s);
	return 0;
}

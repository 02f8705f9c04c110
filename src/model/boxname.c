/*
 * boxname.c - the rule for a box's name (see boxname.h).
 */
#include "model/boxname.h"

#include <string.h>

int
box_name_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > 63 || s[0] == '-' || (s[0] >= '0' && s[0] <= '9') ||
	    s[n - 1] == '-')
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return 0;
	return 1;
}

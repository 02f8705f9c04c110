/*
 * fuzz_config - the config files' parser (box/conf.h) over any bytes,
 * and the idle mark and duration readers (box/life/idle.h) over the same.
 * What the parser accepts is checked independently: every value it keeps
 * is non-empty, under CONF_VALUE_MAX, free of control bytes, and appears
 * in the input; a refusal always names its line ("<label>:<n>:") or the
 * file.  A mark accepted is ordered (last <= at, none
 * negative); a duration accepted is 1 s to a year.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/conf.h"
#include "box/life/idle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conf_file f;
	struct idle_mark m;
	struct box_err e;
	char *s, why[80];
	long secs;
	size_t i, n;
	int k;

	err_clear(&e);
	if (conf_parse("f", (const char *)data, size, &f, &e) == 0) {
		for (k = 0; k < CONF_N; k++) {
			if (f.v[k] == NULL)
				continue;
			n = strlen(f.v[k]);
			if (n == 0 || n >= CONF_VALUE_MAX)
				abort();
			for (i = 0; i < n; i++)
				if ((unsigned char)f.v[k][i] < 0x20 ||
				    f.v[k][i] == 0x7f)
					abort();
			if (memmem(data, size, f.v[k], n) == NULL)
				abort();
			if (f.line[k] < 1)
				abort();
		}
		conf_free(&f);
	} else if (strncmp(e.msg, "f:", 2) != 0)
		abort();
	if ((s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (idle_mark_parse(s, &m) == 0) {
		if (m.at < m.last || m.last < 0 || m.cpu_ns < 0)
			abort();
		
	}
	if (idle_duration(s, &secs, why, sizeof(why)) == 0 &&
	    (secs < 1 || secs > IDLE_MAX_S))
		abort();
	free(s);
	return 0;
}

/*
 * fuzz_guard - what the guard reads from outside: the kernel's multicast
 * notifications (net/nlmon.h, nlmon_add: anything a netlink peer could
 * send), its own log's lines (guard_event_parse: a root-owned file,
 * still read as hostile) and a daemon's argv file (sysd_argv_parse).  Counts must stay consistent and every string
 * terminated.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/guard/guard.h"
#include "host/stack/sysd.h"
#include "net/nlmon.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nlmon_sum s;
	struct guard_event ev;
	char *argv[SYSD_ARGMAX], *copy;
	int r, i;

	memset(&s, 0, sizeof(s));
	r = nlmon_add(data, size, "box", &s);
	if (r < -4096 || (r >= 0 && (unsigned)r < s.nft + s.links))
		abort();
	if (s.nft_box > s.nft || s.brports > s.links ||
	    memchr(s.proc_name, 0, sizeof(s.proc_name)) == NULL ||
	    memchr(s.foreign_table, 0, sizeof(s.foreign_table)) == NULL)
		abort();
	if (guard_event_parse((const char *)data, size, &ev) == 1 &&
	    (memchr(ev.what, 0, sizeof(ev.what)) == NULL ||
	    memchr(ev.by, 0, sizeof(ev.by)) == NULL || ev.at < 0))
		abort();
	/* a daemon's argv file: every argument inside the copy, non-empty */
	if ((copy = malloc(size + 1)) == NULL)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	r = sysd_argv_parse(copy, size, argv, SYSD_ARGMAX);
	for (i = 0; i < r; i++)
		if (argv[i] < copy || argv[i] >= copy + size ||
		    argv[i][0] == '\0')
			abort();
	if (r > 0 && (argv[r] != NULL || argv[0][0] != '/'))
		abort();
	free(copy);
	return 0;
}

/*
 * idmap.h - the id map Incus keeps, as JSON, inside an instance's
 * volatile.idmap.next, volatile.idmap.current and volatile.last_state.idmap
 * config values (Incus's idmap.IdmapEntry: Isuid, Isgid, Hostid, Nsid,
 * Maprange).  Only the reading is here; what a box may be mapped onto is
 * box/life/vet.c's to judge.
 */
#ifndef BOX_INCUS_IDMAP_H
#define BOX_INCUS_IDMAP_H

#include <stddef.h>

#define INCUS_IDMAP_MAX	16	/* more entries than any box's map: refused */

struct incus_idmap {
	int isuid, isgid;		/* 0 or 1 */
	long long hostid, nsid, maprange;	/* as written; may be negative */
};

/*
 * Parse value (a NUL-terminated config value) into v[0..*n).  Strict, as
 * a vet needs: the value must be one JSON array of at most
 * min(cap, INCUS_IDMAP_MAX) objects, each with exactly the five members
 * above, each once, spelled exactly so, Isuid/Isgid booleans and the rest
 * integers.  0, or -EBOX_PROTO (nothing kept: *n is 0) when it is not
 * exactly that; -ENOMEM.
 */
int incus_idmap_parse(const char *value, struct incus_idmap *v, size_t cap,
    size_t *n);

#endif

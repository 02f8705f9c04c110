/*
 * where.h - where a running box is on its network, from the records Incus
 * and dnsmasq keep on the host (box/lease.h), one instance object at a time
 * (an instance read without its state is enough: no runtime state needed).
 * Each network's files are read once per run.
 */
#ifndef BOX_WHERE_H
#define BOX_WHERE_H

#include <stddef.h>

#include "box/lease.h"
#include "incus/instance.h"
#include "incus/json.h"

#define WHERE_MAX_NETS 8

struct box_where {
	int n;
	struct {
		char net[64];
		int rc;			/* 0 read, or -errno */
		long long secs;		/* lease time */
		struct leases l;
	} net[WHERE_MAX_NETS];
};

void where_init(struct box_where *w);
void where_free(struct box_where *w);

/*
 * The address of instance inst: 1 and addr (dotted quad) when it is known
 * to be right; 0 with why when none can be shown (not running, no lease
 * yet, a lease that does not match); < 0 with why when the host's records
 * cannot answer (unreadable, not a managed network): ask the daemon.
 */
int where_address(struct box_where *w, const struct incus_instance *inst,
    char *addr, size_t cap, char *why, size_t wcap);

#endif

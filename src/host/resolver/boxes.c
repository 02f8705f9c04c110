/*
 * boxes.c - the resolver's box table, from the daemon and the network's
 * own records (see resolver.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/egress/egress_sync.h"
#include "box/lease.h"
#include "host/resolver/resolver.h"
#include "host/stack/contract.h"
#include "incus/api.h"

int
rsv_gather(const char *bridge, struct rsv_box **out, size_t *n,
    struct box_err *e)
{
	struct egfw_box *b = NULL;
	struct rsv_box *v = NULL;
	struct leases l = { NULL, 0 };
	struct incus c;
	size_t nb = 0, i, k = 0;
	int rc, haveleases = 0, j;

	*out = NULL;
	*n = 0;
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	rc = egress_gather(&c, &b, &nb, NULL, e);
	incus_close(&c);
	if (rc < 0)
		return rc;
	if ((v = calloc(nb > 0 ? nb : 1, sizeof(*v))) == NULL) {
		free(b);
		return err_set(e, -ENOMEM, "out of memory");
	}
	for (i = 0; i < nb; i++) {
		struct lease_pin pin;
		uint32_t addr = 0;

		if (!b[i].has_mac)
			continue;
		if (lease_read_pin(bridge, b[i].name, CONTRACT_NIC, b[i].mac,
		    &pin) == 0 && pin.state == 1) {
			addr = pin.addr;
		} else if (pin.state == 0) {
			/* No pin: the lease its MAC holds, when exactly
			 * one does (never a guess between two). */
			if (!haveleases)
				haveleases = lease_read(bridge, &l) == 0 ? 1 :
				    -1;
			for (j = 0; haveleases > 0 && j < l.n; j++)
				if (memcmp(l.v[j].mac, b[i].mac, 6) == 0)
					addr = addr == 0 ? l.v[j].addr :
					    0xffffffffu;
			if (addr == 0xffffffffu)
				addr = 0;
		}
		if (addr == 0)
			continue;
		snprintf(v[k].name, sizeof(v[k].name), "%s", b[i].name);
		memcpy(v[k].mac, b[i].mac, 6);
		v[k].addr = addr;
		v[k].pol = b[i].pol;
		k++;
	}
	lease_free(&l);
	free(b);
	*out = v;
	*n = k;
	return 0;
}

/* bridge.c - the box network's bridge, read (see bridge.h). */
#include "box/bridge.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/names.h"

int
bridge_get(struct incus *c, struct incus_network *n, struct box_err *e)
{
	int rc = incus_network_get(c, CONTRACT_BRIDGE, n, e);

	if (rc == -ENOENT) {
		err_clear(e);
		return 0;
	}
	return rc < 0 ? rc : 1;
}

int
bridge_net(struct incus *c, uint32_t *net, struct box_err *e)
{
	struct incus_network n;
	unsigned a, b, d, x;
	int rc;

	*net = 0;
	rc = bridge_get(c, &n, e);
	if (rc <= 0)
		return rc;
	if (sscanf(incus_kv_or(&n.config, "ipv4.address", ""),
	    "%u.%u.%u.%u/", &a, &b, &d, &x) == 4 && a < 256 && b < 256 &&
	    d < 256)
		*net = a << 24 | b << 16 | d << 8;
	incus_network_free(&n);
	return 1;
}

uint32_t
bridge_name_server(struct incus *c, uint32_t net)
{
	struct incus_network n;
	struct box_err e;
	const char *raw, *p;
	unsigned a, b, d, x;
	uint32_t up = 0;
	int own = 0;

	if (net == 0)
		return 0;
	err_clear(&e);
	if (bridge_get(c, &n, &e) <= 0)
		return net | 1;
	raw = incus_kv_or(&n.config, "raw.dnsmasq", "");
	for (p = raw; *p != '\0'; p += strcspn(p, "\n"), p += *p == '\n') {
		if (strncmp(p, "port=0", 6) == 0 && (p[6] == '\n' ||
		    p[6] == '\0'))
			own = 1;
		else if (up == 0 && strncmp(p, "server=", 7) == 0 &&
		    sscanf(p + 7, "%3u.%3u.%3u.%3u", &a, &b, &d, &x) == 4 &&
		    a < 256 && b < 256 && d < 256 && x < 256)
			up = a << 24 | b << 16 | d << 8 | x;
	}
	incus_network_free(&n);
	return own ? up : net | 1;
}

int
bridge_patch_dnsmasq(struct incus *c, const char *raw,
    struct box_err *e)
{
	struct incus_kvs cfg = { 0 };
	int rc = incus_kv_set(&cfg, "raw.dnsmasq", raw);

	if (rc < 0)
		return err_set(e, rc, "out of memory");
	rc = incus_network_patch(c, CONTRACT_BRIDGE, &cfg, e);
	incus_kv_free(&cfg);
	return rc;
}

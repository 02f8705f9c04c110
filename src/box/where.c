/*
 * where.c - see where.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "box/where.h"
#include "box/box.h"
#include "box/remote/remote.h"
#include "model/ip4text.h"
#include "model/mac.h"

void
where_init(struct box_where *w)
{
	memset(w, 0, sizeof(*w));
}

void
where_free(struct box_where *w)
{
	int i;

	for (i = 0; i < w->n; i++)
		lease_free(&w->net[i].l);
	w->n = 0;
}

/* net's records, read on first use; NULL (why set) when unreadable. */
static int
net_get(struct box_where *w, const char *net, int *slot, char *why,
    size_t wcap)
{
	char path[512];
	int i, rc;

	for (i = 0; i < w->n; i++)
		if (strcmp(w->net[i].net, net) == 0)
			break;
	if (i == w->n) {
		if (w->n == WHERE_MAX_NETS || strlen(net) >= sizeof(w->net[0].net)) {
			snprintf(why, wcap, "boxes on more than %d networks",
			    WHERE_MAX_NETS);
			return -E2BIG;
		}
		snprintf(w->net[i].net, sizeof(w->net[i].net), "%s", net);
		rc = lease_read(net, &w->net[i].l);
		if (rc == 0)
			rc = lease_read_time(net, &w->net[i].secs);
		w->net[i].rc = rc;
		w->n++;
	}
	rc = w->net[i].rc;
	if (rc < 0) {
		lease_path(net, "", path, sizeof(path));
		snprintf(why, wcap, "the DHCP records of network %s (%s) are "
		    "unreadable: %s", net, path, strerror(-rc));
		return rc;
	}
	if (w->net[i].secs == 0) {
		snprintf(why, wcap, "network %s grants leases that never "
		    "expire, so a lease's age is unknown", net);
		return -ENOTSUP;
	}
	*slot = i;
	return 0;
}

/* One NIC: 1, 0 or < 0 as where_address(). */
static int
nic_address(struct box_where *w, const struct incus_instance *in,
    const char *dev, const struct incus_kvs *nic, long long started,
    char *addr, size_t cap, char *why, size_t wcap)
{
	const char *net = incus_kv_get(nic, "network"), *hw;
	char key[96], name[80];
	unsigned char mac[6];
	struct lease_pin pin;
	uint32_t a;
	int slot, rc;

	if (net == NULL) {
		snprintf(why, wcap, "its NIC %s is not on an Incus-managed "
		    "network", dev);
		return -ENOTSUP;
	}
	snprintf(key, sizeof(key), "volatile.%s.hwaddr", dev);
	hw = incus_kv_get(&in->config, key);
	if (hw == NULL || strlen(hw) >= 32 || mac_parse(hw, mac) < 0) {
		snprintf(why, wcap, "its NIC %s has no MAC recorded (%s)", dev,
		    key);
		return 0;
	}
	rc = net_get(w, net, &slot, why, wcap);
	if (rc < 0)
		return rc;
	/* Incus names the pin <project>_<instance> outside the default. */
	if (in->project[0] == '\0' || strcmp(in->project, "default") == 0)
		snprintf(name, sizeof(name), "%s", in->name);
	else
		snprintf(name, sizeof(name), "%.39s_%.39s", in->project,
		    in->name);
	rc = lease_read_pin(net, name, dev, mac, &pin);
	if (rc == -EINVAL) {
		/* Incus rewrites the file in place: caught mid-write. */
		snprintf(why, wcap, "the address Incus pinned for it is being "
		    "rewritten");
		return 0;
	}
	if (rc < 0) {
		snprintf(why, wcap, "the address Incus pinned for %s.%s is "
		    "unreadable: %s", name, dev, strerror(-rc));
		return rc;
	}
	rc = lease_judge(&w->net[slot].l, mac, started, w->net[slot].secs,
	    &pin, &a, why, wcap);
	if (rc == 1)
		ip4_fmt(a, addr, cap);
	return rc;
}

int
where_address(struct box_where *w, const struct incus_instance *in,
    char *addr, size_t cap, char *why, size_t wcap)
{
	char first[256] = "";
	long long started;
	size_t k;
	int rc, best = 0;

	snprintf(addr, cap, "-");
	why[0] = '\0';
	if (!box_runs(in)) {
		snprintf(why, wcap, "it is not running");
		return 0;
	}
	if (remote_active()) {
		/* the DHCP records are files on the daemon's host */
		snprintf(why, wcap, "the DHCP records are on the remote host");
		return -EREMOTE;
	}
	/* Incus stamps last_used_at when the instance starts. */
	if (lease_iso_time(in->last_used_at, &started) < 0)
		started = LLONG_MAX;
	for (k = 0; k < in->expanded_devices.n; k++) {
		const struct incus_device *dev = &in->expanded_devices.v[k];

		if (strcmp(incus_kv_or(&dev->kv, "type", ""), "nic") != 0 ||
		    strlen(dev->name) >= 64)
			continue;
		rc = nic_address(w, in, dev->name, &dev->kv, started, addr,
		    cap, why, wcap);
		if (rc == 1)
			return 1;
		if (rc < 0)
			return rc;
		if (first[0] == '\0')
			snprintf(first, sizeof(first), "%s", why);
		best = 0;
	}
	snprintf(addr, cap, "-");
	snprintf(why, wcap, "%s", first[0] ? first : "it has no NIC");
	return best;
}

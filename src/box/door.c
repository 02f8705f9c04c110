/*
 * door.c - exposures (see door.h).
 */
#include "box/door.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/life.h"
#include "incus/acl.h"
#include "util/text.h"

int
door_port(const char *s)
{
	long v;

	return text_uint(s, 1, 65535, &v) == 0 ? (int)v : -1;
}

/* Set each key, value pair of kv (NULL-ended) in out. */
static int
door_kv_set(struct incus_kvs *out, const char *const *kv)
{
	int rc = 0;

	for (; rc == 0 && kv[0] != NULL; kv += 2)
		rc = incus_kv_set(out, kv[0], kv[1]);
	return rc;
}

int
door_device_kv(int vm, const char *ip, int port, int hport,
    struct incus_kvs *out)
{
	char listen[32], connect[96];
	const char *kv[] = { "type", "proxy", "listen", listen, "connect",
	    connect, "bind", "host", vm ? "nat" : NULL, "true", NULL };
	int n;

	snprintf(listen, sizeof(listen), "tcp:127.0.0.1:%d", hport);
	n = vm ? snprintf(connect, sizeof(connect), "tcp:%s:%d", ip, port) :
	    snprintf(connect, sizeof(connect), "tcp:127.0.0.1:%d", port);
	if (n < 0 || (size_t)n >= sizeof(connect))
		return -ENOSPC;
	incus_kv_free(out);
	return door_kv_set(out, kv);
}

int
door_connect_parse(const char *connect, char *ip, size_t cap, int *port)
{
	const char *colon;
	size_t n;

	if (strncmp(connect, "tcp:", 4) != 0)
		return -EINVAL;
	connect += 4;
	colon = strrchr(connect, ':');
	if (colon == NULL)
		return -EINVAL;
	n = (size_t)(colon - connect);
	if (n == 0 || n >= cap || (*port = door_port(colon + 1)) < 0)
		return -EINVAL;
	memcpy(ip, connect, n);
	ip[n] = '\0';
	return 0;
}

/* Is rule r the door rule for dest ("ip/32") and port? */
static int
is_door_rule(const struct incus_acl_rule *r, const char *dest,
    const char *port)
{
	return r->action != NULL && strcmp(r->action, "allow") == 0 &&
	    r->destination != NULL && strcmp(r->destination, dest) == 0 &&
	    r->destination_port != NULL &&
	    strcmp(r->destination_port, port) == 0 &&
	    r->protocol != NULL && strcmp(r->protocol, "tcp") == 0;
}

int
door_acl(struct incus *c, const char *ip, int port, int add,
    struct box_err *e)
{
	struct incus_acl a;
	struct box_err le;
	char dest[64], ps[8];
	size_t i;
	int rc, found = 0;

	snprintf(dest, sizeof(dest), "%s/32", ip);
	snprintf(ps, sizeof(ps), "%d", port);
	err_clear(&le);
	rc = incus_acl_get(c, CONTRACT_ACL, &a, &le);
	if (rc == -ENOENT)
		return -ENOENT;
	if (rc < 0) {
		*e = le;
		return rc;
	}
	for (i = a.ingress.n; i-- > 0;)
		if (is_door_rule(&a.ingress.v[i], dest, ps)) {
			found = 1;
			if (!add)
				incus_acl_rule_del(&a.ingress, i);
		}
	if (add && !found) {
		struct incus_acl_rule r = {
			.action = "allow", .destination = dest,
			.destination_port = ps, .protocol = "tcp",
			.state = "enabled", .description = "box expose",
		};

		if ((rc = incus_acl_rule_add(&a.ingress, &r)) < 0) {
			incus_acl_free(&a);
			return err_set(e, rc, "out of memory");
		}
	}
	/* Everything else (description, egress, config) goes back as read. */
	rc = found == add ? 0 : incus_acl_put(c, CONTRACT_ACL, &a, e);
	incus_acl_free(&a);
	return rc;
}

int
door_forget(struct incus *c, const struct incus_devices *devs)
{
	size_t i;
	int n = 0, port;

	for (i = 0; i < devs->n; i++) {
		const struct incus_kvs *dev = &devs->v[i].kv;
		const char *connect = incus_kv_or(dev, "connect", "");
		const char *nat = incus_kv_or(dev, "nat", "");
		char ip[64];
		struct box_err le;

		if (strncmp(devs->v[i].name, DOOR_PREFIX,
		    strlen(DOOR_PREFIX)) != 0 || strcmp(nat, "true") != 0 ||
		    door_connect_parse(connect, ip, sizeof(ip), &port) < 0)
			continue;
		err_clear(&le);
		if (door_acl(c, ip, port, 0, &le) == 0)
			n++;
	}
	return n;
}

int
door_source_only(const char *name, const struct incus_kvs *dev)
{
	if (strncmp(name, DOOR_PREFIX, strlen(DOOR_PREFIX)) == 0)
		return 1;
	return strcmp(incus_kv_or(dev, "type", ""), "nic") == 0 &&
	    incus_kv_get(dev, "ipv4.address") != NULL;
}

int
door_source_key(const char *key)
{
	return strcmp(key, DOOR_PIN_KEY) == 0;
}

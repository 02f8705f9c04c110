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

int
door_device_json(int vm, const char *ip, int port, int hport, char *buf,
    size_t cap)
{
	int n;

	if (vm)
		n = snprintf(buf, cap, "{\"type\":\"proxy\",\"listen\":"
		    "\"tcp:127.0.0.1:%d\",\"connect\":\"tcp:%s:%d\","
		    "\"bind\":\"host\",\"nat\":\"true\"}", hport, ip, port);
	else
		n = snprintf(buf, cap, "{\"type\":\"proxy\",\"listen\":"
		    "\"tcp:127.0.0.1:%d\",\"connect\":\"tcp:127.0.0.1:%d\","
		    "\"bind\":\"host\"}", hport, port);
	return n > 0 && (size_t)n < cap ? 0 : -ENOSPC;
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
	rc = incus_acl_get(c, LIFE_ACL, &a, &le);
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
	rc = found == add ? 0 : incus_acl_put(c, LIFE_ACL, &a, e);
	incus_acl_free(&a);
	return rc;
}

int
door_forget(struct incus *c, const struct json_doc *d, int inst)
{
	int devs = json_get(d, inst, "devices"), k, n = 0;

	for (k = json_child(d, devs); k >= 0; k = json_next(d, json_next(d, k))) {
		int dev = json_next(d, k), port;
		char name[64], connect[128], ip[64];
		struct box_err le;

		if (json_str(d, k, name, sizeof(name)) < 0 ||
		    strncmp(name, DOOR_PREFIX, strlen(DOOR_PREFIX)) != 0 ||
		    !json_streq(d, json_get(d, dev, "nat"), "true") ||
		    json_gets(d, dev, "connect", connect, sizeof(connect),
		    NULL) == NULL ||
		    door_connect_parse(connect, ip, sizeof(ip), &port) < 0)
			continue;
		err_clear(&le);
		if (door_acl(c, ip, port, 0, &le) == 0)
			n++;
	}
	return n;
}

int
door_source_only(const char *name, const struct json_doc *d, int dev)
{
	if (strncmp(name, DOOR_PREFIX, strlen(DOOR_PREFIX)) == 0)
		return 1;
	return json_streq(d, json_get(d, dev, "type"), "nic") &&
	    json_get(d, dev, "ipv4.address") >= 0;
}

int
door_source_key(const char *key)
{
	return strcmp(key, DOOR_PIN_KEY) == 0;
}

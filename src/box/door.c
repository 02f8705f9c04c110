/*
 * door.c - exposures (see door.h).
 */
#include "box/door.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/life.h"
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
is_door_rule(const struct json_doc *d, int r, const char *dest,
    const char *port)
{
	return json_streq(d, json_get(d, r, "action"), "allow") &&
	    json_streq(d, json_get(d, r, "destination"), dest) &&
	    json_streq(d, json_get(d, r, "destination_port"), port) &&
	    json_streq(d, json_get(d, r, "protocol"), "tcp");
}

static void
copy_member(struct json_w *w, const struct json_doc *d, int obj,
    const char *key)
{
	int v = json_get(d, obj, key);
	size_t n;
	const char *raw;

	if (v < 0)
		return;
	raw = json_raw(d, v, &n);
	json_w_key(w, key);
	json_w_raw(w, raw, n);
}

int
door_acl(struct incus *c, const char *ip, int port, int add,
    struct box_err *e)
{
	struct incus_reply r;
	struct box_err le;
	struct json_w w;
	char dest[64], ps[8], *body;
	int rc, in, rule, found = 0;

	snprintf(dest, sizeof(dest), "%s/32", ip);
	snprintf(ps, sizeof(ps), "%d", port);
	err_clear(&le);
	rc = incus_call(c, "GET", "/1.0/network-acls/" LIFE_ACL, NULL, &r,
	    &le);
	if (rc == -ENOENT) {
		incus_reply_free(&r);
		return -ENOENT;
	}
	if (rc < 0) {
		incus_reply_free(&r);
		*e = le;
		return rc;
	}
	in = json_get(&r.doc, r.metadata, "ingress");
	json_w_init(&w, INCUS_MAX_BODY);
	json_w_obj(&w);
	copy_member(&w, &r.doc, r.metadata, "description");
	copy_member(&w, &r.doc, r.metadata, "egress");
	copy_member(&w, &r.doc, r.metadata, "config");
	json_w_key(&w, "ingress");
	json_w_arr(&w);
	for (rule = json_child(&r.doc, in); rule >= 0;
	    rule = json_next(&r.doc, rule)) {
		size_t n;
		const char *raw;

		if (is_door_rule(&r.doc, rule, dest, ps)) {
			found = 1;
			if (!add)
				continue;
		}
		raw = json_raw(&r.doc, rule, &n);
		json_w_raw(&w, raw, n);
	}
	if (add && !found) {
		json_w_obj(&w);
		json_w_key(&w, "action");
		json_w_str(&w, "allow");
		json_w_key(&w, "destination");
		json_w_str(&w, dest);
		json_w_key(&w, "destination_port");
		json_w_str(&w, ps);
		json_w_key(&w, "protocol");
		json_w_str(&w, "tcp");
		json_w_key(&w, "state");
		json_w_str(&w, "enabled");
		json_w_key(&w, "description");
		json_w_str(&w, "box expose");
		json_w_end(&w, '}');
	}
	json_w_end(&w, ']');
	json_w_end(&w, '}');
	incus_reply_free(&r);
	if (json_w_finish(&w, &body, NULL) < 0)
		return err_set(e, -ENOMEM, "out of memory");
	if (found == add) {	/* nothing to change */
		free(body);
		return 0;
	}
	rc = incus_call(c, "PUT", "/1.0/network-acls/" LIFE_ACL, body, &r, e);
	incus_reply_free(&r);
	free(body);
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

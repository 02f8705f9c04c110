/* shape.c - a box's whole shape (see shape.h). */
#include "host/stack/shape.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "box/door.h"
#include "incus/instance.h"
#include "incus/kv.h"
#include "model/profile.h"
#include "util/text.h"

/* The profile contract's eth0 and root disk: model/profile.h. */
#define SUMMARY_MAX	120

static void
problem(struct shape_report *s, const char *fmt, ...)
{
	va_list ap;

	if (s->n == SHAPE_MAX) {
		s->more++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(s->what[s->n++], SHAPE_TEXT, fmt, ap);
	va_end(ap);
}

/* Append to buf[0..cap) without overflowing. */
static void
cat(char *buf, size_t cap, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 1 >= cap)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, cap - n, fmt, ap);
	va_end(ap);
}

/*
 * A decoded string, whole, truncated to cap (escaped once where it is
 * shown: dr_add, the error printer).  Returns -1 when it was cut (no
 * verdict may rest on a prefix), else 0.
 */
static int
shown(const char *str, char *buf, size_t cap)
{
	/* escaped in the finding (dr_add); cut: the whole would not fit */
	return (size_t)snprintf(buf, cap, "%s", str != NULL ? str : "") < cap ?
	    0 : -1;
}

/* 1 when v is the string want. */
static int
is(const char *v, const char *want)
{
	return v != NULL && strcmp(v, want) == 0;
}

/* "k=v, k=v" of every key of dev but its type, bounded. */
static void
summary(const struct incus_kvs *dev, char *buf, size_t cap)
{
	char k[48], v[64];
	size_t m;

	buf[0] = '\0';
	for (m = 0; m < dev->n; m++) {
		shown(dev->v[m].key, k, sizeof(k));
		if (strcmp(k, "type") == 0)
			continue;
		shown(dev->v[m].value, v, sizeof(v));
		cat(buf, cap, "%s%s=%s", buf[0] ? ", " : "", k, v);
	}
	if (buf[0] == '\0')
		snprintf(buf, cap, "no keys");
}

static const struct contract_key *
find_key(const struct contract_key *t, size_t n, const char *key)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(t[i].key, key) == 0)
			return &t[i];
	return NULL;
}

/*
 * dev's keys against table t: every key present with its value (a map
 * never holds a key twice: the typed layer refuses such a reply), and no
 * other key but those allowed.  Differences into buf.
 */
static void
keys_vs(const struct incus_kvs *dev, const struct contract_key *t,
    size_t nt, const char *pinned, int allow_size, char *buf, size_t cap)
{
	char k[64], v[64];
	const char *x;
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < nt; i++) {
		x = incus_kv_get(dev, t[i].key);
		if (x == NULL)
			cat(buf, cap, "%s%s is missing (%s)", buf[0] ? "; " :
			    "", t[i].key, t[i].why);
		else if (t[i].value != NULL && !is(x, t[i].value)) {
			shown(x, v, sizeof(v));
			cat(buf, cap, "%s%s=%s, not %s (%s)", buf[0] ? "; " :
			    "", t[i].key, v, t[i].value, t[i].why);
		}
	}
	for (i = 0; i < dev->n; i++) {
		const char *key = dev->v[i].key;

		x = dev->v[i].value;
		shown(key, k, sizeof(k));
		if (find_key(t, nt, key) != NULL)
			continue;
		if (pinned != NULL && strcmp(key, "ipv4.address") == 0 &&
		    is(x, pinned))
			continue;	/* a VM door's pinned address */
		if (allow_size && strcmp(key, "size") == 0)
			continue;	/* box sizes a VM's root disk */
		shown(x, v, sizeof(v));
		if (strcmp(key, "security.acls") == 0)
			cat(buf, cap, "%ssecurity.acls=%s on the NIC (ACLs "
			    "belong on the network; a NIC ACL keeps the box "
			    "from starting on kernels without bridge "
			    "conntrack)", buf[0] ? "; " : "", v);
		else
			cat(buf, cap, "%sextra key %s=%s", buf[0] ? "; " : "",
			    k, v);
	}
}

void
shape_nic_kv(const struct incus_kvs *nic, const char *pinned, char *buf,
    size_t cap)
{
	keys_vs(nic, contract_nic_keys, contract_nnic_keys, pinned, 0, buf,
	    cap);
}

void
shape_root_kv(const struct incus_kvs *root, char *buf, size_t cap)
{
	keys_vs(root, contract_root_keys, contract_nroot_keys, NULL, 1, buf,
	    cap);
}

/* "tcp:127.0.0.1:<port>": the port, else -1. */
static int
loopback_port(const char *s)
{
	static const char pre[] = "tcp:127.0.0.1:";

	if (strncmp(s, pre, sizeof(pre) - 1) != 0)
		return -1;
	return door_port(s + sizeof(pre) - 1);
}

/* A proxy device: one of box's doors (box/door.h), or a problem. */
static void
check_door(struct shape_report *s, const struct incus_kvs *dev,
    const char *name, int vm, const char *pinned)
{
	char sum[SUMMARY_MAX], k[48], v[96], ip[64];
	const char *x;
	int port, cport;
	size_t m;

	summary(dev, sum, sizeof(sum));
	if (strncmp(name, DOOR_PREFIX, strlen(DOOR_PREFIX)) != 0 ||
	    (port = door_port(name + strlen(DOOR_PREFIX))) < 0) {
		problem(s, "proxy %s (%s): not a door of box's (box expose "
		    "names them " DOOR_PREFIX "<port>)", name, sum);
		return;
	}
	for (m = 0; m < dev->n; m++) {
		shown(dev->v[m].key, k, sizeof(k));
		if (strcmp(k, "type") != 0 && strcmp(k, "listen") != 0 &&
		    strcmp(k, "connect") != 0 && strcmp(k, "bind") != 0 &&
		    strcmp(k, "nat") != 0) {
			shown(dev->v[m].value, v, sizeof(v));
			problem(s, "door %s has %s=%s, which no door of box's "
			    "carries", name, k, v);
		}
	}
	if (shown(incus_kv_get(dev, "listen"), v, sizeof(v)) < 0 ||
	    loopback_port(v) < 0)
		problem(s, "door %s listens on %s, not tcp:127.0.0.1:<port>: "
		    "it is reachable from beyond this host's loopback", name,
		    v[0] ? v : "(nothing)");
	x = incus_kv_get(dev, "bind");
	if (x != NULL && !is(x, "host")) {
		shown(x, v, sizeof(v));
		problem(s, "door %s has bind=%s, not host", name, v);
	}
	if (shown(incus_kv_get(dev, "connect"), v, sizeof(v)) < 0)
		v[0] = '\0';	/* too long to be a door's: never matches */
	x = incus_kv_get(dev, "nat");
	if (!vm) {
		if (x != NULL && !is(x, "false"))
			problem(s, "door %s of a container has nat set (box's "
			    "container doors relay, never NAT)", name);
		if (loopback_port(v) != port)
			problem(s, "door %s connects to %s, not "
			    "tcp:127.0.0.1:%d inside the box", name,
			    v[0] ? v : "(nothing)", port);
		return;
	}
	if (!is(x, "true"))
		problem(s, "door %s of a VM is not nat=true", name);
	if (door_connect_parse(v, ip, sizeof(ip), &cport) < 0 ||
	    cport != port || pinned == NULL || strcmp(ip, pinned) != 0)
		problem(s, "door %s connects to %s, not the box's pinned "
		    "address, port %d (%s%s)", name, v[0] ? v : "(nothing)",
		    port, pinned ? "pinned: " : "no address is pinned",
		    pinned ? pinned : "");
}

/* The one root disk, or a problem naming the disk. */
static void
check_disk(struct shape_report *s, const struct incus_kvs *dev,
    const char *name, int *nroot)
{
	char sum[SUMMARY_MAX], why[SHAPE_TEXT];

	if (!is(incus_kv_get(dev, "path"), "/")) {
		summary(dev, sum, sizeof(sum));
		problem(s, "extra disk %s (%s): box gives a box no storage "
		    "but its root disk", name, sum);
		return;
	}
	if (++*nroot > 1) {
		problem(s, "a second root disk %s", name);
		return;
	}
	keys_vs(dev, contract_root_keys, contract_nroot_keys, NULL, 1, why,
	    sizeof(why));
	if (why[0] != '\0')
		problem(s, "root disk %s: %s", name, why);
}

static void
check_devices(struct shape_report *s, const struct incus_devices *devs,
    int vm, const char *pinned)
{
	const struct incus_kvs *eth0 = NULL;
	char name[64], type[32], sum[SUMMARY_MAX], why[SHAPE_TEXT];
	int nnic = 0, nroot = 0;
	size_t k;

	for (k = 0; k < devs->n; k++) {
		const struct incus_kvs *dev = &devs->v[k].kv;

		shown(devs->v[k].name, name, sizeof(name));
		shown(incus_kv_get(dev, "type"), type, sizeof(type));
		if (strcmp(type, "nic") == 0) {
			nnic++;
			if (strcmp(name, "eth0") == 0 && eth0 == NULL) {
				eth0 = dev;
				continue;
			}
			summary(dev, sum, sizeof(sum));
			problem(s, "extra NIC %s (%s): a box has one NIC, eth0 "
			    "on boxnet", name, sum);
		} else if (strcmp(type, "disk") == 0) {
			check_disk(s, dev, name, &nroot);
		} else if (strcmp(type, "proxy") == 0) {
			check_door(s, dev, name, vm, pinned);
		} else {
			summary(dev, sum, sizeof(sum));
			problem(s, "device %s of type %s (%s): box never passes "
			    "a host device into a box", name,
			    type[0] ? type : "(none given)", sum);
		}
	}
	if (eth0 == NULL)
		problem(s, "no NIC eth0 (%d NIC%s in all): none of the host "
		    "stack's layers apply to this box", nnic,
		    nnic == 1 ? "" : "s");
	else {
		shape_nic_kv(eth0, pinned, why, sizeof(why));
		if (why[0] != '\0')
			problem(s, "NIC eth0: %s", why);
	}
	if (nroot == 0)
		problem(s, "no root disk (type disk, path /)");
}

/* One expanded_config member, judged. */
static void
check_key(struct shape_report *s, const char *k, const char *v, int vm)
{
	int off = v[0] == '\0' || strcmp(v, "false") == 0;

	if (strcmp(k, "security.privileged") == 0 && !off)
		problem(s, "security.privileged=%s: a privileged container's "
		    "root is the host's root", v);
	else if (strcmp(k, "security.nesting") == 0 && !off &&
	    (vm || strcmp(v, "true") != 0))
		problem(s, "security.nesting=%s%s: box sets it only to true, "
		    "and only on containers", v, vm ? " on a VM" : "");
	else if (strncmp(k, "raw.", 4) == 0)
		problem(s, "%s is set: raw.* hands the runtime settings no "
		    "check of box's can judge", k);
	else if (strcmp(k, "linux.kernel_modules") == 0 && v[0] != '\0')
		problem(s, "linux.kernel_modules=%s: a box loads no host "
		    "kernel module", v);
	else if (strncmp(k, "security.syscalls.intercept.", 28) == 0 && !off)
		problem(s, "%s=%s: the daemon would perform that syscall on "
		    "the box's behalf, with its own rights", k, v);
	else if (strcmp(k, "security.syscalls.allow") == 0 && v[0] != '\0')
		problem(s, "security.syscalls.allow is set: the syscall "
		    "filter becomes an allowlist of the box's choosing");
	else if (strcmp(k, "security.syscalls.deny_default") == 0 &&
	    strcmp(v, "false") == 0)
		problem(s, "security.syscalls.deny_default=false: the "
		    "default syscall filter is off");
}

static void
check_config(struct shape_report *s, const struct incus_kvs *cfg, int vm)
{
	char k[128], v[96];
	size_t m;

	for (m = 0; m < cfg->n; m++) {
		shown(cfg->v[m].key, k, sizeof(k));
		shown(cfg->v[m].value, v, sizeof(v));
		check_key(s, k, v, vm);
	}
}

const char *
shape_pinned(const struct incus_instance *in)
{
	const char *pin = incus_kv_get(&in->expanded_config, DOOR_PIN_KEY);

	return pin != NULL && pin[0] != '\0' ? pin : NULL;
}

int
shape_check(const struct incus_instance *in, struct shape_report *s)
{
	int vm = strcmp(in->type, "virtual-machine") == 0;

	memset(s, 0, sizeof(*s));
	check_devices(s, &in->expanded_devices, vm, shape_pinned(in));
	check_config(s, &in->expanded_config, vm);
	return s->n + s->more;
}

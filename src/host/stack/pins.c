/* pins.c - the port bindings of the box bridge (see pins.h). */
#include "host/stack/pins.h"
#include "host/stack/pins_test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "box/lease.h"
#include "host/stack/firewall.h"
#include "host/stack/sysd.h"
#include "incus/cluster.h"
#include "incus/instance.h"
#include "incus/network.h"
#include "net/nl.h"

#define BR	NFT_FAM_BRIDGE
#define TABLE	CONTRACT_NFT_TABLE

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int
parse_mac(const char *s, unsigned char mac[6])
{
	int i, hi, lo;

	if (s == NULL || strlen(s) != 17)
		return -EINVAL;
	for (i = 0; i < 6; i++) {
		hi = hexval(s[i * 3]);
		lo = hexval(s[i * 3 + 1]);
		if (hi < 0 || lo < 0 || (i < 5 && s[i * 3 + 2] != ':'))
			return -EINVAL;
		mac[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

static int
parse_ip4(const char *s, uint32_t *a)
{
	unsigned v[4];
	char tail;

	if (s == NULL || sscanf(s, "%3u.%3u.%3u.%3u%c", &v[0], &v[1], &v[2],
	    &v[3], &tail) != 4 || v[0] > 255 || v[1] > 255 || v[2] > 255 ||
	    v[3] > 255)
		return -EINVAL;
	*a = v[0] << 24 | v[1] << 16 | v[2] << 8 | v[3];
	return 0;
}

/* A kernel interface name as Incus writes a veth's: 1..15 bytes of
 * [A-Za-z0-9_.-]. */
static int
port_ok(const char *s)
{
	size_t i, n = s != NULL ? strlen(s) : 0;

	if (n == 0 || n > 15)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
		    s[i] == '.' || s[i] == '-'))
			return 0;
	return 1;
}

/* The lease's address for mac: a static one first, then dnsmasq's. */
static uint32_t
lease_for(const struct incus_leases *l, const unsigned char mac[6])
{
	uint32_t a, dyn = 0;
	unsigned char m[6];
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (parse_mac(l->v[i].hwaddr, m) < 0 || memcmp(m, mac, 6) != 0 ||
		    parse_ip4(l->v[i].address, &a) < 0)
			continue;
		if (l->v[i].type != NULL && strcmp(l->v[i].type, "static") == 0)
			return a;
		if (dyn == 0)
			dyn = a;
	}
	return dyn;
}

static int
on_bridge(const struct incus_kvs *kv, const char *bridge)
{
	const char *type = incus_kv_get(kv, "type");
	const char *net = incus_kv_get(kv, "network");
	const char *nictype = incus_kv_get(kv, "nictype");
	const char *parent = incus_kv_get(kv, "parent");

	if (type == NULL || strcmp(type, "nic") != 0)
		return 0;
	if (net != NULL)
		return strcmp(net, bridge) == 0;
	return nictype != NULL && strcmp(nictype, "bridged") == 0 &&
	    parent != NULL && strcmp(parent, bridge) == 0;
}

static void
add_nic(struct pins *p, const struct incus_instance *in, const char *dev,
    const struct incus_kvs *kv, const struct incus_leases *l,
    const char *bridge, uint32_t net)
{
	struct lease_pin pin;
	char key[160];
	const char *mac, *port, *ip;
	struct pin *x;

	if (p->n >= PINS_MAXNIC)
		return;
	x = &p->v[p->n];
	memset(x, 0, sizeof(*x));
	snprintf(key, sizeof(key), "volatile.%s.hwaddr", dev);
	mac = incus_kv_get(&in->expanded_config, key);
	if (mac == NULL)
		mac = incus_kv_get(kv, "hwaddr");
	if (parse_mac(mac, x->mac) < 0)
		return;		/* no MAC yet: never started */
	snprintf(x->project, sizeof(x->project), "%s",
	    in->project[0] ? in->project : "default");
	snprintf(x->inst, sizeof(x->inst), "%s", in->name);
	snprintf(x->nic, sizeof(x->nic), "%s", dev);
	snprintf(key, sizeof(key), "volatile.%s.host_name", dev);
	port = incus_kv_get(&in->expanded_config, key);
	if (strcmp(in->status, "Running") == 0 && port_ok(port))
		snprintf(x->port, sizeof(x->port), "%s", port);
	/* The address Incus pinned (its dnsmasq host file: a filtered NIC
	 * always has one), else the device's, else the lease dnsmasq gave
	 * this MAC.  Incus names a project's instance "<project>_<name>". */
	if (in->project[0] != '\0' && strcmp(in->project, "default") != 0)
		snprintf(key, sizeof(key), "%s_%s", in->project, in->name);
	else
		snprintf(key, sizeof(key), "%s", in->name);
	if (lease_read_pin(bridge, key, dev, x->mac, &pin) == 0 &&
	    pin.state == 1)
		x->addr = pin.addr;
	ip = incus_kv_get(kv, "ipv4.address");
	if (x->addr == 0 && ip != NULL)
		(void)parse_ip4(ip, &x->addr);
	if (x->addr == 0)
		x->addr = lease_for(l, x->mac);
	if ((x->addr & 0xffffff00u) != net || x->addr == (net | 1) ||
	    (x->addr & 255) == 0 || (x->addr & 255) == 255)
		x->addr = 0;
	p->n++;
}

/* Two NICs with one MAC, or one address: neither is bound. */
static void
mark_conflicts(struct pins *p)
{
	size_t i, j;

	for (i = 0; i < p->n; i++)
		for (j = i + 1; j < p->n; j++)
			if (memcmp(p->v[i].mac, p->v[j].mac, 6) == 0 ||
			    (p->v[i].addr != 0 && p->v[i].addr == p->v[j].addr))
				p->v[i].conflict = p->v[j].conflict = 1;
	p->nconflict = 0;
	for (i = 0; i < p->n; i++)
		p->nconflict += p->v[i].conflict;
}

int
pins_collect(struct incus *c, const char *bridge, uint32_t net,
    struct pins *p, struct box_err *e)
{
	struct incus_instance_list list;
	struct incus_leases l;
	struct box_err ce;
	char self[64];
	size_t i, d;
	int rc;

	p->n = p->nconflict = 0;
	/* on a cluster, only this member's instances are on this kernel
	 * (a daemon that does not say is taken as standalone: all are) */
	err_clear(&ce);
	if (incus_cluster_self(c, self, sizeof(self), &ce) < 0)
		self[0] = '\0';
	if ((rc = incus_network_leases(c, bridge, &l, e)) < 0)
		return rc;
	if ((rc = incus_instance_list(c, NULL, INCUS_INST_ALL, &list, e)) < 0) {
		incus_leases_free(&l);
		return rc;
	}
	for (i = 0; i < list.n; i++) {
		const struct incus_instance *in = &list.v[i];

		if (!incus_cluster_local(self, in->location))
			continue;
		for (d = 0; d < in->expanded_devices.n; d++)
			if (on_bridge(&in->expanded_devices.v[d].kv, bridge))
				add_nic(p, in, in->expanded_devices.v[d].name,
				    &in->expanded_devices.v[d].kv, &l, bridge,
				    net);
	}
	incus_instance_list_free(&list);
	incus_leases_free(&l);
	mark_conflicts(p);
	return 0;
}

void
pins_keys(const struct pins *p, struct pins_keys *k)
{
	size_t i;

	memset(k, 0, sizeof(*k));
	for (i = 0; i < p->n; i++) {
		const struct pin *x = &p->v[i];
		unsigned char *q;

		/* Every pinned MAC, conflicting ones too: a MAC in box_macs
		 * with no port in box_ports goes nowhere. */
		memcpy(k->macs[k->nmac], x->mac, 6);
		q = k->self[k->nmac];
		memcpy(q, x->mac, 6);
		memcpy(q + 8, x->mac, 6);
		k->nmac++;
		if (x->port[0] == '\0' || x->conflict)
			continue;
		q = k->portnames[k->nport];
		memcpy(q, x->port, strlen(x->port));
		q = k->ports[k->nport];
		memcpy(q, x->port, strlen(x->port));
		memcpy(q + CONTRACT_KEY_PORT, x->mac, 6);
		k->nport++;
		if (x->addr == 0)
			continue;
		q = k->pins[k->npin];
		memcpy(q, x->port, strlen(x->port));
		memcpy(q + CONTRACT_KEY_PORT, x->mac, 6);
		q[CONTRACT_KEY_PORTMAC] = (unsigned char)(x->addr >> 24);
		q[CONTRACT_KEY_PORTMAC + 1] = (unsigned char)(x->addr >> 16);
		q[CONTRACT_KEY_PORTMAC + 2] = (unsigned char)(x->addr >> 8);
		q[CONTRACT_KEY_PORTMAC + 3] = (unsigned char)x->addr;
		k->npin++;
	}
}

/* One set's keys, in messages of at most NFT_SETELEM_MAX. */
static void
add_keys(struct nft_batch *bt, const char *set, const unsigned char *keys,
    size_t klen, size_t n)
{
	size_t o;

	for (o = 0; o < n; o += NFT_SETELEM_MAX)
		nft_setelem_add(bt, BR, TABLE, set, keys + o * klen, klen,
		    n - o > NFT_SETELEM_MAX ? NFT_SETELEM_MAX : n - o);
}

int
pins_emit(struct nft_batch *bt, const struct pins_keys *k)
{
	static const char *const sets[] = { CONTRACT_SET_MACS,
	    CONTRACT_SET_CHADDRS, CONTRACT_SET_SELF, CONTRACT_SET_PORTS,
	    CONTRACT_SET_PORTNAMES, CONTRACT_SET_PINS };
	size_t i;

	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
		nft_set_flush(bt, BR, TABLE, sets[i]);
	add_keys(bt, CONTRACT_SET_MACS, &k->macs[0][0], 6, k->nmac);
	add_keys(bt, CONTRACT_SET_CHADDRS, &k->macs[0][0], 6, k->nmac);
	add_keys(bt, CONTRACT_SET_SELF, &k->self[0][0], 16, k->nmac);
	add_keys(bt, CONTRACT_SET_PORTS, &k->ports[0][0], CONTRACT_KEY_PORTMAC,
	    k->nport);
	add_keys(bt, CONTRACT_SET_PORTNAMES, &k->portnames[0][0],
	    CONTRACT_KEY_PORT, k->nport);
	add_keys(bt, CONTRACT_SET_PINS, &k->pins[0][0], CONTRACT_KEY_PIN,
	    k->npin);
	return nft_batch_err(bt);
}

#define PINS_BUF	(1u << 20)

int
pins_sync(struct incus *c, const char *bridge, uint32_t net,
    struct pins_result *r, struct box_err *e)
{
	struct pins *p = malloc(sizeof(*p));
	struct pins_keys *k = malloc(sizeof(*k));
	struct nft_batch *bt = malloc(sizeof(*bt));
	unsigned char *buf = malloc(PINS_BUF);
	struct nl_sock *s = malloc(sizeof(*s));
	size_t i;
	int rc;

	memset(r, 0, sizeof(*r));
	if (p == NULL || k == NULL || bt == NULL || buf == NULL || s == NULL) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = pins_collect(c, bridge, net, p, e)) < 0)
		goto out;
	pins_keys(p, k);
	r->nic = p->n;
	r->bound = k->nport;
	r->pinned = k->npin;
	r->conflict = p->nconflict;
	(void)i;
	if ((rc = nl_open(s, NETLINK_NETFILTER, e)) < 0)
		goto out;
	nft_batch_init(bt, buf, PINS_BUF, s->seq);
	if ((rc = pins_emit(bt, k)) < 0)
		rc = err_set(e, rc, "building the port bindings: %s",
		    err_str(rc));
	else if ((rc = nft_batch_send(s, bt, NULL, e)) < 0)
		err_context(e, "the kernel refused the port bindings (is the "
		    "firewall applied? box firewall apply)");
	nl_close(s);
out:
	free(p);
	free(k);
	free(bt);
	free(buf);
	free(s);
	return rc;
}

/* Is key (klen bytes) among v? Marks it used. */
static int
held(struct nft_set_elem *v, int *used, size_t n, const unsigned char *key,
    size_t klen)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!used[i] && v[i].klen == klen &&
		    memcmp(v[i].key, key, klen) == 0) {
			used[i] = 1;
			return 1;
		}
	return 0;
}

int
pins_check(const struct pins *p, struct pins_check *c, struct box_err *e)
{
	static const struct { const char *set; size_t klen; int which; } s5[] = {
		{ CONTRACT_SET_MACS, 6, 0 },
		{ CONTRACT_SET_CHADDRS, 6, 0 },
		{ CONTRACT_SET_SELF, 16, 1 },
		{ CONTRACT_SET_PORTS, CONTRACT_KEY_PORTMAC, 2 },
		{ CONTRACT_SET_PORTNAMES, CONTRACT_KEY_PORT, 3 },
		{ CONTRACT_SET_PINS, CONTRACT_KEY_PIN, 4 },
	};
	struct pins_keys *k = malloc(sizeof(*k));
	struct nft_set_elem *v = calloc(PINS_MAXNIC * 2, sizeof(*v));
	int *used = calloc(PINS_MAXNIC * 2, sizeof(*used));
	struct nl_sock *s = malloc(sizeof(*s));
	size_t i, j, n, total, want;
	int rc;

	memset(c, 0, sizeof(*c));
	if (k == NULL || v == NULL || used == NULL || s == NULL) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	pins_keys(p, k);
	if ((rc = nl_open(s, NETLINK_NETFILTER, e)) < 0)
		goto out;
	for (i = 0; i < sizeof(s5) / sizeof(s5[0]); i++) {
		const unsigned char *keys;

		switch (s5[i].which) {
		case 0: keys = &k->macs[0][0]; want = k->nmac; break;
		case 1: keys = &k->self[0][0]; want = k->nmac; break;
		case 2: keys = &k->ports[0][0]; want = k->nport; break;
		case 3: keys = &k->portnames[0][0]; want = k->nport; break;
		default: keys = &k->pins[0][0]; want = k->npin; break;
		}
		rc = nft_list_setelems(s, BR, TABLE, s5[i].set, v,
		    PINS_MAXNIC * 2, &n, &total, e);
		if (rc == -ENOENT) {
			c->missing += want;
			c->want += want;
			if (c->first[0] == '\0')
				snprintf(c->first, sizeof(c->first), "set %s "
				    "is missing", s5[i].set);
			continue;
		}
		if (rc < 0)
			goto close;
		memset(used, 0, PINS_MAXNIC * 2 * sizeof(*used));
		for (j = 0; j < want; j++) {
			c->want++;
			if (held(v, used, n, keys + j * s5[i].klen, s5[i].klen))
				c->held++;
			else {
				c->missing++;
				if (c->first[0] == '\0')
					snprintf(c->first, sizeof(c->first),
					    "set %s lacks a binding Incus "
					    "says (key %zu)", s5[i].set, j);
			}
		}
		for (j = 0; j < n; j++)
			if (!used[j]) {
				c->extra++;
				if (c->first[0] == '\0')
					snprintf(c->first, sizeof(c->first),
					    "set %s holds a binding Incus does "
					    "not say", s5[i].set);
			}
		c->extra += total > n ? total - n : 0;
	}
	rc = 0;
close:
	nl_close(s);
out:
	free(k);
	free(v);
	free(used);
	free(s);
	return rc;
}

/* A path that goes into a shell script: absolute, nothing to quote. */
static int
plain_path(const char *p)
{
	size_t i;

	if (p == NULL || p[0] != '/')
		return 0;
	for (i = 0; p[i] != '\0'; i++)
		if (!((p[i] >= 'a' && p[i] <= 'z') ||
		    (p[i] >= 'A' && p[i] <= 'Z') ||
		    (p[i] >= '0' && p[i] <= '9') || p[i] == '/' ||
		    p[i] == '_' || p[i] == '.' || p[i] == '-'))
			return 0;
	return 1;
}

/* dir: the daemon's directory when it is not the default one (a cluster
 * member's own INCUS_DIR), said to the sync; NULL otherwise. */
static int
hook_text(const char *bin, const char *dir, char *buf, size_t cap)
{
	int w;

	if (!plain_path(bin) || (dir != NULL && !plain_path(dir)))
		return -EINVAL;
	w = snprintf(buf, cap, "#!/bin/sh\n"
	    "# box: dnsmasq runs this at every lease change (dhcp-script);\n"
	    "# box binds each port of the bridge to its instance's pinned MAC\n"
	    "# and address again.  Its arguments (from the box) are not used.\n"
	    "# One sync a second at most, however many leases change.\n"
	    "exec %s%s%s%s firewall sync --from-hook </dev/null >/dev/null 2>&1\n",
	    dir ? "env INCUS_DIR=" : "", dir ? dir : "", dir ? " " : "", bin);
	return w < 0 || (size_t)w >= cap ? -ENOSPC : 0;
}

int
pins_hook_text(const char *bin, char *buf, size_t cap)
{
	return hook_text(bin, NULL, buf, cap);
}

int
pins_install_hook(const char *bin, struct box_err *e)
{
	const char *dir = incus_daemon_dir();
	char text[1024];

	if (hook_text(bin, strcmp(dir, "/var/lib/incus") == 0 ? NULL : dir,
	    text, sizeof(text)) < 0)
		return err_set(e, -EINVAL, "the lease hook cannot name '%s'",
		    bin);
	return sysd_write_atomic(CONTRACT_DHCP_HOOK, text, strlen(text), 0755,
	    e);
}

/* Mark the gate: one octet per run that found it held. */
static void
hook_mark(void)
{
	int fd = open(PINS_HOOK_PENDING, O_WRONLY | O_CREAT | O_APPEND |
	    O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd >= 0) {
		(void)write(fd, "e", 1);
		close(fd);
	}
}

/* Take the marks: how many runs left one (0: none). */
static long
hook_take(void)
{
	static const char taken[] = PINS_HOOK_PENDING ".taken";
	struct stat st;
	long n = 0;

	if (rename(PINS_HOOK_PENDING, taken) != 0)
		return 0;
	if (lstat(taken, &st) == 0 && S_ISREG(st.st_mode))
		n = st.st_size > 0 ? (long)st.st_size : 1;
	(void)unlink(taken);
	return n;
}

static long long
ms_of(const struct timespec *t)
{
	return (long long)t->tv_sec * 1000 + t->tv_nsec / 1000000;
}

/* The gate holder's rounds (a detached child); never returns. */
static void
hook_rounds(int fd, const char *br, uint32_t net)
{
	char buf[64];
	struct timespec now;
	struct stat st;
	long syncs = 0, events = 0;
	ssize_t n;
	int i;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	(void)sscanf(buf, "syncs %ld events %ld", &syncs, &events);
	events++;		/* the run that took the gate */
	for (i = 0; i < PINS_HOOK_ROUNDS; i++) {
		struct pins_result r;
		struct incus c;
		struct box_err e;
		char why[300];
		long long gap;

		events += hook_take();
		/* at most one sync per gap: the last one's time is the lock
		 * file's mtime */
		clock_gettime(CLOCK_REALTIME, &now);
		if (fstat(fd, &st) == 0 && st.st_size > 0) {
			gap = ms_of(&now) - ms_of(&st.st_mtim);
			if (gap >= 0 && gap < PINS_HOOK_GAP_MS) {
				struct timespec d = { 0, (long)(PINS_HOOK_GAP_MS -
				    gap) * 1000000L };

				while (d.tv_nsec >= 1000000000L) {
					d.tv_sec++;
					d.tv_nsec -= 1000000000L;
				}
				nanosleep(&d, NULL);
				events += hook_take();
			}
		}
		err_clear(&e);
		(void)fw_arp_sysctls(br, 1, why, sizeof(why), &e);
		err_clear(&e);
		if (incus_init(&c, &e) == 0) {
			c.timeout_ms = 10000;
			(void)pins_sync(&c, br, net, &r, &e);
			incus_close(&c);
		}
		syncs++;
		n = snprintf(buf, sizeof(buf), "syncs %ld events %ld\n", syncs,
		    events);
		if (ftruncate(fd, 0) == 0)
			(void)pwrite(fd, buf, (size_t)n, 0);
		if (access(PINS_HOOK_PENDING, F_OK) == 0)
			continue;
		(void)flock(fd, LOCK_UN);
		/* a run between the look and the unlock found the gate held
		 * and only marked it: look once more */
		if (access(PINS_HOOK_PENDING, F_OK) != 0 ||
		    flock(fd, LOCK_EX | LOCK_NB) != 0)
			break;
	}
	_exit(0);
}

int
pins_hook_sync(const char *br, uint32_t net, struct box_err *e)
{
	pid_t pid;
	int fd, null;

	fd = open(PINS_HOOK_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd < 0)
		return err_set(e, -errno, "%s: %s", PINS_HOOK_LOCK,
		    strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		close(fd);
		hook_mark();	/* the holder syncs once more for us */
		return 0;
	}
	fflush(NULL);
	if ((pid = fork()) < 0) {
		close(fd);
		return err_set(e, -errno, "fork: %s", strerror(errno));
	}
	if (pid > 0) {
		close(fd);	/* the child holds the lock: dnsmasq goes on */
		return 0;
	}
	(void)setsid();
	if ((null = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	hook_rounds(fd, br, net);
	return 0;
}

/* nested.c - host, Incus instance or box? (see nested.h) */
#include "host/install/nested.h"
#include "model/ip4text.h"
#include "model/names.h"
#include "util/clock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "incus/guest.h"
#include "net/ip4.h"
#include "net/nl.h"
#include "net/rtnl.h"

/* --- the guest API --------------------------------------------------------- */

static void
gapi_root(struct nested_facts *f, struct incus_guest *g)
{
	struct incus_guest_info info;
	struct box_err e;
	int rc;

	err_clear(&e);
	rc = incus_guest_info(g, &info, &e);
	if (rc == 0) {
		f->gapi = GAPI_INCUS;
		snprintf(f->instance_type, sizeof(f->instance_type), "%s",
		    info.instance_type);
		snprintf(f->location, sizeof(f->location), "%s",
		    info.location);
		return;
	}
	f->gapi = rc == -EACCES ? GAPI_REFUSED : GAPI_MUTE;
	snprintf(f->gapi_detail, sizeof(f->gapi_detail), "%.95s", e.msg);
}

static void
gapi_stamp(struct nested_facts *f, struct incus_guest *g)
{
	static const char *const keys[2] = { BOX_TAG, CONTRACT_LEGACY_TAG };
	struct box_err e;
	char val[8];
	int i, rc;

	f->stamp = 0;
	for (i = 0; i < 2; i++) {
		err_clear(&e);
		rc = incus_guest_config(g, keys[i], val, sizeof(val), &e);
		if (rc < 0) {
			f->stamp = -1;
			snprintf(f->stamp_detail, sizeof(f->stamp_detail),
			    "%.95s", e.msg);
			return;
		}
		if (rc == 1 && strcmp(val, "1") == 0) {
			f->stamp = i + 1;
			return;
		}
	}
}

static int
box_network(const char *net)
{
	return strcmp(net, "boxnet") == 0 || strcmp(net, "claudenet") == 0;
}

static void
gapi_devices(struct nested_facts *f, struct incus_guest *g)
{
	struct incus_guest_nic nic[16];
	struct box_err e;
	int n, i;

	err_clear(&e);
	n = incus_guest_nics(g, nic, sizeof(nic) / sizeof(nic[0]), &e);
	for (i = 0; i < n; i++)
		if (box_network(nic[i].network)) {
			snprintf(f->nic, sizeof(f->nic), "%s", nic[i].name);
			snprintf(f->nic_network, sizeof(f->nic_network), "%s",
			    nic[i].network);
			break;
		}
}

static void
probe_gapi(struct nested_facts *f, const char *sock)
{
	struct stat st;
	struct incus_guest *g;
	struct box_err e;

	if (stat(sock, &st) != 0) {
		if (errno == EACCES) {
			f->gapi = GAPI_REFUSED;
			snprintf(f->gapi_detail, sizeof(f->gapi_detail),
			    "%s is there but not visible to this user", sock);
		}
		return;
	}
	if (!S_ISSOCK(st.st_mode)) {
		f->gapi = GAPI_MUTE;
		snprintf(f->gapi_detail, sizeof(f->gapi_detail), "%s is not "
		    "a socket", sock);
		return;
	}
	err_clear(&e);
	if (incus_guest_open(&g, sock, NULL, &e) < 0) {
		f->gapi = GAPI_MUTE;
		snprintf(f->gapi_detail, sizeof(f->gapi_detail), "%.95s",
		    e.msg);
		return;
	}
	gapi_root(f, g);
	if (f->gapi == GAPI_INCUS) {
		gapi_stamp(f, g);
		gapi_devices(f, g);
	}
	incus_guest_close(g);
}

/* --- the process environment ----------------------------------------------- */

/* Read up to cap-1 bytes of a small file; -errno or the length. */
static ssize_t
slurp(const char *path, char *buf, size_t cap)
{
	ssize_t n, got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((size_t)got < cap - 1 &&
	    (n = read(fd, buf + got, cap - 1 - (size_t)got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return got;
}

static void
trim(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

static void
probe_container(struct nested_facts *f)
{
	char buf[8192], *p;
	ssize_t n;

	n = slurp("/proc/1/environ", buf, sizeof(buf));
	if (n == -EACCES || n == -EPERM)
		f->environ_unreadable = 1;
	for (p = buf; n > 0 && p < buf + n; p += strlen(p) + 1) {
		if (strncmp(p, "container=", 10) == 0) {
			snprintf(f->container, sizeof(f->container), "%.31s",
			    p + 10);
			snprintf(f->container_src, sizeof(f->container_src),
			    "/proc/1/environ");
			break;
		}
	}
	if (f->container[0] == '\0' &&
	    slurp("/run/systemd/container", buf, 64) > 0) {
		trim(buf);
		snprintf(f->container, sizeof(f->container), "%.31s", buf);
		snprintf(f->container_src, sizeof(f->container_src),
		    "/run/systemd/container");
	}
	if (access("/.dockerenv", F_OK) == 0)
		snprintf(f->hint, sizeof(f->hint), "/.dockerenv");
	else if (access("/run/.containerenv", F_OK) == 0)
		snprintf(f->hint, sizeof(f->hint), "/run/.containerenv");
}

static void
probe_dmi(struct nested_facts *f)
{
	char v[64], n[64];

	if (slurp("/sys/class/dmi/id/board_vendor", v, sizeof(v)) <= 0 ||
	    slurp("/sys/class/dmi/id/board_name", n, sizeof(n)) <= 0)
		return;
	trim(v);
	trim(n);
	f->dmi_incus = strcmp(v, "LinuxContainers") == 0 &&
	    strcmp(n, "Incus") == 0;
}

/* --- the network ----------------------------------------------------------- */

static void
net_fill(struct nested_facts *f, const struct ip4_picture *w)
{
	const struct rtnl_route4 *def = ip4_default_route(w);
	const struct rtnl_link *l;
	size_t i;

	if (def != NULL && def->has_gw) {
		f->has_gw = 1;
		f->gw = ntohl(def->gw.s_addr);
		snprintf(f->gw_dev, sizeof(f->gw_dev), "%s",
		    ip4_ifname(w, def->oif, "?"));
	}
	for (i = 0; i < w->naddr && f->naddr < NESTED_MAX_ADDRS; i++) {
		l = ip4_link(w, w->addr[i].ifindex);
		snprintf(f->addr[f->naddr].ifname, sizeof(f->addr[0].ifname),
		    "%s", l != NULL ? l->name : w->addr[i].label);
		f->addr[f->naddr].addr = ntohl(w->addr[i].addr.s_addr);
		f->addr[f->naddr].plen = w->addr[i].prefixlen;
		f->addr[f->naddr].bridge = l != NULL &&
		    strcmp(l->kind, "bridge") == 0;
		f->naddr++;
	}
	f->net_read = 1;
}

static void
probe_net(struct nested_facts *f)
{
	struct ip4_picture *w;
	struct box_err e;
	int rc;

	err_clear(&e);
	rc = ip4_read(&w, &e);
	if (rc < 0) {
		snprintf(f->net_detail, sizeof(f->net_detail), "%.95s",
		    e.msg[0] ? e.msg : err_str(rc));
		return;
	}
	net_fill(f, w);
	ip4_free(w);
}

void
nested_probe(struct nested_facts *f, const char *gapi_path)
{
	memset(f, 0, sizeof(*f));
	f->stamp = -1;
	probe_gapi(f, gapi_path);
	probe_container(f);
	probe_dmi(f);
	probe_net(f);
}

/* --- the verdict ----------------------------------------------------------- */

int
nested_box_range(uint32_t a)
{
	return (a & 0xffffff00u) == 0x0a570000u ||	/* 10.87.0.0/24 */
	    (a & 0xffffff00u) == 0x0a580000u ||		/* 10.88.0.0/24 */
	    (a >= 0x0a590000u && a <= 0x0a7fffffu);	/* 10.89-10.127 */
}

static void
add(struct nested_report *r, const char *signal, int weight,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void
add(struct nested_report *r, const char *signal, int weight,
    const char *fmt, ...)
{
	va_list ap;

	if (r->n >= NESTED_MAX_EVIDENCE)
		return;
	r->ev[r->n].signal = signal;
	r->ev[r->n].weight = weight;
	va_start(ap, fmt);
	vsnprintf(r->ev[r->n].text, sizeof(r->ev[0].text), fmt, ap);
	va_end(ap);
	r->n++;
}

static void
classify_gapi(const struct nested_facts *f, struct nested_report *r)
{
	switch (f->gapi) {
	case GAPI_ABSENT:
		add(r, "guestapi", NW_INFO, "no %s (no Incus guest API here)",
		    NESTED_GUESTAPI);
		break;
	case GAPI_INCUS:
		add(r, "guestapi", NW_INSTANCE, "%s answers as Incus: a %s%s%s%s",
		    NESTED_GUESTAPI, f->instance_type[0] ? f->instance_type :
		    "instance", f->location[0] ? " on host \"" : "",
		    f->location, f->location[0] ? "\"" : "");
		break;
	case GAPI_REFUSED:
		add(r, "guestapi", NW_INSTANCE, "%s exists; %s", NESTED_GUESTAPI,
		    f->gapi_detail);
		break;
	default:
		add(r, "guestapi", NW_INFO, "%s exists but gave no Incus "
		    "answer: %s", NESTED_GUESTAPI, f->gapi_detail);
		break;
	}
	if (f->stamp == 1 || f->stamp == 2)
		add(r, "stamp", NW_BOX, "the instance is stamped %s=1: "
		    "box minted it", f->stamp == 1 ? BOX_TAG :
		    CONTRACT_LEGACY_TAG);
	else if (f->stamp == 0 && f->gapi == GAPI_INCUS)
		add(r, "stamp", NW_INFO, "no user.box stamp on this instance");
	else if (f->gapi == GAPI_INCUS)
		add(r, "stamp", NW_INFO, "the user.box stamp could not be "
		    "read: %s", f->stamp_detail);
	if (f->nic[0] != '\0')
		add(r, "nic", NW_BOX, "NIC %s is attached to the Incus network "
		    "%s (the box bridge)", f->nic, f->nic_network);
}

static void
classify_env(const struct nested_facts *f, struct nested_report *r)
{
	if (strcmp(f->container, "lxc") == 0)
		add(r, "container", NW_INSTANCE, "%s says container=lxc",
		    f->container_src);
	else if (f->container[0] != '\0')
		add(r, "container", NW_INFO, "%s says container=%s (not an "
		    "Incus container)", f->container_src, f->container);
	else if (f->environ_unreadable)
		add(r, "container", NW_INFO, "/proc/1/environ is not readable "
		    "here");
	if (f->hint[0] != '\0')
		add(r, "hint", NW_INFO, "%s exists (a Docker-style container, "
		    "not Incus)", f->hint);
	if (f->dmi_incus)
		add(r, "dmi", NW_INSTANCE, "the DMI board is LinuxContainers "
		    "Incus: an Incus VM");
}

/* Is gw one of this machine's own addresses? */
static int
local_addr(const struct nested_facts *f, uint32_t a)
{
	int i;

	for (i = 0; i < f->naddr; i++)
		if (f->addr[i].addr == a)
			return 1;
	return 0;
}

static void
classify_net(const struct nested_facts *f, struct nested_report *r)
{
	char a[16];
	int i;

	if (!f->net_read) {
		add(r, "network", NW_INFO, "routes and addresses unreadable: "
		    "%s", f->net_detail);
		return;
	}
	if (f->has_gw) {
		ip4_fmt(f->gw, a, sizeof(a));
		if (nested_box_range(f->gw) && !local_addr(f, f->gw))
			add(r, "uplink", NW_NET, "the default route goes via "
			    "%s on %s, inside the box subnet range", a,
			    f->gw_dev);
		else
			add(r, "uplink", NW_INFO, "the default route goes via "
			    "%s on %s", a, f->gw_dev);
	} else {
		add(r, "uplink", NW_INFO, "no IPv4 default route");
	}
	for (i = 0; i < f->naddr; i++) {
		uint32_t x = f->addr[i].addr;

		if (!nested_box_range(x))
			continue;
		ip4_fmt(x, a, sizeof(a));
		if (f->addr[i].bridge && (x & 0xff) == 1)
			add(r, "bridge", NW_INFO, "bridge %s holds %s/%u: this "
			    "machine serves a box-range subnet",
			    f->addr[i].ifname, a, f->addr[i].plen);
		else if (!f->addr[i].bridge)
			add(r, "address", NW_NET, "%s holds %s/%u, a client "
			    "address inside the box subnet range",
			    f->addr[i].ifname, a, f->addr[i].plen);
	}
}

void
nested_classify(const struct nested_facts *f, struct nested_report *r)
{
	int i, inst = 0, box = 0, net = 0;

	memset(r, 0, sizeof(*r));
	classify_gapi(f, r);
	classify_env(f, r);
	classify_net(f, r);
	for (i = 0; i < r->n; i++) {
		inst |= r->ev[i].weight == NW_INSTANCE;
		box |= r->ev[i].weight == NW_BOX;
		net |= r->ev[i].weight == NW_NET;
	}
	if (box || (inst && net))
		r->verdict = NESTED_BOX;
	else if (inst)
		r->verdict = NESTED_INSTANCE;
	else
		r->verdict = NESTED_HOST;
}

const char *
nested_verdict_name(int v)
{
	return v == NESTED_BOX ? "box" : v == NESTED_INSTANCE ? "instance" :
	    "host";
}

const char *
nested_verdict_text(int v)
{
	switch (v) {
	case NESTED_BOX:
		return "inside a box";
	case NESTED_INSTANCE:
		return "inside an Incus instance (not a box, as far as can "
		    "be seen)";
	default:
		return "on a host (no sign of an Incus instance)";
	}
}

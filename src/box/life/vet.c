/*
 * vet.c - the import allowlist (see vet.h).
 *
 * Config keys an imported instance or snapshot may hold.  Everything not
 * listed is refused - security.*, raw.*, linux.*, nvidia.*, environment.*,
 * snapshots.*, migration.*, cluster.*, any other user.* - so a key Incus
 * adds tomorrow is refused until someone reads what it does.
 *
 *   key                          value        why it is harmless
 *   ---------------------------  -----------  ------------------------------
 *   user.box, user.box.*         any          box's own stamps; metadata the
 *   user.claudebox[.*]           any          guest can read, nothing else
 *   cloud-init.user-data,        any          cloud-init input: runs inside
 *     .vendor-data,                           the box, as the box's own root
 *     .network-config;
 *   user.user-data, .meta-data,  any          the same, in the legacy keys
 *     .vendor-data,
 *     .network-config
 *   image.*                      any          image metadata (os, release,
 *                                             box's alias and recipe)
 *   limits.cpu[.allowance|       any          each can only cap or weight
 *     .priority],                             what the box gets from the
 *   limits.memory[.enforce|                  host; none grants a device, a
 *     .swap|.swap.priority],                 capability or a host path
 *   limits.processes,                        (limits.kernel.* is refused:
 *   limits.disk.priority                     it raises rlimits)
 *   boot.autostart               true/false  box mints with it; it only
 *   boot.autostart.delay,        digits      orders starts of a box that
 *     .priority                               passed these checks
 *   security.nesting             true/false  what box mints containers with
 *                                             (unprivileged: nesting grants
 *                                             nothing outside the box)
 *   security.secureboot          true/false  what box mints VMs with
 *   volatile.base_image          hex         written by Incus; names the
 *   volatile.uuid[.generation],  [0-9a-f-]   image, the instance and its
 *   volatile.cloud-init.         [0-9a-f-]   cloud-init run
 *     instance-id
 *   volatile.<dev>.hwaddr        MAC         import drops it (a second
 *                                             import would share it)
 *   volatile.last_state.power    RUNNING,    only whether a daemon restart
 *                                STOPPED     starts it again
 *   volatile.idmap.base          digits      where its id range starts
 *   volatile.idmap.next,         idmap JSON  the id map the box starts with:
 *   volatile.idmap.current,                  every entry must map onto host
 *   volatile.last_state.idmap                ids >= 65536 (a map onto host
 *                                             root is a privileged box)
 *   volatile.vsock_id            digits      a VM's vsock address
 *   volatile.apply_nvram         true/false  a VM's firmware vars reset
 *   volatile.vm.definition       [a-z0-9.-]  the VM machine type
 *   volatile.last_state.ready    true/false  the guest said it was ready
 *   volatile.cpu.nodes           cpuset,     the NUMA nodes a start picked
 *                                balanced
 *   volatile.<dev>.name          [a-z0-9._-] a NIC's name inside the guest
 *   volatile.<dev>.host_name     veth|tap +  a snapshot taken while the box
 *                                8 hex       ran records its host side
 *                                             interface, and a restore copies
 *                                             it onto the instance (import
 *                                             drops that one); only the form
 *                                             Incus generates, never a name
 *                                             that could be a host's own
 *                                             (Incus removes the interface
 *                                             named there when it stops)
 *
 * Refused on purpose though Incus writes them: volatile.apply_template (the
 * daemon would render templates from the file, on the host, at first
 * start; a box export has always been started once, so never has it),
 * volatile.<dev>.last_state.* (which host interface or device to hand back
 * or delete when the box stops) and apply_quota, and the cluster ones.
 *
 * Devices: a root disk (type disk, path /, with nothing but pool and
 * size); box's own doors (expose-*: a proxy from 127.0.0.1 on the host,
 * exactly as `box expose` writes it) and its pinned address (eth0 on the
 * box network with ipv4.address), which import drops from the instance
 * and which a snapshot may keep.  Any other device - a disk with a
 * source, a NIC of any kind, proxy, unix-char, unix-block, usb, gpu,
 * infiniband, tpm, pci - is refused.
 *
 * Profiles: the instance's are replaced by box-net on import; a snapshot's
 * come back on restore, so a snapshot may name box-net or nothing.
 * A stateful instance or snapshot (a saved memory image the daemon would
 * hand to CRIU/QEMU) is refused.
 */
#include "box/life/vet.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/door.h"
#include "box/egress/egress.h"
#include "box/life/life.h"
#include "incus/idmap.h"
#include "model/names.h"
#include "model/profile.h"

#define IDMAP_HOST_MIN	65536LL

void
vet_init(struct vet *v)
{
	memset(v, 0, sizeof(*v));
}

/* Hostile text into a message: printable ASCII, bounded. */
static void
clean(char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f ||
		    *s == '"')
			*s = '?';
}

void
vet_add(struct vet *v, const char *fmt, ...)
{
	char buf[VET_ITEM];
	va_list ap;
	int i;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (i = 0; i < v->n; i++)
		if (strcmp(v->item[i], buf) == 0)
			return;
	if (v->n == VET_MAX_ITEMS) {
		v->more++;
		return;
	}
	memcpy(v->item[v->n++], buf, sizeof(buf));
}

size_t
vet_list(const struct vet *v, char *buf, size_t cap)
{
	size_t need = 0;
	int i, n;

	if (cap > 0)
		buf[0] = '\0';
	for (i = 0; i < v->n; i++) {
		n = snprintf(need < cap ? buf + need : NULL,
		    need < cap ? cap - need : 0, "%s%s", i ? ", " : "",
		    v->item[i]);
		need += (size_t)n;
	}
	if (v->more > 0) {
		n = snprintf(need < cap ? buf + need : NULL,
		    need < cap ? cap - need : 0, ", and %d more", v->more);
		need += (size_t)n;
	}
	return need;
}

static int
starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* Every byte of s in set, and 1..max of them. */
static int
only(const char *s, const char *set, size_t max)
{
	size_t n = strlen(s);

	return n > 0 && n <= max && strspn(s, set) == n;
}

static int
is_bool(const char *s)
{
	return strcmp(s, "true") == 0 || strcmp(s, "false") == 0;
}

#define DIGITS	"0123456789"
#define HEX	"0123456789abcdef"

/* The id map Incus keeps in volatile.idmap.*: onto host ids >= 64K. */
static const char *
idmap_why(const char *s)
{
	struct incus_idmap m[INCUS_IDMAP_MAX];
	size_t i, n;

	if (incus_idmap_parse(s, m, INCUS_IDMAP_MAX, &n) < 0)
		return "not an id map";
	for (i = 0; i < n; i++) {
		/* host + range <= 2^32, said without overflowing */
		if (m[i].hostid < 0 || m[i].nsid < 0 || m[i].maprange < 1 ||
		    m[i].hostid > (1LL << 32) ||
		    m[i].maprange > (1LL << 32) - m[i].hostid)
			return "not an id map";
		if (m[i].hostid < IDMAP_HOST_MIN)
			return "maps the box onto host ids below 65536";
	}
	return NULL;
}

/* volatile.<dev><suffix>, <dev> one part */
static int
is_dev_key(const char *key, const char *suffix)
{
	size_t n = strlen(key), sn = strlen(suffix);
	const char *dev = key + 9;

	return starts(key, "volatile.") && n > 9 + sn &&
	    strcmp(key + n - sn, suffix) == 0 &&
	    memchr(dev, '.', (size_t)(key + n - sn - dev)) == NULL;
}

/* veth or tap and 8 hex digits: the names Incus generates */
static int
generated_ifname(const char *v)
{
	size_t p = starts(v, "veth") ? 4 : starts(v, "tap") ? 3 : 0;

	return p > 0 && strlen(v + p) == 8 && strspn(v + p, HEX) == 8;
}

static int ipv4_ok(const char *s);

/* "2026-11-30T13:03:53Z", as text_utc writes it */
static int
utc_ok(const char *s)
{
	static const char form[] = "dddd-dd-ddTdd:dd:ddZ";
	size_t i;

	if (strlen(s) != sizeof(form) - 1)
		return 0;
	for (i = 0; form[i] != '\0'; i++)
		if (form[i] == 'd' ? !(s[i] >= '0' && s[i] <= '9') :
		    s[i] != form[i])
			return 0;
	return 1;
}

#define NAMECH	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" DIGITS
#define SAFECH	NAMECH "._-"

/* box/egress/egress.h's grammar, to the letter */
static int
egress_ok(const char *s)
{
	struct egress *p = malloc(sizeof(*p));
	char why[128];
	int ok;

	if (p == NULL)
		return 0;
	ok = egress_parse(s, p, why, sizeof(why)) == 0;
	free(p);
	return ok;
}

/*
 * The grammar of each stamp box writes (box/life/mint.c, box/door.h,
 * box/egress/egress.h, host/stack/migrate.c): a file's value outside it is
 * refused, so nothing box later prints or parses from a stamp holds what
 * it never writes.  A user.box.* or user.claudebox.* key not listed is
 * plain text: printable ASCII, no backslash, at most 256.
 */
static const char *
stamp_why(const char *key, const char *v)
{
	static const char *const times[] = { "user.box.created",
	    "user.box.imported", "user.box.imported.last", "user.box.migrated",
	    NULL };
	static const char *const versions[] = { "user.box.version",
	    "user.box.imported.by", "user.box.imported.last.by",
	    "user.box.migrated.by", NULL };
	static const char *const names[] = { "user.box.template",
	    "user.box.role", "user.box.mode.asked", NULL };
	int i;

	if (strcmp(key, "user.box") == 0 || strcmp(key, "user.claudebox") == 0)
		return strcmp(v, "1") == 0 ? NULL : "not 1";
	for (i = 0; times[i] != NULL; i++)
		if (strcmp(key, times[i]) == 0)
			return utc_ok(v) ? NULL : "not a UTC time";
	for (i = 0; versions[i] != NULL; i++)
		if (strcmp(key, versions[i]) == 0)
			return only(v, SAFECH "+~", 64) ? NULL : "not a version";
	for (i = 0; names[i] != NULL; i++)
		if (strcmp(key, names[i]) == 0)
			return *v == '\0' || only(v, SAFECH, 64) ? NULL :
			    "not a name";
	if (strcmp(key, "user.box.user") == 0)
		return only(v, "abcdefghijklmnopqrstuvwxyz" DIGITS "_-", 32) ?
		    NULL : "not a user name";
	if (strcmp(key, "user.box.idle-stop") == 0)	/* box/life/idle.h */
		return only(v, DIGITS, 8) ? NULL : "not a count of seconds";
	if (strcmp(key, "user.box.idle.mark") == 0)
		return only(v, DIGITS ":", 64) ? NULL : "not an idle mark";
	if (strcmp(key, "user.box.schema") == 0 ||
	    strcmp(key, "user.box.imported.count") == 0)
		return only(v, DIGITS, 18) ? NULL : "not a number";
	if (strcmp(key, "user.box.mode") == 0)
		return strcmp(v, "container") == 0 || strcmp(v, "vm") == 0 ?
		    NULL : "not container or vm";
	if (strcmp(key, "user.box.origin") == 0)
		return strcmp(v, "mint") == 0 || strcmp(v, "clone") == 0 ||
		    strcmp(v, "import") == 0 || strcmp(v, "migrate") == 0 ?
		    NULL : "not mint, clone, import or migrate";
	if (strcmp(key, "user.box.origin.from") == 0)
		return only(v, SAFECH "/", 128) ? NULL : "not a box or snapshot";
	if (strcmp(key, "user.box.image") == 0)
		return only(v, SAFECH ":/", 128) ? NULL : "not an image";
	if (strcmp(key, "user.box.image.fingerprint") == 0)
		return only(v, HEX, 64) ? NULL : "not an image fingerprint";
	if (strcmp(key, "user.box.rig.repo") == 0 ||
	    strcmp(key, "user.box.rig.ref") == 0)
		return only(v, SAFECH ":/@+~", 256) ? NULL : "not a repository "
		    "or ref";
	if (strcmp(key, EGRESS_KEY) == 0)
		return egress_ok(v) ? NULL : "not an egress policy";
	if (strcmp(key, DOOR_PIN_KEY) == 0)
		return ipv4_ok(v) ? NULL : "not an address";
	for (i = 0; v[i] != '\0'; i++)
		if ((unsigned char)v[i] < 0x20 || (unsigned char)v[i] >= 0x7f ||
		    v[i] == '\\')
			return "not plain text";
	return i <= 256 ? NULL : "longer than 256";
}

const char *
vet_key(const char *key, const char *v, int snapshot)
{
	static const char *const any[] = {
	    "cloud-init.user-data", "cloud-init.vendor-data",
	    "cloud-init.network-config", "user.user-data", "user.meta-data",
	    "user.vendor-data", "user.network-config", "limits.cpu",
	    "limits.cpu.allowance", "limits.cpu.priority", "limits.memory",
	    "limits.memory.enforce", "limits.memory.swap",
	    "limits.memory.swap.priority", "limits.processes",
	    "limits.disk.priority", NULL };
	static const char *const bools[] = { "boot.autostart",
	    "security.nesting", "security.secureboot", "volatile.apply_nvram",
	    "volatile.last_state.ready", NULL };
	static const char *const ids[] = { "volatile.uuid",
	    "volatile.uuid.generation", "volatile.cloud-init.instance-id",
	    NULL };
	int i;

	for (i = 0; any[i] != NULL; i++)
		if (strcmp(key, any[i]) == 0)
			return NULL;
	if (strcmp(key, "user.box") == 0 || strcmp(key, "user.claudebox") == 0 ||
	    starts(key, "user.box.") || starts(key, "user.claudebox."))
		return stamp_why(key, v);
	if (starts(key, "image.") && key[6] != '\0')
		return NULL;
	for (i = 0; bools[i] != NULL; i++)
		if (strcmp(key, bools[i]) == 0)
			return is_bool(v) ? NULL : "not true or false";
	for (i = 0; ids[i] != NULL; i++)
		if (strcmp(key, ids[i]) == 0)
			return only(v, HEX "-", 64) ? NULL : "not an id";
	if (strcmp(key, "boot.autostart.delay") == 0 ||
	    strcmp(key, "boot.autostart.priority") == 0 ||
	    strcmp(key, "volatile.idmap.base") == 0 ||
	    strcmp(key, "volatile.vsock_id") == 0)
		return only(v, DIGITS, 10) ? NULL : "not a number";
	if (strcmp(key, "volatile.base_image") == 0)
		return only(v, HEX, 64) ? NULL : "not an image fingerprint";
	if (strcmp(key, "volatile.vm.definition") == 0)
		return only(v, "abcdefghijklmnopqrstuvwxyz" DIGITS ".-_", 64) ?
		    NULL : "not a machine type";
	if (strcmp(key, "volatile.last_state.power") == 0)
		return strcmp(v, "RUNNING") == 0 || strcmp(v, "STOPPED") == 0 ?
		    NULL : "not RUNNING or STOPPED";
	if (strcmp(key, "volatile.idmap.next") == 0 ||
	    strcmp(key, "volatile.idmap.current") == 0 ||
	    strcmp(key, "volatile.last_state.idmap") == 0)
		return idmap_why(v);
	if (strcmp(key, "volatile.cpu.nodes") == 0)
		return strcmp(v, "balanced") == 0 || only(v, DIGITS ",-", 64) ?
		    NULL : "not a cpuset";
	if (is_dev_key(key, ".name"))
		return only(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    DIGITS "._-", 15) ? NULL : "not an interface name";
	if (is_dev_key(key, ".hwaddr"))
		return only(v, HEX "ABCDEF:", 32) ? NULL : "not a MAC address";
	/*
	 * On a snapshot, and on an instance too: restoring a snapshot taken
	 * while the box ran copies the key onto the stopped instance.
	 * Import drops the instance's (as it drops the MAC), so no start
	 * reuses a name another box's interface may hold.
	 */
	if (is_dev_key(key, ".host_name"))
		return generated_ifname(v) ? NULL : "names a host interface";
	return "";
}

int
vet_snapshot_name_ok(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n <= 63 && strchr(".-_", s[0]) == NULL &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    DIGITS "._-") == n;
}

static const char *
kv_get(const struct vet_dev *d, const char *k)
{
	int i;

	for (i = 0; i < d->n; i++)
		if (strcmp(d->kv[i].k, k) == 0)
			return d->kv[i].v;
	return NULL;
}

/* Every key of d among the NULL-ended set? */
static int
keys_within(const struct vet_dev *d, const char *const *set)
{
	int i, j;

	for (i = 0; i < d->n; i++) {
		for (j = 0; set[j] != NULL; j++)
			if (strcmp(d->kv[i].k, set[j]) == 0)
				break;
		if (set[j] == NULL)
			return 0;
	}
	return 1;
}

static int
ipv4_ok(const char *s)
{
	int parts = 0;

	while (parts < 4) {
		size_t n = strspn(s, DIGITS);

		if (n == 0 || n > 3 || atoi(s) > 255)
			return 0;
		s += n;
		parts++;
		if (parts < 4 && *s++ != '.')
			return 0;
	}
	return *s == '\0';
}

/* "tcp:<ip>:<port>" with ip either 127.0.0.1 or (any_ip) a dotted quad. */
static int
tcp_ok(const char *s, int any_ip)
{
	char ip[32];
	const char *colon;
	size_t n;

	if (s == NULL || !starts(s, "tcp:"))
		return 0;
	s += 4;
	colon = strrchr(s, ':');
	if (colon == NULL || (n = (size_t)(colon - s)) >= sizeof(ip) ||
	    !only(colon + 1, DIGITS, 5) || atoi(colon + 1) < 1 ||
	    atoi(colon + 1) > 65535)
		return 0;
	memcpy(ip, s, n);
	ip[n] = '\0';
	return any_ip ? ipv4_ok(ip) : strcmp(ip, "127.0.0.1") == 0;
}

/* A door exactly as `box expose` writes it (see door_device_kv()). */
static int
door_ok(const struct vet_dev *d)
{
	static const char *const keys[] = { "type", "listen", "connect",
	    "bind", "nat", NULL };
	const char *nat = kv_get(d, "nat"), *bind = kv_get(d, "bind");

	if (!starts(d->name, "expose-") || !keys_within(d, keys) ||
	    bind == NULL || strcmp(bind, "host") != 0 ||
	    !tcp_ok(kv_get(d, "listen"), 0))
		return 0;
	if (nat != NULL && strcmp(nat, "true") == 0)
		return tcp_ok(kv_get(d, "connect"), 1);
	return (nat == NULL || strcmp(nat, "false") == 0) &&
	    tcp_ok(kv_get(d, "connect"), 0);
}

/*
 * The pinned eth0 `box expose` writes for a VM's door: the profile's NIC
 * copied onto the instance with ipv4.address added.  A device named eth0
 * replaces the profile's whole, so a restore of a snapshot whose eth0 held
 * only type, network and an address would take the filters off the port:
 * every key of the contract's NIC (model/profile.h) with its value,
 * the address, and nothing else.
 */
int
vet_pin_ok(const struct vet_dev *d)
{
	const char *ip = kv_get(d, "ipv4.address"), *x;
	size_t i;

	if (strcmp(d->name, CONTRACT_NIC) != 0 || ip == NULL || !ipv4_ok(ip) ||
	    d->n != (int)contract_nnic_keys + 1)
		return 0;
	for (i = 0; i < contract_nnic_keys; i++)
		if ((x = kv_get(d, contract_nic_keys[i].key)) == NULL ||
		    contract_nic_keys[i].value == NULL ||
		    strcmp(x, contract_nic_keys[i].value) != 0)
			return 0;
	return 1;
}

/* A short account of a refused device, for the message. */
static void
describe(const struct vet_dev *d, char *buf, size_t cap)
{
	const char *type = kv_get(d, "type"), *path = kv_get(d, "path"),
	    *src = kv_get(d, "source"), *x;

	if (type == NULL || *type == '\0') {
		snprintf(buf, cap, "no type");
	} else if (strcmp(type, "disk") == 0) {
		if (path != NULL && strcmp(path, "/") == 0) {
			int i;

			x = "?";
			for (i = 0; i < d->n; i++)
				if (strcmp(d->kv[i].k, "type") != 0 &&
				    strcmp(d->kv[i].k, "path") != 0 &&
				    strcmp(d->kv[i].k, "pool") != 0 &&
				    strcmp(d->kv[i].k, "size") != 0) {
					x = d->kv[i].k;
					break;
				}
			snprintf(buf, cap, "root disk with %.60s", x);
		} else if (src != NULL && src[0] == '/') {
			snprintf(buf, cap, "disk %.60s from the host",
			    path ? path : "(no path)");
		} else if (src != NULL) {
			snprintf(buf, cap, "disk %.60s from volume %.40s",
			    path ? path : "(no path)", src);
		} else {
			snprintf(buf, cap, "disk %.60s", path ? path :
			    "(no path)");
		}
	} else if (strcmp(type, "nic") == 0) {
		if ((x = kv_get(d, "nictype")) != NULL)
			snprintf(buf, cap, "nic %.40s", x);
		else if ((x = kv_get(d, "network")) != NULL)
			snprintf(buf, cap, "nic on network %.40s", x);
		else
			snprintf(buf, cap, "nic");
	} else if (strcmp(type, "proxy") == 0) {
		x = kv_get(d, "listen");
		snprintf(buf, cap, "proxy %.60s", x ? x : "");
	} else {
		snprintf(buf, cap, "%.40s", type);
	}
	clean(buf);
}

static void
vet_devices(struct vet *v, const struct vet_inst *in, const char *where)
{
	static const char *const root_keys[] = { "type", "path", "pool",
	    "size", NULL };
	/* the instance in the file only: import leaves its doors behind */
	int i, roots = 0, doors = in->snapshot == NULL &&
	    in->prof_rule == VET_PROFILES_IGNORE;

	for (i = 0; i < in->ndev; i++) {
		const struct vet_dev *d = &in->dev[i];
		const char *type = kv_get(d, "type"), *path = kv_get(d, "path"),
		    *size = kv_get(d, "size");
		char what[128], name[48];

		if (type != NULL && strcmp(type, "disk") == 0 && path != NULL &&
		    strcmp(path, "/") == 0 && keys_within(d, root_keys) &&
		    (size == NULL || only(size, DIGITS "KMGTPEiBb.", 24))) {
			roots++;
			continue;
		}
		snprintf(name, sizeof(name), "%.40s", d->name);
		clean(name);
		if (type != NULL && strcmp(type, "proxy") == 0 &&
		    door_ok(d) && !doors) {
			/* a file carries no doors: a snapshot's would come
			 * back on restore, open, nobody having opened it */
			if (in->snapshot != NULL)
				vet_add(v, "device \"%s\" (a door, %s: a "
				    "file carries no doors)", name, where);
			else
				vet_add(v, "device \"%s\" (a door: a box "
				    "carries none until box expose)", name);
			continue;
		}
		if ((type != NULL && strcmp(type, "proxy") == 0 &&
		    door_ok(d)) ||
		    (type != NULL && strcmp(type, "nic") == 0 && vet_pin_ok(d)))
			continue;
		describe(d, what, sizeof(what));
		if (in->snapshot != NULL)
			vet_add(v, "device \"%s\" (%s, %s)", name, what, where);
		else
			vet_add(v, "device \"%s\" (%s)", name, what);
	}
	if (roots > 1)
		vet_add(v, "%d root disks (%s)", roots, where);
}

void
vet_inst(struct vet *v, const struct vet_inst *in)
{
	char where[192], key[80];
	int i;

	if (in->where != NULL)
		snprintf(where, sizeof(where), "%.190s", in->where);
	else if (in->snapshot != NULL)
		snprintf(where, sizeof(where), "snapshot %.60s", in->snapshot);
	else
		snprintf(where, sizeof(where), "instance");
	clean(where);
	if (in->snapshot != NULL && !vet_snapshot_name_ok(in->snapshot))
		vet_add(v, "a snapshot name box does not accept (%s)", where);
	for (i = 0; i < in->ncfg; i++) {
		const char *why = vet_key(in->cfg[i].k, in->cfg[i].v,
		    in->snapshot != NULL || in->stale_copy);

		if (why == NULL || (in->stale_copy &&
		    strcmp(in->cfg[i].k, "volatile.apply_template") == 0))
			continue;
		snprintf(key, sizeof(key), "%.70s", in->cfg[i].k);
		clean(key);
		if (*why == '\0')
			vet_add(v, "%s (%s)", key, where);
		else
			vet_add(v, "%s (%s: %s)", key, where, why);
	}
	vet_devices(v, in, where);
	if (in->stateful != 0)
		vet_add(v, "%s (%s)", in->stateful > 0 ? "stateful" :
		    "an unreadable stateful flag", where);
	if (in->prof_rule == VET_PROFILES_BOXNET && !(in->nprof == 1 &&
	    strcmp(in->profiles[0], CONTRACT_PROFILE) == 0))
		vet_add(v, "profiles other than %s alone (%s)",
		    CONTRACT_PROFILE, where);
	if (in->prof_rule == VET_PROFILES_SUBSET)
		for (i = 0; i < in->nprof; i++)
			if (strcmp(in->profiles[i], CONTRACT_PROFILE) != 0) {
				char p[48];

				snprintf(p, sizeof(p), "%.40s", in->profiles[i]);
				clean(p);
				vet_add(v, "profile \"%s\" (%s)", p, where);
			}
}

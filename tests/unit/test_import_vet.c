/*
 * Import vetting: the strict YAML reader, the allowlist, the tar walk over
 * plain and gzip exports, the daemon-side check, and their bounds.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box/life/vet.h"
#include "box/import/vet_export.h"
#include "box/import/vet_export_test.h"
#include "box/import/yaml.h"
#include "incus/backup.h"
#include "t.h"
#include "util/gzstream.h"

/* --- YAML ----------------------------------------------------------------- */

static int
yparse(const char *s, struct yaml_doc *d)
{
	return yaml_parse(d, s, strlen(s));
}

static int
yrefused(const char *s)
{
	struct yaml_doc d;
	int rc = yparse(s, &d);

	yaml_free(&d);
	return rc == -EBOX_PROTO;
}

/* the text at a dotted path of keys (no sequences) */
static const char *
yat(const struct yaml_doc *d, const char *path)
{
	char buf[256], *p, *save = NULL;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = strtok_r(buf, "/", &save); p; p = strtok_r(NULL, "/", &save))
		n = yaml_get(d, n, p);
	return yaml_str(d, n, NULL);
}

TEST(yaml_reads_what_yaml_v2_writes)
{
	static const char y[] =
	    "name: hi-probe\n"
	    "snapshots:\n"
	    "- snap0\n"
	    "- snap1\n"
	    "optimized: false\n"
	    "config:\n"
	    "  container:\n"
	    "    config:\n"
	    "      limits.cpu: \"1\"\n"
	    "      volatile.idmap.next: '[{\"Isuid\":true}]'\n"
	    "      'it''s': 'it''s'\n"
	    "      user.box.note: a long plain scalar that yaml.v2 folded\n"
	    "        onto a second line\n"
	    "      cloud-init.user-data: |\n"
	    "        #cloud-config\n"
	    "        runcmd:\n"
	    "\n"
	    "          - echo hi\n"
	    "      esc: \"tab\\there \\u00e9\\x41 \\\n"
	    "        joined\"\n"
	    "      strip: |-\n"
	    "        a\n"
	    "\n"
	    "      keep: |+\n"
	    "        a\n"
	    "\n"
	    "      indented: |2-\n"
	    "         three\n"
	    "    devices: {}\n"
	    "    profiles:\n"
	    "    - box-net\n"
	    "  snapshots:\n"
	    "  - name: snap0\n"
	    "    config: {}\n"
	    "    stateful: false\n"
	    "  empty:\n"
	    "  nul: ~\n";
	struct yaml_doc d;
	int sn, k;

	if (yparse(y, &d) != 0)
		t_fail(__FILE__, __LINE__, "line %d: %s", d.line, d.why);
	CHECK_STR(yat(&d, "name"), "hi-probe");
	CHECK_STR(yat(&d, "config/container/config/limits.cpu"), "1");
	CHECK_STR(yat(&d, "config/container/config/volatile.idmap.next"),
	    "[{\"Isuid\":true}]");
	CHECK_STR(yat(&d, "config/container/config/it's"), "it's");
	CHECK_STR(yat(&d, "config/container/config/user.box.note"),
	    "a long plain scalar that yaml.v2 folded onto a second line");
	CHECK_STR(yat(&d, "config/container/config/cloud-init.user-data"),
	    "#cloud-config\nruncmd:\n\n  - echo hi\n");
	CHECK_STR(yat(&d, "config/container/config/esc"),
	    "tab\there \xc3\xa9" "A joined");
	CHECK_STR(yat(&d, "config/container/config/strip"), "a");
	CHECK_STR(yat(&d, "config/container/config/keep"), "a\n\n");
	CHECK_STR(yat(&d, "config/container/config/indented"), " three");
	CHECK_INT(yaml_type(&d, yaml_get(&d, yaml_get(&d, yaml_get(&d, 0,
	    "config"), "container"), "devices")), YAML_MAP);
	sn = yaml_get(&d, 0, "snapshots");
	CHECK_INT(yaml_type(&d, sn), YAML_SEQ);
	k = yaml_child(&d, sn);
	CHECK_STR(yaml_str(&d, k, NULL), "snap0");
	CHECK_STR(yaml_str(&d, yaml_next(&d, k), NULL), "snap1");
	k = yaml_child(&d, yaml_get(&d, yaml_get(&d, 0, "config"),
	    "snapshots"));
	CHECK_STR(yaml_str(&d, yaml_get(&d, k, "name"), NULL), "snap0");
	CHECK_INT(yaml_bool(&d, yaml_get(&d, k, "stateful")), 0);
	CHECK(yaml_is_null(&d, yaml_get(&d, yaml_get(&d, 0, "config"),
	    "empty")));
	CHECK(yaml_is_null(&d, yaml_get(&d, yaml_get(&d, 0, "config"),
	    "nul")));
	CHECK_INT(yaml_bool(&d, yaml_get(&d, 0, "optimized")), 0);
	yaml_free(&d);
}

TEST(yaml_refuses_what_it_cannot_be_sure_of)
{
	static const char *bad[] = {
		"a: &x 1\nb: *x\n",		/* anchor, alias */
		"a: !!str 1\n",			/* tag */
		"a:\n  <<: {b: 1}\n",		/* merge (and flow) */
		"a:\n  <<:\n    b: 1\n",	/* merge */
		"a: 1 # note\n",		/* comment */
		"# note\na: 1\n",
		"---\na: 1\n",			/* document markers */
		"a: 1\n---\nb: 2\n",
		"a: 1\n...\n",
		"%YAML 1.1\na: 1\n",		/* directive */
		"a: {b: 1}\n",			/* flow collections */
		"a: [1]\n",
		"a: >\n  folded\n",		/* folded scalar */
		"a:\n\tb: 1\n",			/* tab indentation */
		"a: 1\na: 2\n",			/* duplicate keys */
		"a: 1\n\"a\": 2\n",
		"a: 1",				/* no final newline */
		"a: \xff\n",			/* not UTF-8 */
		"a: \xc0\xaf\n",		/* overlong */
		"\xef\xbb\xbf" "a: 1\n",	/* BOM */
		"a: 1\r\n",			/* CR */
		"a: 'x\xe2\x80\xa8y'\n",	/* LS: a line break to libyaml */
		"a: x\xc2\x85y\n",		/* NEL */
		"a: b: c\n",			/* mapping in a plain scalar */
		"? a\n: 1\n",			/* complex key */
		"a: \"unterminated\n",
		"a: \"bad \\q escape\"\n",
		"a: \"nul \\0\"\n",
		"a: 'x' y\n",			/* text after a quoted value */
		"a:\n  - - 1\n",		/* nested inline sequence */
		"a: 1\n  b: 2\n",		/* bad indentation */
		"a:\n    b: 1\n  c: 2\n",
		"just a scalar\n",
		"- a\nb: 1\n",
		"null: 1\n",			/* a key yaml.v2 reads as "" */
		"a: @x\n",
		"a: `x`\n",
		"a: |\n   deeper\n  less\n",	/* block ends, then junk */
		"a: |\n    \n  x\n",		/* empty line deeper than text */
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!yrefused(bad[i]))
			t_fail(__FILE__, __LINE__, "accepted: %s", bad[i]);
}

TEST(yaml_bounds)
{
	char *s = malloc(200000), *p;
	int i;

	/* nesting deeper than YAML_MAX_DEPTH */
	p = s;
	for (i = 0; i < YAML_MAX_DEPTH + 2; i++)
		p += sprintf(p, "%*sk:\n", i * 2, "");
	p += sprintf(p, "%*sk: v\n", i * 2, "");
	CHECK(yrefused(s));
	/* more keys in a mapping than YAML_MAX_KEYS */
	p = s;
	for (i = 0; i < YAML_MAX_KEYS + 1; i++)
		p += sprintf(p, "k%d: v\n", i);
	CHECK(yrefused(s));
	/* exactly the limit is fine */
	p = s;
	for (i = 0; i < 100; i++)
		p += sprintf(p, "k%d: v\n", i);
	CHECK(!yrefused(s));
	free(s);
}

/* --- the allowlist ---------------------------------------------------------- */

#define IDMAP_OK "[{\"Isuid\":true,\"Isgid\":false,\"Hostid\":1000000," \
	"\"Nsid\":0,\"Maprange\":1000000000}]"
#define IDMAP_ROOT "[{\"Isuid\":true,\"Isgid\":true,\"Hostid\":0," \
	"\"Nsid\":0,\"Maprange\":65536}]"

/* issue 22: each stamp has its grammar; a CSI or a newline is refused */
TEST(vet_key_stamp_grammar)
{
	static const char *const ok[][2] = {
		{ "user.box.created", "2026-11-30T13:03:53Z" },
		{ "user.box.version", "0.4.0-dev+3f2a" },
		{ "user.box.template", "claude-box" },
		{ "user.box.user", "dev" }, { "user.box.mode", "vm" },
		{ "user.box.mode.asked", "" }, { "user.box.schema", "1" },
		{ "user.box.origin", "clone" },
		{ "user.box.origin.from", "a/s1" },
		{ "user.box.image", "box-test-busybox" },
		{ "user.box.egress", "allow:pypi.org,*.npmjs.org" },
		{ "user.box.expose.pinned", "10.88.0.9" },
		{ "user.box.future", "plain words" },
	};
	static const char *const bad[][2] = {
		{ "user.box.template", "\x1b[2Jx" },
		{ "user.box.template", "a\nFAKE RUNNING" },
		{ "user.box.created", "yesterday" },
		{ "user.box.origin", "mint\x1b]0;t\x07" },
		{ "user.box.user", "ROOT" }, { "user.box", "2" },
		{ "user.box.egress", "allow:\x1b" },
		{ "user.box.future", "a\x9b" }, { "user.box.future", "a\\x" },
		{ "user.claudebox.x", "\x1b[2J" },
	};
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		CHECK(vet_key(ok[i][0], ok[i][1], 0) == NULL);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(vet_key(bad[i][0], bad[i][1], 0) != NULL);
}

TEST(vet_key_allowlist)
{
	static const char *const ok[][2] = {
		{ "user.box", "1" }, { "user.box.origin", "mint" },
		{ "user.claudebox", "1" }, { "user.claudebox.x", "y" },
		{ "cloud-init.user-data", "#cloud-config\n" },
		{ "user.user-data", "x" }, { "image.os", "busybox" },
		{ "limits.cpu", "4" }, { "limits.memory", "8GiB" },
		{ "limits.processes", "500" }, { "boot.autostart", "true" },
		{ "security.nesting", "true" },
		{ "security.secureboot", "false" },
		{ "volatile.base_image", "253d14ba1f1b6163" },
		{ "volatile.uuid", "282d759d-7fac-46ec-97e3-6a91e5bc146c" },
		{ "volatile.eth0.hwaddr", "10:66:6a:a0:80:bb" },
		{ "volatile.idmap.next", IDMAP_OK },
		{ "volatile.last_state.idmap", "[]" },
		{ "volatile.last_state.power", "STOPPED" },
		{ "volatile.idmap.base", "0" },
		{ "volatile.cpu.nodes", "balanced" },
		{ "volatile.eth0.name", "eth0" },
	};
	static const char *const bad[][2] = {
		{ "security.privileged", "true" }, { "security.nesting", "1" },
		{ "security.idmap.isolated", "false" },
		{ "raw.lxc", "lxc.cap.drop=" }, { "raw.idmap", "both 0 0" },
		{ "raw.apparmor", "" }, { "raw.seccomp", "" },
		{ "raw.qemu", "-x" }, { "linux.kernel_modules", "nbd" },
		{ "nvidia.runtime", "true" }, { "environment.X", "1" },
		{ "snapshots.schedule", "* * * * *" },
		{ "limits.kernel.memlock", "unlimited" },
		{ "user.other", "x" }, { "boot.host_shutdown_timeout", "1" },
		{ "volatile.apply_template", "create" },
		{ "volatile.eth0.host_name", "eth0" },
		{ "volatile.idmap.next", IDMAP_ROOT },
		{ "volatile.idmap.current", "not json" },
		{ "volatile.idmap.next", "[{\"Isuid\":true,\"Hostid\":100000,"
		    "\"Nsid\":0,\"Maprange\":1,\"Extra\":1}]" },
		{ "volatile.base_image", "../../x" },
		{ "volatile.something", "x" }, { "image.", "x" },
		{ "volatile.last_state.power", "FROZEN" },
		{ "volatile.eth0.x.hwaddr", "00:00:00:00:00:00" },
		{ "volatile.eth0.last_state.created", "true" },
		{ "volatile.eth0.apply_quota", "1GiB" },
		{ "volatile.cluster.group", "x" },
		{ "volatile.eth0.name", "a b" },
	};
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (vet_key(ok[i][0], ok[i][1], 0) != NULL)
			t_fail(__FILE__, __LINE__, "refused %s=%s", ok[i][0],
			    ok[i][1]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (vet_key(bad[i][0], bad[i][1], 0) == NULL)
			t_fail(__FILE__, __LINE__, "allowed %s=%s", bad[i][0],
			    bad[i][1]);
	/* a snapshot taken while running: Incus's own veth name only */
	CHECK(vet_key("volatile.eth0.host_name", "vetha6faaba0", 1) == NULL);
	/* a restored box carries it on the instance too (import drops it) */
	CHECK(vet_key("volatile.eth0.host_name", "vetha6faaba0", 0) == NULL);
	CHECK(vet_key("volatile.eth0.host_name", "eth0", 0) != NULL);
	CHECK(vet_key("volatile.eth0.host_name", "eth0", 1) != NULL);
	CHECK(vet_key("volatile.eth0.host_name", "vethA6FAABA0x", 1) != NULL);
	CHECK(vet_snapshot_name_ok("snap0"));
	CHECK(!vet_snapshot_name_ok(".."));
	CHECK(!vet_snapshot_name_ok("a/b"));
	CHECK(!vet_snapshot_name_ok(""));
	CHECK(!vet_snapshot_name_ok("-x"));
}

static char msg[VET_MAX_ITEMS * (VET_ITEM + 2) + 64];

static const char *
list(const struct vet *v)
{
	vet_list(v, msg, sizeof(msg));
	return msg;
}

#define DEV(name, ...) { name, (const struct vet_kv[]){ __VA_ARGS__ }, \
	(int)(sizeof((const struct vet_kv[]){ __VA_ARGS__ }) / \
	sizeof(struct vet_kv)) }

TEST(vet_inst_devices_and_profiles)
{
	static const struct vet_kv cfg[] = {
		{ "user.box", "1" }, { "security.privileged", "true" },
		{ "raw.lxc", "x" },
	};
	const struct vet_dev devs[] = {
		DEV("root", { "type", "disk" }, { "path", "/" },
		    { "pool", "default" }, { "size", "10GiB" }),
		DEV("data", { "type", "disk" }, { "path", "/mnt" },
		    { "source", "/" }),
		DEV("eth1", { "type", "nic" }, { "nictype", "macvlan" },
		    { "parent", "eth0" }),
		DEV("p", { "type", "proxy" }, { "listen", "tcp:0.0.0.0:22" },
		    { "connect", "tcp:127.0.0.1:22" }),
		DEV("c", { "type", "unix-char" }, { "path", "/dev/kvm" }),
		DEV("g", { "type", "gpu" }),
		DEV("expose-3000", { "type", "proxy" },
		    { "listen", "tcp:127.0.0.1:3000" },
		    { "connect", "tcp:127.0.0.1:3000" }, { "bind", "host" }),
		DEV("expose-22", { "type", "proxy" },
		    { "listen", "tcp:127.0.0.1:2222" },
		    { "connect", "tcp:127.0.0.1:22" }, { "bind", "instance" }),
		DEV("eth0", { "type", "nic" }, { "network", "boxnet" },
		    { "name", "eth0" }, { "ipv4.address", "10.88.0.9" }),
	};
	const struct vet_dev rootx[] = {
		DEV("root", { "type", "disk" }, { "path", "/" },
		    { "pool", "default" }, { "shift", "true" }),
	};
	static const char *const prof[] = { "default" };
	static const char *const boxnet[] = { "box-net" };
	struct vet v;
	struct vet_inst in;

	vet_init(&v);
	memset(&in, 0, sizeof(in));
	in.cfg = cfg;
	in.ncfg = 3;
	in.dev = devs;
	in.ndev = (int)(sizeof(devs) / sizeof(devs[0]));
	in.profiles = prof;
	in.nprof = 1;
	vet_inst(&v, &in);
	CHECK_STR(list(&v), "security.privileged (instance), raw.lxc "
	    "(instance), device \"data\" (disk /mnt from the host), device "
	    "\"eth1\" (nic macvlan), device \"p\" (proxy tcp:0.0.0.0:22), "
	    "device \"c\" (unix-char), device \"g\" (gpu), device "
	    "\"expose-22\" (proxy tcp:127.0.0.1:2222), device \"eth0\" (nic "
	    "on network boxnet)");
	/*
	 * The pin: the contract's NIC whole, plus the address (issue 22: an
	 * eth0 of type, network and address took the filters off on
	 * restore); a door only on the file's instance (import drops it).
	 */
	{
		const struct vet_dev pins[] = {
			DEV("eth0", { "type", "nic" }, { "network", "boxnet" },
			    { "name", "eth0" },
			    { "security.port_isolation", "true" },
			    { "security.mac_filtering", "true" },
			    { "security.ipv4_filtering", "true" },
			    { "security.ipv6_filtering", "true" },
			    { "ipv4.address", "10.88.0.9" }),
			DEV("expose-3000", { "type", "proxy" },
			    { "listen", "tcp:127.0.0.1:3000" },
			    { "connect", "tcp:127.0.0.1:3000" },
			    { "bind", "host" }),
		};
		const struct vet_dev off[] = {
			DEV("eth0", { "type", "nic" }, { "network", "boxnet" },
			    { "name", "eth0" },
			    { "security.port_isolation", "true" },
			    { "security.mac_filtering", "false" },
			    { "security.ipv4_filtering", "true" },
			    { "security.ipv6_filtering", "true" },
			    { "ipv4.address", "10.88.0.9" }),
		};
		struct vet_inst p;

		memset(&p, 0, sizeof(p));
		p.dev = pins;
		p.ndev = 2;
		vet_init(&v);
		vet_inst(&v, &p);
		CHECK_INT(v.n, 0);
		p.snapshot = "s0";
		p.prof_rule = VET_PROFILES_SUBSET;
		vet_init(&v);
		vet_inst(&v, &p);
		CHECK_STR(list(&v), "device \"expose-3000\" (a door, snapshot "
		    "s0: a file carries no doors)");
		p.dev = off;
		p.ndev = 1;
		vet_init(&v);
		vet_inst(&v, &p);
		CHECK_STR(list(&v), "device \"eth0\" (nic on network boxnet, "
		    "snapshot s0)");
	}
	/* the same in a snapshot, which also may not name other profiles */
	vet_init(&v);
	in.snapshot = "snap0";
	in.dev = rootx;
	in.ndev = 1;
	in.stateful = 1;
	in.prof_rule = VET_PROFILES_SUBSET;
	vet_inst(&v, &in);
	CHECK_STR(list(&v), "security.privileged (snapshot snap0), raw.lxc "
	    "(snapshot snap0), device \"root\" (root disk with shift, "
	    "snapshot snap0), stateful (snapshot snap0), profile \"default\" "
	    "(snapshot snap0)");
	/* a clean box */
	vet_init(&v);
	memset(&in, 0, sizeof(in));
	in.cfg = cfg;
	in.ncfg = 1;
	in.dev = devs;
	in.ndev = 1;
	in.profiles = boxnet;
	in.nprof = 1;
	in.prof_rule = VET_PROFILES_BOXNET;
	vet_inst(&v, &in);
	CHECK_INT(v.n, 0);
	in.nprof = 0;
	vet_inst(&v, &in);
	CHECK_STR(list(&v), "profiles other than box-net alone (instance)");
}

TEST(vet_items_are_bounded_and_deduplicated)
{
	struct vet v;
	int i;

	vet_init(&v);
	for (i = 0; i < VET_MAX_ITEMS + 10; i++) {
		vet_add(&v, "k%d", i);
		vet_add(&v, "k%d", i / 2);
	}
	CHECK_INT(v.n, VET_MAX_ITEMS);
	CHECK_INT(v.more, 10);
	CHECK(strstr(list(&v), ", and 10 more") != NULL);
}

/* --- exports ---------------------------------------------------------------- */

struct tarb {
	unsigned char *b;
	size_t n, cap;
};

static void
tb_raw(struct tarb *t, const void *p, size_t n)
{
	if (t->n + n > t->cap) {
		t->cap = (t->n + n) * 2 + 4096;
		t->b = realloc(t->b, t->cap);
	}
	memcpy(t->b + t->n, p, n);
	t->n += n;
}

static void
tb_member(struct tarb *t, const char *name, char type, const char *data,
    size_t len)
{
	unsigned char h[512];
	unsigned sum = 0;
	size_t i;
	static const unsigned char zero[512];

	memset(h, 0, sizeof(h));
	snprintf((char *)h, 100, "%s", name);
	snprintf((char *)h + 100, 8, "0000644");
	snprintf((char *)h + 108, 8, "0000000");
	snprintf((char *)h + 116, 8, "0000000");
	snprintf((char *)h + 124, 12, "%011lo", (unsigned long)len);
	snprintf((char *)h + 136, 12, "%011o", 0);
	h[156] = (unsigned char)type;
	memcpy(h + 257, "ustar\0" "00", 8);
	memset(h + 148, ' ', 8);
	for (i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	tb_raw(t, h, 512);
	tb_raw(t, data, len);
	tb_raw(t, zero, (512 - len % 512) % 512);
}

static void
tb_end(struct tarb *t)
{
	static const unsigned char zero[1024];

	tb_raw(t, zero, sizeof(zero));
}

static const char index_y[] =
    "name: clean\n"
    "backend: dir\n"
    "pool: default\n"
    "snapshots:\n"
    "- snap0\n"
    "optimized: false\n"
    "optimized_header: false\n"
    "type: container\n"
    "config:\n"
    "  container:\n"
    "    config:\n"
    "      user.box: \"1\"\n"
    "      volatile.idmap.next: '" IDMAP_OK "'\n"
    "    devices: {}\n"
    "    profiles:\n"
    "    - default\n"
    "    stateful: false\n"
    "  snapshots:\n"
    "  - name: snap0\n"
    "    config:\n"
    "      user.box: \"1\"\n"
    "    devices: {}\n"
    "    profiles:\n"
    "    - box-net\n"
    "    stateful: false\n"
    "  volume:\n"
    "    config: {}\n";

static const char backup_y[] =
    "container:\n"
    "  config:\n"
    "    user.box: \"1\"\n"
    "  devices:\n"
    "    root:\n"
    "      path: /\n"
    "      pool: default\n"
    "      type: disk\n"
    "  profiles:\n"
    "  - box-net\n"
    "snapshots:\n"
    "- name: snap0\n"
    "  config: {}\n"
    "  devices: {}\n"
    "  profiles: []\n";

/* A container export: index, the snapshot, the instance, end. */
static void
export_tar(struct tarb *t, const char *idx, const char *bak)
{
	memset(t, 0, sizeof(*t));
	tb_member(t, "backup/index.yaml", '0', idx, strlen(idx));
	tb_member(t, "backup/snapshots/snap0", '5', "", 0);
	tb_member(t, "backup/snapshots/snap0/backup.yaml", '0', bak,
	    strlen(bak));
	tb_member(t, "backup/container", '5', "", 0);
	tb_member(t, "backup/container/backup.yaml", '0', bak, strlen(bak));
	tb_member(t, "backup/container/rootfs/etc/passwd", '0', "root\n", 5);
}

static int
vet_mem(const struct tarb *t, struct vet *v, char *name)
{
	struct box_err e;

	err_clear(&e);
	vet_init(v);
	return vet_export_mem(t->b, t->n, v, name, 64, &e);
}

/* gzip with stored blocks, so a test can write one */
static uint32_t
crc32_(const unsigned char *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	int k;

	while (n-- > 0) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
	}
	return ~c;
}

static void
gzip_stored(const struct tarb *in, struct tarb *out)
{
	static const unsigned char hdr[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0,
	    0, 3 };
	size_t off = 0;
	uint32_t crc = crc32_(in->b, in->n), len = (uint32_t)in->n;
	unsigned char tr[8];

	memset(out, 0, sizeof(*out));
	tb_raw(out, hdr, sizeof(hdr));
	do {
		size_t k = in->n - off > 65535 ? 65535 : in->n - off;
		unsigned char bh[5];

		bh[0] = off + k == in->n ? 1 : 0;
		bh[1] = (unsigned char)(k & 0xff);
		bh[2] = (unsigned char)(k >> 8);
		bh[3] = (unsigned char)(~k & 0xff);
		bh[4] = (unsigned char)((~k >> 8) & 0xff);
		tb_raw(out, bh, 5);
		tb_raw(out, in->b + off, k);
		off += k;
	} while (off < in->n);
	memcpy(tr, &crc, 4);
	memcpy(tr + 4, &len, 4);
	tb_raw(out, tr, 8);
}

TEST(vet_export_clean_passes_plain_and_gzip)
{
	struct tarb t, g;
	struct vet v;
	char name[64];

	export_tar(&t, index_y, backup_y);
	tb_end(&t);
	CHECK_INT(vet_mem(&t, &v, name), 0);
	CHECK_STR(list(&v), "");
	CHECK_STR(name, "clean");
	gzip_stored(&t, &g);
	CHECK_INT(vet_mem(&g, &v, name), 0);
	CHECK_STR(list(&v), "");
	/* a bad CRC, a truncated stream, trailing garbage: refused */
	g.b[g.n - 6] ^= 1;
	CHECK_INT(vet_mem(&g, &v, name), -EBOX_PROTO);
	g.b[g.n - 6] ^= 1;
	g.n -= 3;
	CHECK_INT(vet_mem(&g, &v, name), -EBOX_PROTO);
	g.n += 3;
	tb_raw(&g, "junk", 4);
	CHECK_INT(vet_mem(&g, &v, name), -EBOX_PROTO);
	free(g.b);
	/* two gzip members back to back are one stream */
	{
		struct tarb a, b, c;

		memset(&a, 0, sizeof(a));
		tb_raw(&a, t.b, 1024);
		memset(&b, 0, sizeof(b));
		tb_raw(&b, t.b + 1024, t.n - 1024);
		gzip_stored(&a, &c);
		gzip_stored(&b, &g);
		tb_raw(&c, g.b, g.n);
		CHECK_INT(vet_mem(&c, &v, name), 0);
		CHECK_STR(list(&v), "");
		free(a.b);
		free(b.b);
		free(c.b);
		free(g.b);
	}
	free(t.b);
}

/* base with its first old replaced by new */
static char *
repl(const char *base, const char *old, const char *new_)
{
	const char *at = strstr(base, old);
	size_t n = (size_t)(at - base);
	char *s = malloc(strlen(base) + strlen(new_) + 1);

	memcpy(s, base, n);
	strcpy(s + n, new_);
	strcat(s, at + strlen(old));
	return s;
}

static char *
with(const char *base, const char *after, const char *add)
{
	const char *at = strstr(base, after);
	size_t n = (size_t)(at - base) + strlen(after);
	char *s = malloc(strlen(base) + strlen(add) + 1);

	memcpy(s, base, n);
	strcpy(s + n, add);
	strcat(s, at + strlen(after));
	return s;
}

TEST(vet_export_names_every_offence)
{
	struct tarb t;
	struct vet v;
	char name[64], *b2;

	/* the instance in backup.yaml: privileged, raw.lxc, a host disk, a
	 * macvlan NIC; a snapshot: raw.idmap and a gpu */
	static const char hostile[] =
	    "container:\n"
	    "  config:\n"
	    "    user.box: \"1\"\n"
	    "    security.privileged: \"true\"\n"
	    "    raw.lxc: x\n"
	    "  devices:\n"
	    "    data:\n"
	    "      path: /mnt\n"
	    "      source: /\n"
	    "      type: disk\n"
	    "    eth1:\n"
	    "      nictype: macvlan\n"
	    "      parent: hi-veth\n"
	    "      type: nic\n"
	    "  profiles:\n"
	    "  - default\n"
	    "snapshots:\n"
	    "- name: snap0\n"
	    "  config:\n"
	    "    raw.idmap: both 0 0\n"
	    "  devices:\n"
	    "    g:\n"
	    "      type: gpu\n";
	char *idx;

	b2 = strdup(hostile);
	export_tar(&t, index_y, b2);
	tb_end(&t);
	CHECK_INT(vet_mem(&t, &v, name), 0);
	CHECK(strstr(list(&v), "security.privileged (instance)") != NULL);
	CHECK(strstr(msg, "raw.lxc (instance)") != NULL);
	CHECK(strstr(msg, "device \"data\" (disk /mnt from the host)") != NULL);
	CHECK(strstr(msg, "device \"eth1\" (nic macvlan)") != NULL);
	CHECK(strstr(msg, "raw.idmap (snapshot snap0)") != NULL);
	CHECK(strstr(msg, "device \"g\" (gpu, snapshot snap0)") != NULL);
	free(t.b);
	free(b2);
	/* index.yaml alone (config: is what GetInfo reads) */
	idx = with(index_y, "      user.box: \"1\"\n",
	    "      security.nesting: \"true\"\n      linux.kernel_modules: x\n");
	export_tar(&t, idx, backup_y);
	tb_end(&t);
	CHECK_INT(vet_mem(&t, &v, name), 0);
	CHECK_STR(list(&v), "linux.kernel_modules (instance)");
	free(t.b);
	free(idx);
	/* a snapshot in the index on another profile, stateful */
	idx = repl(index_y, "  - name: snap0\n    config:\n      user.box: "
	    "\"1\"\n    devices: {}\n    profiles:\n    - box-net\n"
	    "    stateful: false\n", "  - name: snap0\n    stateful: yes\n"
	    "    profiles:\n    - default\n");
	export_tar(&t, idx, backup_y);
	tb_end(&t);
	CHECK_INT(vet_mem(&t, &v, name), 0);
	CHECK_STR(list(&v), "stateful (snapshot snap0), profile \"default\" "
	    "(snapshot snap0)");
	free(t.b);
	free(idx);
	/* the volume record: a size and layout keys, no mount options */
	idx = repl(index_y, "  volume:\n    config: {}\n", "  volume:\n    config:\n"
	    "      size: 10GiB\n      block.filesystem: ext4\n"
	    "      block.mount_options: dev,suid\n");
	export_tar(&t, idx, backup_y);
	tb_end(&t);
	CHECK_INT(vet_mem(&t, &v, name), 0);
	CHECK_STR(list(&v), "volume config block.mount_options (volume)");
	free(t.b);
	free(idx);
	/* optimized, a path-like snapshot name */
	b2 = repl(index_y, "optimized: false\n", "optimized: true\n");
	idx = repl(b2, "- snap0\n", "- ../x\n");
	export_tar(&t, idx, backup_y);
	tb_end(&t);
	CHECK_INT(vet_mem(&t, &v, name), 0);
	CHECK(strstr(list(&v), "an optimized (storage driver) export") != NULL);
	CHECK(strstr(msg, "a snapshot name box does not accept (index)") !=
	    NULL);
	free(t.b);
	free(idx);
	free(b2);
}

TEST(vet_export_snapshot_volume_copy)
{
	struct tarb t;
	struct vet v;
	char name[64], *stale, *evil;

	/* a stale volatile.apply_template in a snapshot volume's own copy is
	 * Incus's doing (restore rewrites the file); anything else is not */
	stale = with(backup_y, "    user.box: \"1\"\n",
	    "    volatile.apply_template: create\n");
	evil = with(backup_y, "    user.box: \"1\"\n", "    raw.lxc: x\n");
	memset(&t, 0, sizeof(t));
	tb_member(&t, "backup/index.yaml", '0', index_y, strlen(index_y));
	tb_member(&t, "backup/snapshots/snap0/backup.yaml", '0', stale,
	    strlen(stale));
	tb_member(&t, "backup/container/backup.yaml", '0', backup_y,
	    strlen(backup_y));
	tb_end(&t);
	CHECK_INT(vet_mem(&t, &v, name), 0);
	CHECK_STR(list(&v), "");
	free(t.b);
	memset(&t, 0, sizeof(t));
	tb_member(&t, "backup/index.yaml", '0', index_y, strlen(index_y));
	tb_member(&t, "backup/snapshots/snap0/backup.yaml", '0', evil,
	    strlen(evil));
	tb_member(&t, "backup/container/backup.yaml", '0', stale,
	    strlen(stale));
	tb_end(&t);
	CHECK_INT(vet_mem(&t, &v, name), 0);
	CHECK_STR(list(&v), "raw.lxc (instance in backup/snapshots/snap0/"
	    "backup.yaml), volatile.apply_template (instance)");
	free(t.b);
	free(stale);
	free(evil);
}

TEST(vet_export_refuses_ambiguous_archives)
{
	struct tarb t;
	struct vet v;
	char name[64];

	/* a second backup.yaml (GNU tar would keep the last) */
	export_tar(&t, index_y, backup_y);
	tb_member(&t, "backup/container/backup.yaml", '0', "x: 1\n", 5);
	tb_end(&t);
	CHECK_INT(vet_mem(&t, &v, name), -EBOX_PROTO);
	free(t.b);
	/* "./" names, "..", absolute */
	export_tar(&t, index_y, backup_y);
	tb_member(&t, "./backup/container/backup.yaml", '0', "x: 1\n", 5);
	tb_end(&t);
	CHECK_INT(vet_mem(&t, &v, name), -EBOX_PROTO);
	free(t.b);
	export_tar(&t, index_y, backup_y);
	tb_member(&t, "backup/container/rootfs/../../x", '0', "", 0);
	tb_end(&t);
	CHECK_INT(vet_mem(&t, &v, name), -EBOX_PROTO);
	free(t.b);
	/* backup.yaml as a symlink to a file on the host */
	memset(&t, 0, sizeof(t));
	tb_member(&t, "backup/index.yaml", '0', index_y, strlen(index_y));
	tb_member(&t, "backup/container/backup.yaml", '2', "", 0);
	tb_end(&t);
	CHECK_INT(vet_mem(&t, &v, name), -EBOX_PROTO);
	free(t.b);
	/* the config directory as a symlink */
	memset(&t, 0, sizeof(t));
	tb_member(&t, "backup/index.yaml", '0', index_y, strlen(index_y));
	tb_member(&t, "backup/container", '2', "", 0);
	tb_end(&t);
	CHECK_INT(vet_mem(&t, &v, name), -EBOX_PROTO);
	free(t.b);
	/* data after the end-of-archive blocks */
	export_tar(&t, index_y, backup_y);
	tb_end(&t);
	tb_member(&t, "backup/container/backup.yaml", '0', "x: 1\n", 5);
	CHECK_INT(vet_mem(&t, &v, name), -EBOX_PROTO);
	free(t.b);
	/* cut inside a member */
	export_tar(&t, index_y, backup_y);
	t.n -= 700;
	CHECK_INT(vet_mem(&t, &v, name), -EBOX_PROTO);
	free(t.b);
	/* an unknown member type, a bad header checksum */
	export_tar(&t, index_y, backup_y);
	tb_member(&t, "backup/x", 'S', "", 0);
	tb_end(&t);
	CHECK_INT(vet_mem(&t, &v, name), -EBOX_PROTO);
	free(t.b);
	export_tar(&t, index_y, backup_y);
	t.b[0] ^= 1;
	tb_end(&t);
	CHECK_INT(vet_mem(&t, &v, name), -EBOX_PROTO);
	free(t.b);
	/* no backup.yaml for the daemon to create the box from */
	memset(&t, 0, sizeof(t));
	tb_member(&t, "backup/index.yaml", '0', index_y, strlen(index_y));
	tb_end(&t);
	CHECK_INT(vet_mem(&t, &v, name), -EBOX_PROTO);
	free(t.b);
	/* YAML the reader will not guess at */
	export_tar(&t, index_y, "container: &a\n  config: {}\n");
	tb_end(&t);
	CHECK_INT(vet_mem(&t, &v, name), -EBOX_PROTO);
	free(t.b);
}

TEST(vet_export_pax_path_and_long_names)
{
	struct tarb t;
	struct vet v;
	char name[64], rec[128], *evil;
	int n;

	/* a PAX path naming backup.yaml counts as backup.yaml */
	evil = with(backup_y, "    user.box: \"1\"\n", "    raw.lxc: x\n");
	export_tar(&t, index_y, backup_y);
	t.n = 0;
	tb_member(&t, "backup/index.yaml", '0', index_y, strlen(index_y));
	tb_member(&t, "backup/container", '5', "", 0);
	/* the record's length counts its own digits: 2 + 35 */
	n = snprintf(rec, sizeof(rec), "%d path=backup/container/backup.yaml\n",
	    37);
	CHECK_INT(n, 37);
	tb_member(&t, "PaxHeaders/x", 'x', rec, (size_t)n);
	tb_member(&t, "innocent", '0', evil, strlen(evil));
	tb_end(&t);
	CHECK_INT(vet_mem(&t, &v, name), 0);
	CHECK_STR(list(&v), "raw.lxc (instance)");
	free(t.b);
	/* so does a GNU long name */
	memset(&t, 0, sizeof(t));
	tb_member(&t, "backup/index.yaml", '0', index_y, strlen(index_y));
	tb_member(&t, "././@LongLink", 'L', "backup/container/backup.yaml",
	    28);
	tb_member(&t, "innocent", '0', evil, strlen(evil));
	tb_end(&t);
	CHECK_INT(vet_mem(&t, &v, name), 0);
	CHECK_STR(list(&v), "raw.lxc (instance)");
	free(t.b);
	free(evil);
}

/* --- the daemon's view ------------------------------------------------------ */

TEST(vet_daemon_view)
{
	static const char inst[] = "{\"config\":{\"user.box\":\"1\","
	    "\"security.privileged\":\"true\"},\"devices\":{\"root\":"
	    "{\"type\":\"disk\",\"path\":\"/\",\"pool\":\"default\"},"
	    "\"x\":{\"type\":\"unix-block\",\"source\":\"/dev/sda\"}},"
	    "\"profiles\":[\"box-net\"],\"stateful\":false}";
	static const char snaps[] = "[{\"name\":\"s0\",\"config\":"
	    "{\"raw.lxc\":\"x\"},\"devices\":{},\"profiles\":[\"box-net\"],"
	    "\"stateful\":false},{\"name\":\"s1\",\"config\":{},\"devices\":"
	    "{},\"profiles\":[],\"stateful\":true}]";
	static const char clean[] = "{\"config\":{\"user.box\":\"1\"},"
	    "\"devices\":{},\"profiles\":[\"box-net\"],\"stateful\":false}";
	static const char dup[] = "{\"config\":{},\"devices\":{},\"devices\":"
	    "{\"x\":{\"type\":\"gpu\"}},\"profiles\":[\"box-net\"],"
	    "\"stateful\":false}";
	struct incus_backup_index ix;
	struct box_err e;
	struct vet v;

	err_clear(&e);
	CHECK_INT(incus_backup_index_from_json(inst, strlen(inst), snaps,
	    strlen(snaps), &ix, &e), 0);
	vet_init(&v);
	CHECK_INT(vet_daemon_index(&ix, &v), 0);
	CHECK_STR(list(&v), "security.privileged (instance), device \"x\" "
	    "(unix-block), raw.lxc (snapshot s0), stateful (snapshot s1)");
	incus_backup_index_free(&ix);
	CHECK_INT(incus_backup_index_from_json(clean, strlen(clean), "[]", 2,
	    &ix, &e), 0);
	vet_init(&v);
	CHECK_INT(vet_daemon_index(&ix, &v), 0);
	CHECK_INT(v.n, 0);
	incus_backup_index_free(&ix);
	err_clear(&e);
	CHECK_INT(incus_backup_index_from_json(dup, strlen(dup), "[]", 2, &ix,
	    &e), -EBOX_PROTO);
	CHECK_INT(ix.nsnap, 0);
}

/* --- the streaming decoder against gzip(1)'s output -------------------------- */

static int
count_sink(void *ctx, const unsigned char *p, size_t n)
{
	size_t *total = ctx;

	(void)p;
	*total += n;
	return 0;
}

TEST(gzstream_reads_real_gzip)
{
	char path[512];
	unsigned char *buf;
	size_t n, total = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/fuzz/corpus/fuzz_backup/index.tar.gz",
	    t_datadir());
	f = fopen(path, "rb");
	CHECK(f != NULL);
	if (f == NULL)
		return;
	buf = malloc(1 << 20);
	n = fread(buf, 1, 1 << 20, f);
	fclose(f);
	CHECK_INT(gz_stream_mem(buf, n, count_sink, &total), 0);
	CHECK(total > 0 && total % 512 == 0);
	CHECK_INT(gz_stream_mem(buf, n / 2, count_sink, &total), -ENODATA);
	free(buf);
}

/* A real Incus 6.0.4 export's config members (from the fuzz corpus). */
static int
vet_corpus(const char *file, struct vet *v)
{
	char path[512], name[64];
	struct box_err e;
	unsigned char *buf;
	size_t n;
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/fuzz/corpus/fuzz_backup/%s",
	    t_datadir(), file);
	if ((f = fopen(path, "rb")) == NULL)
		return -ENOENT;
	buf = malloc(1 << 20);
	n = fread(buf, 1, 1 << 20, f);
	fclose(f);
	err_clear(&e);
	vet_init(v);
	rc = vet_export_mem(buf, n, v, name, sizeof(name), &e);
	free(buf);
	return rc;
}

TEST(vet_export_real_incus_yaml)
{
	struct vet v;

	CHECK_INT(vet_corpus("vet-clean.tar", &v), 0);
	CHECK_STR(list(&v), "");
	CHECK_INT(vet_corpus("vet-clean.tar.gz", &v), 0);
	CHECK_STR(list(&v), "");
	CHECK_INT(vet_corpus("vet-hostile.tar.gz", &v), 0);
	CHECK_STR(list(&v), "security.privileged (instance), raw.lxc "
	    "(instance), device \"data\" (disk /mnt from the host)");
}

/* A link member: tb_member with a link name. */
static void
tb_link(struct tarb *t, const char *name, char type, const char *target)
{
	size_t at = t->n;
	unsigned sum = 0;
	size_t i;

	tb_member(t, name, type, "", 0);
	snprintf((char *)t->b + at + 157, 100, "%s", target);
	memset(t->b + at + 148, ' ', 8);
	for (i = 0; i < 512; i++)
		sum += t->b[at + i];
	snprintf((char *)t->b + at + 148, 8, "%06o", sum);
}

/* id_template: 1 for the clean export, 0 for each thing planted. */
static int
id_ok(void (*plant)(struct tarb *))
{
	struct tarb t;
	struct vet v;
	char name[64];
	int rc;

	export_tar(&t, index_y, backup_y);
	if (plant != NULL)
		plant(&t);
	tb_end(&t);
	rc = vet_mem(&t, &v, name);
	free(t.b);
	return rc < 0 ? -1 : v.id_template;
}

#define CT "backup/container/"
static void p_mid(struct tarb *t) { tb_member(t, CT "rootfs/etc/machine-id", '0', "x\n", 2); }
static void p_mid_link(struct tarb *t) { tb_link(t, CT "rootfs/etc/machine-id", '2', "/etc/shadow"); }
static void p_mid_hard(struct tarb *t) { tb_link(t, CT "rootfs/etc/machine-id", '1', CT "rootfs/etc/passwd"); }
static void p_mid_twice(struct tarb *t) { p_mid(t); p_mid(t); }
static void p_mid_dir(struct tarb *t) { tb_member(t, CT "rootfs/etc/machine-id/x", '0', "", 0); }
static void p_etc_link(struct tarb *t) { tb_link(t, CT "rootfs/etc", '2', "/etc"); }
static void p_etc_dir(struct tarb *t) { tb_member(t, CT "rootfs/etc/", '5', "", 0); }
static void p_rootfs_link(struct tarb *t) { tb_link(t, CT "rootfs", '2', "/"); }
static void p_meta(struct tarb *t) { tb_member(t, CT "metadata.yaml", '0', "{}\n", 3); }
static void p_meta_link(struct tarb *t) { tb_link(t, CT "metadata.yaml", '2', "/etc/passwd"); }
static void p_tpl_dir(struct tarb *t) { tb_member(t, CT "templates", '5', "", 0); }
static void p_tpl_link(struct tarb *t) { tb_link(t, CT "templates", '2', "/etc"); }
static void p_tpl_file(struct tarb *t) { tb_member(t, CT "templates/box-identity.tpl", '0', "", 0); }
static void p_tpl_hard(struct tarb *t) { tb_link(t, CT "templates/box-identity.tpl", '1', CT "metadata.yaml"); }
static void p_tpl_fifo(struct tarb *t) { tb_member(t, CT "templates/box-identity.tpl", '6', "", 0); }
static void p_dbus_ok(struct tarb *t) { tb_link(t, CT "rootfs/var/lib/dbus/machine-id", '2', "/etc/machine-id"); }
static void p_dbus_else(struct tarb *t) { tb_link(t, CT "rootfs/var/lib/dbus/machine-id", '2', "/etc/shadow"); }
static void p_dbus_file(struct tarb *t) { tb_member(t, CT "rootfs/var/lib/dbus/machine-id", '0', "x\n", 2); }

TEST(vet_export_id_template_only_when_nothing_is_planted)
{
	CHECK_INT(id_ok(NULL), 1);
	CHECK_INT(id_ok(p_mid), 1);
	CHECK_INT(id_ok(p_etc_dir), 1);
	CHECK_INT(id_ok(p_meta), 1);
	CHECK_INT(id_ok(p_tpl_dir), 1);
	CHECK_INT(id_ok(p_tpl_file), 1);
	CHECK_INT(id_ok(p_dbus_ok), 1);
	CHECK_INT(id_ok(p_mid_link), 0);
	CHECK_INT(id_ok(p_mid_hard), 0);
	CHECK_INT(id_ok(p_mid_twice), 0);
	CHECK_INT(id_ok(p_mid_dir), 0);
	CHECK_INT(id_ok(p_etc_link), 0);
	/* issue 22: a link or FIFO outside the rootfs is no longer merely
	 * the slow identity path: the whole file is refused */
	CHECK_INT(id_ok(p_rootfs_link), -1);
	CHECK_INT(id_ok(p_meta_link), -1);
	CHECK_INT(id_ok(p_tpl_link), -1);
	CHECK_INT(id_ok(p_tpl_hard), -1);
	CHECK_INT(id_ok(p_tpl_fifo), -1);
	CHECK_INT(id_ok(p_dbus_else), 0);
	CHECK_INT(id_ok(p_dbus_file), 0);
}

/* The head read: the name from index.yaml alone, the rest unread. */
TEST(vet_export_name_reads_the_head)
{
	char path[] = "/tmp/box-unit-name.XXXXXX", name[64];
	struct tarb t, g;
	int fd;

	export_tar(&t, index_y, backup_y);
	tb_end(&t);
	gzip_stored(&t, &g);
	free(t.b);
	/* what follows index.yaml is never read: garbage there is fine */
	memset(g.b + 10 + 5 + 1024, 0xff, 512);
	fd = mkstemp(path);
	CHECK(fd >= 0);
	CHECK(write(fd, g.b, g.n) == (ssize_t)g.n);
	CHECK_INT(vet_export_name(fd, name, sizeof(name)), 0);
	CHECK_STR(name, "clean");
	/* pread: the descriptor's offset (the upload's) is untouched */
	CHECK_INT((int)lseek(fd, 0, SEEK_CUR), (int)g.n);
	close(fd);
	/* no index.yaml first (a tar of something else): no name */
	memset(&t, 0, sizeof(t));
	tb_member(&t, "etc/passwd", '0', "root\n", 5);
	tb_end(&t);
	fd = open(path, O_RDWR | O_TRUNC);
	CHECK(write(fd, t.b, t.n) == (ssize_t)t.n);
	CHECK_INT(vet_export_name(fd, name, sizeof(name)), -ENOENT);
	CHECK_STR(name, "");
	close(fd);
	unlink(path);
	free(t.b);
	free(g.b);
}

/* issue 22: every member's type and target, and what it unpacks to */
static int
members_ok(void (*plant)(struct tarb *), unsigned long long bound)
{
	struct box_err e;
	struct tarb t;
	struct vet v;
	char name[64];
	int rc;

	export_tar(&t, index_y, backup_y);
	plant(&t);
	tb_end(&t);
	err_clear(&e);
	vet_init(&v);
	v.bound = bound;
	rc = vet_export_mem(t.b, t.n, &v, name, sizeof(name), &e);
	free(t.b);
	return rc;
}

static void m_hard_cfg(struct tarb *t) { tb_link(t, CT "rootfs/x", '1', CT "backup.yaml"); }
static void m_hard_in(struct tarb *t) { tb_member(t, CT "rootfs/a", '0', "a", 1); tb_link(t, CT "rootfs/b", '1', CT "rootfs/a"); }
static void m_hard_dots(struct tarb *t) { tb_link(t, CT "rootfs/x", '1', CT "rootfs/../backup.yaml"); }
static void m_sym_abs(struct tarb *t) { tb_link(t, CT "rootfs/etc/localtime", '2', "/usr/share/zoneinfo/UTC"); }
static void m_sym_rel(struct tarb *t) { tb_link(t, CT "rootfs/bin", '2', "usr/bin"); tb_link(t, CT "rootfs/etc/x", '2', "../usr/lib/x"); }
static void m_sym_out(struct tarb *t) { tb_link(t, CT "rootfs/etc/x", '2', "../../backup.yaml"); }
static void m_sym_cfg(struct tarb *t) { tb_link(t, CT "notes", '2', "rootfs/etc"); }
static void m_snap_sym(struct tarb *t) { tb_link(t, "backup/snapshots/s0/rootfs/bin", '2', "usr/bin"); }
static void m_chr(struct tarb *t) { tb_link(t, CT "rootfs/dev/kmsg", '3', ""); }
static void m_blk(struct tarb *t) { tb_link(t, CT "rootfs/dev/sda", '4', ""); }
static void m_big(struct tarb *t) { tb_member(t, CT "rootfs/big", '0', "0123456789", 10); }

TEST(vet_export_members_types_and_targets)
{
	CHECK_INT(members_ok(m_hard_cfg, 0), -EBOX_PROTO);
	CHECK_INT(members_ok(m_hard_in, 0), 0);
	CHECK_INT(members_ok(m_hard_dots, 0), -EBOX_PROTO);
	CHECK_INT(members_ok(m_sym_abs, 0), 0);
	CHECK_INT(members_ok(m_sym_rel, 0), 0);
	CHECK_INT(members_ok(m_sym_out, 0), -EBOX_PROTO);
	CHECK_INT(members_ok(m_sym_cfg, 0), -EBOX_PROTO);
	CHECK_INT(members_ok(m_snap_sym, 0), 0);
	CHECK_INT(members_ok(m_chr, 0), -EBOX_PROTO);
	CHECK_INT(members_ok(m_blk, 0), -EBOX_PROTO);
	/* the bound counts every regular member's size */
	CHECK_INT(members_ok(m_big, 0), 0);
	CHECK_INT(members_ok(m_big, 1u << 20), 0);
	CHECK_INT(members_ok(m_big, 12), -EFBIG);
}

/* the bound holds on the stream path the upload feeds (box/import/vet_bg.h) */
TEST(vet_export_fd_stream_is_bounded)
{
	struct box_err e;
	struct tarb t;
	struct vet v;
	char name[64], *z = calloc(1, 3 << 20);
	int p[2];
	pid_t pid;

	export_tar(&t, index_y, backup_y);
	struct tarb g;

	tb_member(&t, CT "rootfs/big", '0', z, 3 << 20);
	tb_end(&t);
	gzip_stored(&t, &g);
	free(t.b);
	t = g;
	CHECK(pipe(p) == 0);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		(void)!write(p[1], t.b, t.n);
		_exit(0);
	}
	close(p[1]);
	err_clear(&e);
	vet_init(&v);
	v.bound = 2 << 20;
	CHECK_INT(vet_export_fd(p[0], 1, &v, name, sizeof(name), &e), -EFBIG);
	close(p[0]);
	waitpid(pid, NULL, 0);
	free(t.b);
	free(z);
}

/* issue 22: a member written through a symlink the archive made earlier */
static void p_through(struct tarb *t) { tb_link(t, CT "rootfs/a", '2', "/etc"); tb_member(t, CT "rootfs/a/passwd", '0', "x\n", 2); }
static void p_through_rel(struct tarb *t) { tb_link(t, CT "rootfs/a", '2', "etc"); tb_member(t, CT "rootfs/a/x", '0', "x\n", 2); }
static void p_through_deep(struct tarb *t) { tb_link(t, CT "rootfs/a/b", '2', "/etc"); tb_member(t, CT "rootfs/a/b/c/d", '0', "x\n", 2); }
static void p_through_dir(struct tarb *t) { tb_link(t, CT "rootfs/a", '2', "/etc"); tb_member(t, CT "rootfs/a/", '5', "", 0); tb_member(t, CT "rootfs/a/passwd", '0', "x\n", 2); }
static void p_through_hard(struct tarb *t) { tb_link(t, CT "rootfs/l", '2', "/etc"); tb_link(t, CT "rootfs/h", '1', CT "rootfs/l"); tb_member(t, CT "rootfs/h/passwd", '0', "x\n", 2); }
static void p_hard_through(struct tarb *t) { tb_link(t, CT "rootfs/l", '2', "/etc"); tb_link(t, CT "rootfs/h", '1', CT "rootfs/l/passwd"); }
static void p_beside(struct tarb *t) { tb_link(t, CT "rootfs/a", '2', "/etc"); tb_member(t, CT "rootfs/ab/x", '0', "x\n", 2); tb_member(t, CT "rootfs/a", '0', "x\n", 2); }
static void p_before(struct tarb *t) { tb_member(t, CT "rootfs/a/passwd", '0', "x\n", 2); tb_link(t, CT "rootfs/a", '2', "/etc"); }

TEST(vet_export_refuses_members_beneath_its_own_symlinks)
{
	CHECK_INT(id_ok(p_through), -1);
	CHECK_INT(id_ok(p_through_rel), -1);
	CHECK_INT(id_ok(p_through_deep), -1);
	CHECK_INT(id_ok(p_through_dir), -1);
	CHECK_INT(id_ok(p_through_hard), -1);
	CHECK_INT(id_ok(p_hard_through), -1);
	/* a name that only starts with the link's bytes, the link's own
	 * name again, and a member before the link are not beneath it */
	CHECK(id_ok(p_beside) >= 0);
	CHECK(id_ok(p_before) >= 0);
}

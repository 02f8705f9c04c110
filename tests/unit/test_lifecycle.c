/*
 * test_lifecycle.c - the pure parts of the lifecycle verbs: mint decisions
 * (resources, mode, image, user-data, stamps), the instance rewrite, doors,
 * the export reader (gzip prefix, tar, name, checksum line) and guest-text
 * sanitising.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box/import/backup.h"
#include "box/import/backup_test.h"
#include "box/door.h"
#include "box/life/life.h"
#include "box/edit.h"
#include "box/edit_test.h"
#include "box/life/mint.h"
#include "box/life/mint_test.h"
#include "box/import/tar.h"
#include "incus/json.h"
#include "incus/kv.h"
#include "t.h"
#include "util/gzstream.h"
#include "util/text.h"

/* --- mint ---------------------------------------------------------------- */


/* box expose's door device as the JSON text the daemon would hold. */
int
t_door_text(int vm, const char *ip, int port, int hport, char *buf, size_t cap)
{
	struct incus_kvs kv = { 0 };
	struct json_w w;
	char *out;
	size_t n;
	int rc;

	if ((rc = door_device_kv(vm, ip, port, hport, &kv)) < 0) {
		incus_kv_free(&kv);
		return rc;
	}
	json_w_init(&w, 4096);
	incus_kv_to_json(&w, &kv);
	incus_kv_free(&kv);
	if ((rc = json_w_finish(&w, &out, &n)) < 0)
		return rc;
	rc = n < cap ? 0 : -ENOSPC;
	if (rc == 0)
		memcpy(buf, out, n + 1);
	free(out);
	return rc;
}

TEST(mint_pick_precedence)
{
	CHECK_STR(mint_pick("3", "2", "1", "0"), "3");
	CHECK_STR(mint_pick(NULL, "2", "1", "0"), "2");
	CHECK_STR(mint_pick("", "", "1", "0"), "1");
	CHECK_STR(mint_pick(NULL, NULL, "", "0"), "0");
	CHECK(mint_pick(NULL, NULL, NULL, NULL) == NULL);
}

static void
host(struct mint_host *h, int kvm, const char *env)
{
	struct incus_server s;
	struct json_doc d;
	struct box_err e;

	memset(h, 0, sizeof(*h));
	h->kvm = kvm;
	err_clear(&e);
	memset(&d, 0, sizeof(d));
	CHECK_INT(json_parse(&d, env, strlen(env), &e), 0);
	CHECK_INT(incus_server_from_json(&s, &d, 0), 0);
	mint_host_read(&s, h);
	incus_server_free(&s);
	json_free(&d);
}

TEST(mint_host_drivers)
{
	struct mint_host h;

	host(&h, 1, "{\"environment\":{\"driver\":\"lxc | qemu\"}}");
	CHECK_INT(h.vm_driver, 1);
	CHECK_STR(h.drivers, "lxc | qemu");
	host(&h, 1, "{\"environment\":{\"driver\":\"lxc\"}}");
	CHECK_INT(h.vm_driver, 0);
	host(&h, 1, "{\"environment\":{\"driver\":\"lxc | qemu\","
	    "\"instance_types\":[\"container\"]}}");
	CHECK_INT(h.vm_driver, 0);	/* the list wins over the drivers */
	host(&h, 1, "{\"environment\":{\"driver\":\"lxc\","
	    "\"instance_types\":[\"container\",\"virtual-machine\"]}}");
	CHECK_INT(h.vm_driver, 1);
	host(&h, 0, "{}");
	CHECK_STR(h.drivers, "none");
}

TEST(mint_mode_matrix)
{
	struct template t;
	struct mint_host yes = { 1, 1, "lxc | qemu" }, nokvm = { 0, 1, "qemu" },
	    nodrv = { 1, 0, "lxc" };
	struct box_err e;
	char note[256];
	int vm;

	memset(&t, 0, sizeof(t));
	strcpy(t.name, "x");
#define MODE(asked, it, h, want_rc, want_vm) do {			\
	err_clear(&e); vm = -1;						\
	CHECK_INT(mint_mode(asked, it, &t, h, &vm, note, sizeof(note),	\
	    &e) < 0 ? e.status : 0, want_rc);				\
	if (want_rc == 0) CHECK_INT(vm, want_vm);			\
} while (0)
	MODE(MINT_AUTO, 0, &yes, 0, 1);
	CHECK_STR(note, "");
	MODE(MINT_AUTO, 0, &nokvm, 0, 0);
	CHECK(strstr(note, "no /dev/kvm") != NULL);
	CHECK(strstr(note, "weaker isolation") != NULL);
	MODE(MINT_AUTO, 0, &nodrv, 0, 0);
	CHECK(strstr(note, "reports: lxc") != NULL);
	MODE(MINT_AUTO, MINT_CT, &yes, 0, 0);	/* a container image */
	CHECK(strstr(note, "container image") != NULL);
	MODE(MINT_VM, 0, &yes, 0, 1);
	MODE(MINT_VM, 0, &nodrv, ERR_FAIL, 0);
	CHECK(strstr(e.msg, "cannot run VMs") != NULL);
	MODE(MINT_VM, MINT_CT, &yes, ERR_USAGE, 0);
	MODE(MINT_CT, 0, &yes, 0, 0);
	MODE(MINT_CT, MINT_VM, &yes, ERR_USAGE, 0);
	t.require_vm = 1;
	MODE(MINT_CT, 0, &yes, ERR_USAGE, 0);
	CHECK(strstr(e.msg, "drop --container") != NULL);
	MODE(MINT_AUTO, 0, &nokvm, ERR_FAIL, 0);
	CHECK(strstr(e.msg, "requires VM mode") != NULL);
	MODE(MINT_AUTO, 0, &yes, 0, 1);
#undef MODE
}

TEST(mint_image_refs)
{
	struct box_err e;
	const char *alias;
	int remote;

	err_clear(&e);
	CHECK_INT(mint_image("images:debian/13/cloud", &remote, &alias, &e), 0);
	CHECK_INT(remote, 1);
	CHECK_STR(alias, "debian/13/cloud");
	CHECK_INT(mint_image("box-test-busybox", &remote, &alias, &e), 0);
	CHECK_INT(remote, 0);
	CHECK_STR(alias, "box-test-busybox");
	CHECK(mint_image("ubuntu:24.04", &remote, &alias, &e) < 0);
	CHECK_INT(e.status, ERR_USAGE);
	err_clear(&e);
	CHECK(mint_image("images:", &remote, &alias, &e) < 0);
	err_clear(&e);
	CHECK(mint_image("a b", &remote, &alias, &e) < 0);
}

TEST(mint_render_tokens)
{
	static const char ud[] = "#cloud-config\nruncmd:\n - curl "
	    "https://x/@RIG_REPO@/@RIG_REF@/i.sh | RIG_REPO=\"@RIG_REPO@\" bash";
	struct box_err e;
	char *out;
	int rig;

	err_clear(&e);
	CHECK_INT(mint_render(ud, strlen(ud), "a/b", "v1.2", &out, &rig, &e),
	    0);
	CHECK_INT(rig, 1);
	CHECK_STR(out, "#cloud-config\nruncmd:\n - curl https://x/a/b/v1.2/i.sh"
	    " | RIG_REPO=\"a/b\" bash\n");
	free(out);
	CHECK(mint_render(ud, strlen(ud), "a/b\"; rm", "v1", &out, &rig,
	    &e) < 0);
	err_clear(&e);
	CHECK(mint_render(ud, strlen(ud), "a/b", "v 1", &out, &rig, &e) < 0);
	err_clear(&e);
	CHECK(mint_render(ud, strlen(ud), "noslash", "v1", &out, &rig, &e) < 0);
	err_clear(&e);
	/* no tokens: values are not even looked at */
	CHECK_INT(mint_render("#cloud-config\n", 14, "bad value", "", &out,
	    &rig, &e), 0);
	CHECK_INT(rig, 0);
	CHECK_STR(out, "#cloud-config\n");
	free(out);
	CHECK_INT(mint_render("#cloud-config", 13, "", "", &out, &rig, &e), 0);
	CHECK_STR(out, "#cloud-config\n");
	free(out);
}

static int
cfgis(const struct json_doc *d, const char *key, const char *want)
{
	int cfg = json_get(d, 0, "config");

	if (want == NULL)
		return json_get(d, cfg, key) == JSON_NONE;
	return json_streq(d, json_get(d, cfg, key), want);
}

TEST(mint_body_fields)
{
	struct mint_plan p;
	struct json_doc d;
	struct box_err e;
	char *body;

	memset(&p, 0, sizeof(p));
	p.name = "w";
	p.template_ = "blank";
	p.user = "dev";
	p.image = "images:debian/13/cloud";
	p.mode_asked = "auto";
	p.cpu = "2";
	p.memory = "2GiB";
	p.disk = "20GiB";
	p.pool = "default";
	p.created = "2026-01-01T00:00:00Z";
	p.user_data = "#cloud-config\n";
	p.vm = 1;
	p.role = "";
	err_clear(&e);
	CHECK_INT(mint_body(&p, &body, &e), 0);
	memset(&d, 0, sizeof(d));
	CHECK_INT(json_parse(&d, body, strlen(body), &e), 0);
	CHECK(json_streq(&d, json_get(&d, 0, "type"), "virtual-machine"));
	CHECK(json_streq(&d, json_path(&d, 0, "source.server"),
	    MINT_IMAGES_URL));
	CHECK(json_streq(&d, json_path(&d, 0, "source.alias"),
	    "debian/13/cloud"));
	CHECK(json_streq(&d, json_path(&d, 0, "source.protocol"),
	    "simplestreams"));
	CHECK(json_streq(&d, json_path(&d, 0, "devices.root.size"), "20GiB"));
	CHECK_INT(json_count(&d, json_get(&d, 0, "profiles")), 1);
	CHECK(json_streq(&d, json_child(&d, json_get(&d, 0, "profiles")),
	    "box-net"));
	CHECK(json_type(&d, json_get(&d, 0, "start")) == JSON_FALSE);
	CHECK(cfgis(&d, "user.box", "1"));
	CHECK(cfgis(&d, "user.box.origin", "mint"));
	CHECK(cfgis(&d, "user.box.mode", "vm"));
	CHECK(cfgis(&d, "user.box.mode.asked", "auto"));
	CHECK(cfgis(&d, "user.box.schema", MINT_SCHEMA));
	CHECK(cfgis(&d, "security.secureboot", "false"));
	CHECK(cfgis(&d, "security.nesting", NULL));
	CHECK(cfgis(&d, "user.box.role", NULL));
	CHECK(cfgis(&d, "user.box.rig.repo", NULL));
	CHECK(cfgis(&d, "boot.autostart", NULL));
	json_free(&d);
	free(body);
	p.vm = 0;
	p.image = "box-test-busybox";
	p.role = "claude-box";
	p.rig_repo = "a/b";
	p.rig_ref = "main";
	p.autostart = 1;
	CHECK_INT(mint_body(&p, &body, &e), 0);
	CHECK_INT(json_parse(&d, body, strlen(body), &e), 0);
	CHECK(json_streq(&d, json_get(&d, 0, "type"), "container"));
	CHECK(json_get(&d, json_get(&d, 0, "source"), "server") == JSON_NONE);
	CHECK(json_count(&d, json_get(&d, 0, "devices")) == 0);
	CHECK(cfgis(&d, "security.nesting", "true"));
	CHECK(cfgis(&d, "security.secureboot", NULL));
	CHECK(cfgis(&d, "user.box.role", "claude-box"));
	CHECK(cfgis(&d, "user.box.rig.ref", "main"));
	CHECK(cfgis(&d, "boot.autostart", "true"));
	json_free(&d);
	free(body);
}

static const char *
kvget(struct mint_kv *kv, const char *k)
{
	int i;

	for (i = 0; i < kv->n; i++)
		if (strcmp(kv->k[i], k) == 0)
			return kv->v[i];
	return NULL;
}

static void
import_stamps(const char *inst, struct mint_kv *kv)
{
	struct incus_instance in;
	struct json_doc d;
	struct box_err e;

	err_clear(&e);
	memset(&d, 0, sizeof(d));
	CHECK_INT(json_parse(&d, inst, strlen(inst), &e), 0);
	if (incus_instance_from_json(&d, 0, 0, &in, &e) < 0)
		memset(&in, 0, sizeof(in));	/* nothing readable: no stamps */
	CHECK_INT(mint_import_stamps_of(kv, &in.config, "NOW"), 0);
	incus_instance_free(&in);
	json_free(&d);
}

TEST(mint_stamps_clone_import)
{
	struct mint_kv kv;
	const char *const *set;

	CHECK_INT(mint_clone_stamps(&kv, "NOW", "src/snap"), 0);
	CHECK_STR(kvget(&kv, "user.box.origin"), "clone");
	CHECK_STR(kvget(&kv, "user.box.origin.from"), "src/snap");
	CHECK_STR(kvget(&kv, "user.box.created"), "NOW");
	CHECK_STR(kvget(&kv, "user.box.mode.asked"), "");	/* removed */
	CHECK_STR(kvget(&kv, "user.box.secrets"), "");	/* no grants */
	set = mint_kv_list(&kv);
	CHECK_STR(set[0], "user.box.schema");
	CHECK(set[2 * kv.n] == NULL);

	import_stamps("{\"config\":{}}", &kv);
	CHECK_STR(kvget(&kv, "user.box"), "1");
	CHECK_STR(kvget(&kv, "user.box.imported"), "NOW");
	CHECK_STR(kvget(&kv, "user.box.imported.count"), "1");
	CHECK(kvget(&kv, "user.box.origin") == NULL);
	CHECK(kvget(&kv, "user.box.created") == NULL);
	import_stamps("{\"config\":{\"user.claudebox\":\"1\","
	    "\"user.box.imported\":\"THEN\",\"user.box.imported.count\":"
	    "\"007\"}}", &kv);
	CHECK(kvget(&kv, "user.box") == NULL);	/* legacy tag kept alone */
	CHECK(kvget(&kv, "user.box.imported") == NULL);	/* first trip kept */
	CHECK_STR(kvget(&kv, "user.box.imported.last"), "NOW");
	CHECK_STR(kvget(&kv, "user.box.imported.count"), "8");
	import_stamps("{\"config\":{\"user.box\":\"1\","
	    "\"user.box.imported.count\":\"x1\"}}", &kv);
	CHECK(kvget(&kv, "user.box") == NULL);
	CHECK_STR(kvget(&kv, "user.box.imported.count"), "1");
}

TEST(mint_ready_lines)
{
	char b[512];

	mint_ready("w", "blank", b, sizeof(b));
	CHECK_STR(b, "ready — 'box shell w'.");
	mint_ready("w", "claude-box", b, sizeof(b));
	CHECK(strstr(b, "/login") != NULL);
	mint_ready("w", "staging-box", b, sizeof(b));
	CHECK(strstr(b, "operator-run") != NULL);
}

/* --- rewriting an instance ------------------------------------------------- */

static int
drop_hw(const char *key)
{
	return strstr(key, ".hwaddr") != NULL;
}

/* life_edit's typed callback: drop every disk but the root. */
static int
drop_disk(const char *name, const struct incus_kvs *dev)
{
	return strcmp(name, "root") != 0 &&
	    strcmp(incus_kv_or(dev, "type", ""), "disk") == 0;
}

TEST(life_edit_body_rewrites)
{
	static const char inst[] = "{\"architecture\":\"x86_64\","
	    "\"description\":\"d\",\"ephemeral\":false,\"stateful\":false,"
	    "\"name\":\"n\",\"status\":\"Stopped\","
	    "\"config\":{\"user.a\":\"1\",\"volatile.eth0.hwaddr\":\"aa\","
	    "\"volatile.idmap.next\":\"[]\",\"user.gone\":\"x\"},"
	    "\"devices\":{\"expose-80\":{\"type\":\"proxy\"},"
	    "\"eth0\":{\"type\":\"nic\",\"ipv4.address\":\"10.0.0.2\"},"
	    "\"data\":{\"type\":\"disk\"}},\"profiles\":[\"default\",\"x\"]}";
	static const char *const set[] = { "user.a", "2", "user.gone", "",
	    "user.new", "v\"q", NULL };
	static const char *const prof[] = { "box-net", NULL };
	struct incus_kvs extra = { 0 };
	struct incus_instance in;
	struct life_edit ed;
	struct json_doc d, o;
	struct box_err e;
	char *body;
	int cfg;

	err_clear(&e);
	memset(&d, 0, sizeof(d));
	memset(&o, 0, sizeof(o));
	CHECK_INT(json_parse(&d, inst, strlen(inst), &e), 0);
	CHECK_INT(incus_instance_from_json(&d, 0, 0, &in, &e), 0);
	CHECK_INT(incus_kv_set(&extra, "type", "none"), 0);
	memset(&ed, 0, sizeof(ed));
	ed.set = set;
	ed.drop_cfg = drop_hw;
	ed.drop_device = door_source_only;
	ed.profiles = prof;
	ed.add_dev = "extra";
	ed.add_dev_kv = &extra;
	CHECK_INT(life_edit_body(&in, &ed, &body, &e), 0);
	incus_instance_free(&in);
	incus_kv_free(&extra);
	CHECK_INT(ed.dropped, 2);
	CHECK_INT(json_parse(&o, body, strlen(body), &e), 0);
	cfg = json_get(&o, 0, "config");
	CHECK(json_streq(&o, json_get(&o, cfg, "user.a"), "2"));
	CHECK(json_streq(&o, json_get(&o, cfg, "user.new"), "v\"q"));
	CHECK(json_get(&o, cfg, "user.gone") == JSON_NONE);
	CHECK(json_get(&o, cfg, "volatile.eth0.hwaddr") == JSON_NONE);
	CHECK(json_streq(&o, json_get(&o, cfg, "volatile.idmap.next"), "[]"));
	CHECK(json_streq(&o, json_get(&o, 0, "description"), "d"));
	CHECK(json_streq(&o, json_get(&o, 0, "architecture"), "x86_64"));
	CHECK(json_get(&o, 0, "name") == JSON_NONE);	/* not a PUT field */
	CHECK(json_get(&o, 0, "status") == JSON_NONE);
	CHECK_INT(json_count(&o, json_get(&o, 0, "devices")), 2);
	CHECK(json_get(&o, json_get(&o, 0, "devices"), "data") >= 0);
	CHECK(json_get(&o, json_get(&o, 0, "devices"), "extra") >= 0);
	CHECK_INT(json_count(&o, json_get(&o, 0, "profiles")), 1);
	json_free(&o);
	free(body);
	/* one named device; profiles kept */
	memset(&ed, 0, sizeof(ed));
	ed.drop_dev_name = "data";
	CHECK_INT(incus_instance_from_json(&d, 0, 0, &in, &e), 0);
	CHECK_INT(life_edit_body(&in, &ed, &body, &e), 0);
	incus_instance_free(&in);
	CHECK_INT(json_parse(&o, body, strlen(body), &e), 0);
	CHECK_INT(json_count(&o, json_get(&o, 0, "devices")), 2);
	CHECK_INT(json_count(&o, json_get(&o, 0, "profiles")), 2);
	CHECK(json_streq(&o, json_get(&o, json_get(&o, 0, "config"),
	    "volatile.eth0.hwaddr"), "aa"));
	json_free(&o);
	free(body);
	/* a typed callback (migrate's kind) names what goes */
	memset(&ed, 0, sizeof(ed));
	ed.drop_device = drop_disk;
	CHECK_INT(incus_instance_from_json(&d, 0, 0, &in, &e), 0);
	CHECK_INT(life_edit_body(&in, &ed, &body, &e), 0);
	incus_instance_free(&in);
	CHECK_INT(ed.dropped, 1);
	CHECK_INT(json_parse(&o, body, strlen(body), &e), 0);
	CHECK(json_get(&o, json_get(&o, 0, "devices"), "data") == JSON_NONE);
	CHECK_INT(json_count(&o, json_get(&o, 0, "devices")), 2);
	json_free(&o);
	free(body);
	json_free(&d);
}

/* --- doors ------------------------------------------------------------------ */

TEST(door_shapes)
{
	char buf[256], ip[64];
	int port;

	CHECK_INT(door_port("80"), 80);
	CHECK_INT(door_port("65535"), 65535);
	CHECK_INT(door_port("0"), -1);
	CHECK_INT(door_port("65536"), -1);
	CHECK_INT(door_port("8o"), -1);
	CHECK_INT(door_port(""), -1);
	CHECK_INT(t_door_text(0, "-", 8080, 3000, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "{\"type\":\"proxy\",\"listen\":\"tcp:127.0.0.1:3000\","
	    "\"connect\":\"tcp:127.0.0.1:8080\",\"bind\":\"host\"}");
	CHECK_INT(t_door_text(1, "10.1.2.3", 80, 80, buf, sizeof(buf)), 0);
	CHECK(strstr(buf, "\"connect\":\"tcp:10.1.2.3:80\"") != NULL);
	CHECK(strstr(buf, "\"nat\":\"true\"") != NULL);
	CHECK(strstr(buf, "\"listen\":\"tcp:127.0.0.1:80\"") != NULL);
	CHECK(t_door_text(1, "10.1.2.3", 80, 80, buf, 20) < 0);
	CHECK_INT(door_connect_parse("tcp:10.1.2.3:80", ip, sizeof(ip), &port),
	    0);
	CHECK_STR(ip, "10.1.2.3");
	CHECK_INT(port, 80);
	CHECK(door_connect_parse("udp:1.2.3.4:5", ip, sizeof(ip), &port) < 0);
	CHECK(door_connect_parse("tcp:1.2.3.4", ip, sizeof(ip), &port) < 0);
	CHECK(door_connect_parse("tcp::5", ip, sizeof(ip), &port) < 0);
}

/* --- export files -------------------------------------------------------------- */

static const unsigned char small[] = "\x1f\x8b\x08\x00\x00\x00\x00\x00"
    "\x02\x03\xcb\x48\xcd\xc9\xc9\x57\xc8\x40\x27\xb9\x00\x00\x88\x59"
    "\x0b\x18\x00\x00\x00";
static const unsigned char stored[] = "\x1f\x8b\x08\x00\x00\x00\x00"
    "\x00\x04\x03\x01\x07\x00\xf8\xff\x73\x74\x6f\x72\x65\x64\x21\xa2"
    "\x65\xef\x09\x07\x00\x00\x00";

/* the cases the old one-shot inflater was tested with, on the one decoder */
TEST(gz_prefix_vectors)
{
	unsigned char out[64];
	long n;

	n = gz_prefix(small, sizeof(small) - 1, out, sizeof(out));
	CHECK_MEM(out, n, "hello hello hello hello\n", 24);
	memset(out, '#', sizeof(out));
	n = gz_prefix(small, sizeof(small) - 1, out, 7);	/* a prefix */
	CHECK_MEM(out, n, "hello h", 7);
	CHECK(out[7] == '#');			/* nothing past the bound */
	n = gz_prefix(stored, sizeof(stored) - 1, out, sizeof(out));
	CHECK_MEM(out, n, "stored!", 7);
	CHECK_INT(gz_prefix(small, 10, out, sizeof(out)), -ENODATA);
	CHECK_INT(gz_prefix((const unsigned char *)"PK\3\4xxxxxxxx", 12,
	    out, sizeof(out)), -EBOX_PROTO);
	/* a truncated stream still gives what it had */
	n = gz_prefix(stored, 20, out, sizeof(out));
	CHECK_MEM(out, n, "store", 5);
	CHECK_INT(gz_prefix(small, sizeof(small) - 1, out, 0), 0);
}

/* gzip header + raw DEFLATE in[0..n) (+ whatever trailer it carries) */
static size_t
gz_wrap(unsigned char *buf, const char *raw, size_t n)
{
	memcpy(buf, small, 10);
	memcpy(buf + 10, raw, n);
	return 10 + n;
}

/* every refusal either old decoder had, and the member checks */
TEST(gz_prefix_refuses)
{
	static const struct {
		const char *why, *raw;
		size_t n;
	} bad[] = {
		{ "block type 3", "\x07\0\0\0\0\0\0\0\0", 9 },
		/* 287 lengths, and then 'A' and end-of-block */
		{ "more than 286 lengths", "\xf5\xc0\x01\x09\x00\x00\x00\x00"
		    "\x90\x6d\xfe\x9f\x32\x45\x8b\x9e\xd9\xd3\x01\x00\x00"
		    "\x00", 22 },
		{ "over-subscribed code", "\x05\xe0\x93\x24\x49\x92\x24\x49"
		    "\x92\0\0\0\0\0\0\0\0\0", 18 },
		{ "a repeat with nothing before", "\x05\x00\x02\x24\0\0\0\0"
		    "\0\0\0\0", 12 },
		/* literals 0 and 1 coded, end-of-block not */
		{ "no end-of-block code", "\x05\xc0\x01\x09\x00\x00\x00\x00"
		    "\x10\xfe\xbf\x06\0\0\0\0\0\0\0\0", 20 },
		{ "a distance before the start", "\x03\x02\0\0\0\0\0\0\0\0",
		    10 },
		/* stored's, its CRC-32 and length right, one NLEN bit not */
		{ "stored LEN != ~NLEN", "\x01\x07\x00\xf8\xfe" "stored!"
		    "\xa2\x65\xef\x09\x07\x00\x00\x00", 20 },
	};
	unsigned char buf[128], out[64];
	size_t i, n;
	long r;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = gz_wrap(buf, bad[i].raw, bad[i].n);
		r = gz_prefix(buf, n, out, sizeof(out));
		if (r != -EBOX_PROTO)
			printf("    %s: %ld\n", bad[i].why, r);
		CHECK_INT(r, -EBOX_PROTO);
	}
	/* one literal then a copy of it: the same distance, in range */
	n = gz_wrap(buf, "\x4b\x04\x02\x00\x45\xe5\x98\xad\x04\0\0\0", 12);
	r = gz_prefix(buf, n, out, sizeof(out));
	CHECK_MEM(out, r, "aaaa", 4);
	/* a bad CRC-32, a bad length */
	memcpy(buf, small, sizeof(small) - 1);
	buf[sizeof(small) - 9] ^= 1;
	CHECK_INT(gz_prefix(buf, sizeof(small) - 1, out, sizeof(out)),
	    -EBOX_PROTO);
	/* output that exactly fills the buffer is still checked ... */
	CHECK_INT(gz_prefix(buf, sizeof(small) - 1, out, 24), -EBOX_PROTO);
	/* ... a prefix short of the member's end cannot be */
	CHECK_INT(gz_prefix(buf, sizeof(small) - 1, out, 23), 23);
	memcpy(buf, small, sizeof(small) - 1);
	buf[sizeof(small) - 5] ^= 1;
	CHECK_INT(gz_prefix(buf, sizeof(small) - 1, out, sizeof(out)),
	    -EBOX_PROTO);
	/* bytes after the last member that are not a member */
	memcpy(buf, small, sizeof(small) - 1);
	buf[sizeof(small) - 1] = 0;
	CHECK_INT(gz_prefix(buf, sizeof(small), out, sizeof(out)),
	    -EBOX_PROTO);
	/* another member is read in turn */
	memcpy(buf + sizeof(small) - 1, stored, sizeof(stored) - 1);
	r = gz_prefix(buf, sizeof(small) + sizeof(stored) - 2, out,
	    sizeof(out));
	CHECK_MEM(out, r, "hello hello hello hello\nstored!", 31);
	/* a member cut inside its trailer: what came out stands */
	r = gz_prefix(small, sizeof(small) - 4, out, sizeof(out));
	CHECK_INT(r, 24);
}

static size_t
slurp(const char *name, unsigned char *buf, size_t cap)
{
	char path[512];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/fuzz/corpus/fuzz_backup/%s",
	    t_datadir(), name);
	f = fopen(path, "rb");
	CHECK(f != NULL);
	if (f == NULL)
		return 0;
	n = fread(buf, 1, cap, f);
	fclose(f);
	return n;
}

TEST(backup_name_from_export)
{
	static unsigned char gz[4096], tar[2048], out[16384];
	size_t ng = slurp("index.tar.gz", gz, sizeof(gz));
	size_t nt = slurp("index.tar", tar, sizeof(tar));
	char name[64];
	long n;
	size_t i;

	/* dynamic Huffman blocks, checked against the plain tar */
	n = gz_prefix(gz, ng, out, sizeof(out));
	CHECK_INT(n, 10240);
	CHECK_INT(nt, 1536);
	CHECK_MEM(out, nt, tar, nt);
	for (i = 1536; i < 1536 + 3000; i++)
		if (out[i] != 'x')
			break;
	CHECK_INT(i, 1536 + 3000);
	CHECK_INT(backup_tar_name(tar, nt, name, sizeof(name)), 0);
	CHECK_STR(name, "boxit-unit");	/* the top-level name, not nested */
	CHECK_INT(backup_tar_name(tar, 600, name, sizeof(name)), -ENOENT);
	CHECK_INT(backup_tar_name(tar, nt, name, 5), -ENOENT);
	tar[148] ^= 1;				/* a broken header checksum */
	CHECK_INT(backup_tar_name(tar, nt, name, sizeof(name)), -EBOX_PROTO);
}

/* The checksum field as GNU tar and Go write it: six digits, NUL, space. */
static void
tar_sum(unsigned char *h)
{
	unsigned sum = 0;
	size_t i;

	memset(h + 148, ' ', 8);
	for (i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
}

/* A POSIX ustar header for a plain file path of n bytes. */
static void
tar_head(unsigned char *h, const char *path, size_t n)
{
	memset(h, 0, 512);
	memcpy(h, path, strlen(path));
	memcpy(h + 100, "0000644", 7);
	snprintf((char *)h + 124, 12, "%011o", (unsigned)n);
	h[156] = '0';
	memcpy(h + 257, "ustar\0" "00", 8);
	tar_sum(h);
}

/* A one-entry ustar archive holding backup/index.yaml = body. */
static size_t
tar_index(unsigned char *tar, size_t cap, const char *body, size_t n)
{
	if (cap < 512 + ((n + 511) & ~(size_t)511) + 1024)
		return 0;
	memset(tar, 0, cap);
	tar_head(tar, "backup/index.yaml", n);
	memcpy(tar + 512, body, n);
	return 512 + ((n + 511) & ~(size_t)511) + 1024;
}

/* The one tar header reader: octal and base-256, the checksum, the magic. */
TEST(tar_header_reader)
{
	static unsigned char tar[4096];
	unsigned char h[512];
	char name[64];
	long long sum;
	size_t n;

	CHECK_INT(tar_num((const unsigned char *)"0000644\0", 8), 0644);
	CHECK_INT(tar_num((const unsigned char *)"  644 \0\0", 8), 0644);
	CHECK_INT(tar_num((const unsigned char *)"\0\0\0\0\0\0\0\0", 8), 0);
	/* a number after a NUL: two readers could see 0 or 0644 */
	CHECK_INT(tar_num((const unsigned char *)"\0\0" "000644", 8), -1);
	CHECK_INT(tar_num((const unsigned char *)"0006 44\0", 8), -1);
	CHECK_INT(tar_num((const unsigned char *)"0000648\0", 8), -1);
	/* base-256: what GNU tar and Go write for 8 GiB and more */
	CHECK_INT(tar_num((const unsigned char *)"\x80\0\0\0\0\0\0\x02"
	    "\0\0\0\0", 12), 1LL << 33);
	CHECK_INT(tar_num((const unsigned char *)"\xff\xff\xff\xff\xff\xff"
	    "\xff\xff\xff\xff\xff\xff", 12), -1);	/* negative */
	CHECK_INT(tar_num((const unsigned char *)"\x81\0\0\0\0\0\0\0"
	    "\0\0\0\x05", 12), -1);			/* 2^88 + 5 */
	CHECK_INT(tar_num((const unsigned char *)"\x80\x01\0\0\0\0\0\0"
	    "\0\0\0\0", 12), -1);			/* 2^80 */
	tar_head(h, "backup/index.yaml", 14);
	CHECK(tar_header_bad(h) == NULL);
	memcpy(h + 257, "ustar  \0", 8);		/* GNU */
	tar_sum(h);
	CHECK(tar_header_bad(h) == NULL);
	h[0] ^= 1;
	CHECK_STR(tar_header_bad(h), "a tar header with a bad checksum");
	h[0] ^= 1;
	memcpy(h + 257, "ustar\0\0\0", 8);		/* neither */
	tar_sum(h);
	CHECK_STR(tar_header_bad(h), "a tar header that is neither ustar "
	    "nor GNU");
	memset(h + 257, 0, 8);				/* V7 */
	tar_sum(h);
	CHECK(tar_header_bad(h) != NULL);
	/* the right checksum in base-256: nobody writes one, so refused */
	tar_head(h, "backup/index.yaml", 14);
	sum = tar_num(h + 148, 8);
	memset(h + 148, 0, 8);
	h[148] = 0x80;
	h[154] = (unsigned char)(sum >> 8);
	h[155] = (unsigned char)sum;
	CHECK(sum > 0 && tar_num(h + 148, 8) == sum);
	CHECK_STR(tar_header_bad(h), "a tar header with a bad checksum");

	/* backup_tar_name reads the same headers: a base-256 size before
	 * index.yaml is walked over, a V7 or bad-magic header refused */
	memset(tar, 0, sizeof(tar));
	tar_head(tar, "backup/big", 0);
	memcpy(tar + 124, "\x80\0\0\0\0\0\0\0\0\0\0\x05", 12);
	tar_sum(tar);
	memcpy(tar + 512, "12345", 5);
	n = tar_index(tar + 1024, sizeof(tar) - 1024, "name: big\n", 10);
	CHECK_INT(backup_tar_name(tar, 1024 + n, name, sizeof(name)), 0);
	CHECK_STR(name, "big");
	n = tar_index(tar, sizeof(tar), "name: web-1\n", 12);
	memcpy(tar + 257, "ustar\0\0\0", 8);
	tar_sum(tar);
	CHECK_INT(backup_tar_name(tar, n, name, sizeof(name)), -EBOX_PROTO);
}

TEST(backup_name_refuses_control_bytes)
{
	static unsigned char tar[4096];
	char name[64];
	size_t n;

	n = tar_index(tar, sizeof(tar), "name: 'web-1'\n", 14);
	CHECK_INT(backup_tar_name(tar, n, name, sizeof(name)), 0);
	CHECK_STR(name, "web-1");
	/* a NUL would have shortened the name to "a" without a word */
	n = tar_index(tar, sizeof(tar), "name: a\0b\n", 10);
	CHECK_INT(backup_tar_name(tar, n, name, sizeof(name)), -EBOX_PROTO);
	n = tar_index(tar, sizeof(tar), "name: \033[2Jx\n", 13);
	CHECK_INT(backup_tar_name(tar, n, name, sizeof(name)), -EBOX_PROTO);
}

static int
peek(const unsigned char *p, size_t n, char *name)
{
	char path[] = "/tmp/box-unit-peek.XXXXXX";
	struct box_err e;
	int fd = mkstemp(path), rc;

	CHECK(fd >= 0);
	if (fd < 0)
		return -errno;
	CHECK_INT(write(fd, p, n), n);
	close(fd);
	err_clear(&e);
	rc = backup_peek_name(path, name, 64, &e);
	unlink(path);
	return rc;
}

/* The peek at a file's start, on the one gzip decoder. */
TEST(backup_peek_name_reads_the_start)
{
	static unsigned char gz[4096], tar[32768];
	size_t ng = slurp("index.tar.gz", gz, sizeof(gz)), nt;
	char name[64];

	CHECK_INT(peek(gz, ng, name), 0);
	CHECK_STR(name, "boxit-unit");
	/* cut short (as a big export is, past BACKUP_PEEK): a prefix */
	CHECK_INT(peek(gz, ng - 20, name), 0);
	CHECK_STR(name, "boxit-unit");
	/* a whole file with a bad CRC-32 is not read as a prefix */
	gz[ng - 8] ^= 1;
	CHECK_INT(peek(gz, ng, name), -EBOX_PROTO);
	gz[ng - 8] ^= 1;
	CHECK_INT(peek(gz, 9, name), -ENOENT);	/* nothing came out */
	gz[10] ^= 0x02;		/* the block type: 3 */
	CHECK_INT(peek(gz, ng, name), -EBOX_PROTO);
	/* what Incus writes: a real export, gzip and plain */
	ng = slurp("vet-clean.tar.gz", gz, sizeof(gz));
	CHECK_INT(peek(gz, ng, name), 0);
	CHECK_STR(name, "hi-probe");
	nt = slurp("vet-clean.tar", tar, sizeof(tar));
	CHECK_INT(peek(tar, nt, name), 0);
	CHECK_STR(name, "hi-probe");
	CHECK_INT(peek((const unsigned char *)"PK\3\4", 4, name), -EBOX_PROTO);
}

TEST(backup_sidecar_format)
{
	unsigned char d[32];
	char line[256], hex[65];
	int i;

	for (i = 0; i < 32; i++)
		d[i] = (unsigned char)(i * 9);
	CHECK(backup_sidecar_line(d, "/tmp/dir/w.tar.gz", line,
	    sizeof(line)) > 0);
	backup_hex(d, hex);
	CHECK_INT(strlen(hex), 64);
	CHECK(strncmp(line, hex, 64) == 0);
	CHECK_STR(line + 64, "  w.tar.gz\n");
	CHECK(backup_sidecar_line(d, "w", line, 60) < 0);
}

/* --- guest text ------------------------------------------------------------------ */

TEST(text_shown_in_escapes_in_place)
{
	char s[128];
	size_t n;

	strcpy(s, "a\033]0;title\007b\033[31;1mc\r\nd\x9b" "2Jg\x01\x7f\th");
	n = text_shown_in(s, sizeof(s));
	CHECK_STR(s, "a\\x1b]0;title\\x07b\\x1b[31;1mc\\r\\nd\\x9b2Jg\\x01"
	    "\\x7f\\th");
	CHECK_INT(n, strlen(s));
	strcpy(s, "plain text");	/* as it is */
	CHECK_INT(text_shown_in(s, sizeof(s)), 10);
	CHECK_STR(s, "plain text");
	strcpy(s, "ab\033[2J");	/* cut between escapes, never inside */
	CHECK_INT(text_shown_in(s, 7), 6);
	CHECK_STR(s, "ab\\x1b");
	strcpy(s, "ab\033[2J");
	CHECK_INT(text_shown_in(s, 6), 2);
	CHECK_STR(s, "ab");
}

TEST(text_tail_lines)
{
	static const char s[] = "one\ntwo\n\n  \nthree\nfour\n\n";

	CHECK_STR(text_tail(s, strlen(s), 2), "three\nfour\n\n");
	CHECK_STR(text_tail(s, strlen(s), 3), "two\n\n  \nthree\nfour\n\n");
	CHECK(text_tail(s, strlen(s), 10) == s);
	CHECK(text_tail("", 0, 3) != NULL);
}

TEST(text_numbers_and_time)
{
	char b[32];
	long v;

	CHECK_INT(text_uint("600", 1, 86400, &v), 0);
	CHECK_INT(v, 600);
	CHECK_INT(text_uint("0", 1, 5, &v), -1);
	CHECK_INT(text_uint("-1", 0, 5, &v), -1);
	CHECK_INT(text_uint("", 0, 5, &v), -1);
	CHECK_INT(text_uint("99999999999999", 0, 5, &v), -1);
	text_utc(b, sizeof(b), 0);
	CHECK_STR(b, "1970-01-01T00:00:00Z");
	text_utc_compact(b, sizeof(b), 86400 + 3661);
	CHECK_STR(b, "19700102T010101Z");
}

/* --- SHA-256: both paths, the same digests ------------------------------------- */

#include "util/sha256.h"

TEST(sha256_paths_agree)
{
	static unsigned char data[5000];
	unsigned char a[32], b[32];
	struct sha256 s;
	unsigned x = 12345;
	size_t n, i, step;
	char hex[65];

	/* FIPS 180-2 "abc" */
	sha256_init(&s, -1);
	sha256_update(&s, "abc", 3);
	sha256_out(&s, a);
	backup_hex(a, hex);
	CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	for (i = 0; i < sizeof(data); i++) {
		x = x * 1103515245u + 12345u;
		data[i] = (unsigned char)(x >> 16);
	}
	for (n = 0; n < sizeof(data); n += n < 200 ? 1 : 97) {
		sha256_init(&s, 0);
		sha256_update(&s, data, n);
		sha256_out(&s, a);
		/* the other path, fed in uneven pieces */
		sha256_init(&s, 1);
		step = 1 + n % 67;
		for (i = 0; i < n; i += step)
			sha256_update(&s, data + i, n - i < step ? n - i : step);
		sha256_out(&s, b);
		CHECK_MEM(b, 32, a, 32);
	}
	if (!sha256_ni_available())
		printf("    (no SHA extensions on this CPU: one path tested)\n");
}

#include "util/hash_follow.h"

/*
 * The follower's digest is the file's, however the writes are cut up and
 * however far behind it runs; a file shorter than what the writer claims
 * is -EIO, and an abandoned follow ends without one.
 */
TEST(hash_follow_matches_one_pass)
{
	static unsigned char data[3 * HASH_FOLLOW_BUF + 777];
	static struct hash_follow f;
	char path[] = "/tmp/box-unit-follow-XXXXXX";
	unsigned char want[32], got[32];
	struct sha256 s;
	unsigned x = 99;
	size_t i, step;
	int fd;

	for (i = 0; i < sizeof(data); i++) {
		x = x * 1103515245u + 12345u;
		data[i] = (unsigned char)(x >> 16);
	}
	sha256_init(&s, -1);
	sha256_update(&s, data, sizeof(data));
	sha256_out(&s, want);
	for (step = 1000; step < sizeof(data); step *= 7) {
		CHECK((fd = mkstemp(path)) >= 0);
		unlink(path);
		CHECK_INT(hash_follow_start(&f, fd), 0);
		for (i = 0; i < sizeof(data); i += step) {
			size_t n = sizeof(data) - i < step ?
			    sizeof(data) - i : step;

			CHECK(write(fd, data + i, n) == (ssize_t)n);
			hash_follow_wrote(&f, (long long)(i + n));
		}
		CHECK_INT(hash_follow_end(&f, got), 0);
		CHECK_MEM(got, 32, want, 32);
		/* a writer that claims a byte the file does not hold */
		CHECK_INT(hash_follow_start(&f, fd), 0);
		hash_follow_wrote(&f, (long long)sizeof(data) + 1);
		CHECK_INT(hash_follow_end(&f, got), -EIO);
		/* abandoned midway: no digest, the thread is gone */
		CHECK_INT(hash_follow_start(&f, fd), 0);
		hash_follow_wrote(&f, (long long)step);
		hash_follow_abandon(&f);
		close(fd);
		memcpy(path + strlen(path) - 6, "XXXXXX", 6);
	}
}

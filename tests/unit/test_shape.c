/*
 * doctor's judgement of a box's whole shape (host/stack/shape.h) over
 * crafted instance objects: a clean box (container and VM, with and
 * without doors) passes; each forbidden thing is a problem that names it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/door.h"
#include "host/doctor/doctor.h"
#include "host/stack/shape.h"
#include "incus/instance.h"
#include "incus/kv.h"
#include "t.h"

#define NIC_KEYS "\"type\":\"nic\",\"network\":\"boxnet\",\"name\":\"eth0\"," \
	"\"security.port_isolation\":\"true\",\"security.mac_filtering\":\"true\"," \
	"\"security.ipv4_filtering\":\"true\",\"security.ipv6_filtering\":\"true\""
#define NIC "\"eth0\":{" NIC_KEYS "}"
#define ROOT "\"root\":{\"type\":\"disk\",\"path\":\"/\",\"pool\":\"default\"}"
/* What box mints into a container's config (mint.c), and volatile keys. */
#define CFG "\"user.box\":\"1\",\"user.box.template\":\"blank\"," \
	"\"limits.cpu\":\"2\",\"limits.memory\":\"2GiB\"," \
	"\"cloud-init.user-data\":\"#cloud-config\\n\"," \
	"\"security.nesting\":\"true\",\"image.os\":\"busybox\"," \
	"\"volatile.eth0.hwaddr\":\"00:16:3e:00:00:01\""

static struct shape_report S;

/*
 * The instance object in buf, read as the doctor reads it (incus/
 * instance.h): 0 with *in filled, or the parser's refusal.
 */
static int
read_inst(const char *buf, struct incus_instance *in)
{
	struct json_doc d;
	struct box_err e;
	int rc;

	err_clear(&e);
	memset(in, 0, sizeof(*in));
	if (json_parse(&d, buf, strlen(buf), &e) < 0) {
		t_fail(__FILE__, __LINE__, "bad test JSON: %s: %s", e.msg, buf);
		return -EINVAL;
	}
	rc = incus_instance_from_json(&d, 0, 0, in, &e);
	json_free(&d);
	return rc;
}

/*
 * Judge {type, expanded_config: {cfg}, expanded_devices: {devs}}; -1 when
 * the instance parser refuses it (then nothing is judged, nor passes).
 */
static int
judge(const char *type, const char *devs, const char *cfg)
{
	static char buf[16384];
	struct incus_instance in;
	int n;

	snprintf(buf, sizeof(buf), "{\"name\":\"t\",\"type\":\"%s\","
	    "\"status\":\"Running\",\"expanded_config\":{%s},"
	    "\"expanded_devices\":{%s}}", type, cfg, devs);
	if (read_inst(buf, &in) < 0)
		return -1;
	n = shape_check(&in, &S);
	incus_instance_free(&in);
	return n;
}

/* Some problem mentions every one of the NULL-terminated needles. */
static int
named(const char *first, ...)
{
	const char *want[8];
	int i, k, nw = 0;
	va_list ap;

	va_start(ap, first);
	for (want[nw++] = first; nw < 8 && (want[nw] = va_arg(ap,
	    const char *)) != NULL; nw++)
		;
	va_end(ap);
	for (i = 0; i < S.n; i++) {
		for (k = 0; k < nw && strstr(S.what[i], want[k]) != NULL; k++)
			;
		if (k == nw)
			return 1;
	}
	return 0;
}

static void
dump(const char *file, int line, const char *what)
{
	int i;

	t_fail(file, line, "%s: %d problem(s)", what, S.n);
	for (i = 0; i < S.n; i++)
		fprintf(stderr, "      - %s\n", S.what[i]);
}

#define CLEAN(type, devs, cfg) do {					\
	if (judge(type, devs, cfg) != 0)				\
		dump(__FILE__, __LINE__, "a clean box failed");		\
} while (0)

/* Exactly one problem, naming every needle. */
#define ONE(type, devs, cfg, ...) do {					\
	if (judge(type, devs, cfg) != 1 || !named(__VA_ARGS__, NULL))	\
		dump(__FILE__, __LINE__, "want one problem naming "	\
		    #__VA_ARGS__);					\
} while (0)


TEST(shape_clean_boxes_pass)
{
	char door[256], devs[1024];

	CLEAN("container", NIC "," ROOT, CFG);
	CLEAN("container", ROOT "," NIC, "\"user.claudebox\":\"1\"");
	/* A VM: box sizes its root disk and turns secure boot off. */
	CLEAN("virtual-machine", NIC ",\"root\":{\"type\":\"disk\",\"path\":"
	    "\"/\",\"pool\":\"default\",\"size\":\"20GiB\"}",
	    "\"user.box\":\"1\",\"security.secureboot\":\"false\"");
	/* Explicitly off is not a widening. */
	CLEAN("container", NIC "," ROOT, CFG ",\"security.privileged\":"
	    "\"false\",\"security.syscalls.intercept.mknod\":\"false\"");
	/* A container's door, exactly as box expose makes it. */
	CHECK_INT(t_door_text(0, NULL, 3000, 18080, door, sizeof(door)),
	    0);
	snprintf(devs, sizeof(devs), NIC "," ROOT ",\"expose-3000\":%s", door);
	CLEAN("container", devs, CFG);
	/* A VM's door: NAT to the address pinned on eth0 and recorded. */
	CHECK_INT(t_door_text(1, "10.88.0.5", 80, 18081, door,
	    sizeof(door)), 0);
	snprintf(devs, sizeof(devs), "\"eth0\":{" NIC_KEYS ",\"ipv4.address\":"
	    "\"10.88.0.5\"}," ROOT ",\"expose-80\":%s", door);
	CLEAN("virtual-machine", devs, "\"user.box\":\"1\","
	    "\"" DOOR_PIN_KEY "\":\"10.88.0.5\"");
}

TEST(shape_extra_nics_named)
{
	ONE("container", NIC "," ROOT ",\"hmx1\":{\"type\":\"nic\","
	    "\"nictype\":\"p2p\",\"name\":\"eth1\"}", CFG,
	    "extra NIC hmx1", "nictype=p2p");
	ONE("container", NIC "," ROOT ",\"lan\":{\"type\":\"nic\","
	    "\"nictype\":\"macvlan\",\"parent\":\"eth0\"}", CFG,
	    "extra NIC lan", "parent=eth0");
	ONE("container", NIC "," ROOT ",\"eth1\":{\"type\":\"nic\","
	    "\"network\":\"boxtest0\"}", CFG, "extra NIC eth1",
	    "network=boxtest0");
	/* The only NIC is not eth0: both the stray NIC and the lack. */
	CHECK_INT(judge("container", "\"net0\":{" NIC_KEYS "}," ROOT, CFG), 2);
	CHECK(named("extra NIC net0", NULL));
	CHECK(named("no NIC eth0", "1 NIC in all", NULL));
	ONE("container", ROOT, CFG, "no NIC eth0", "0 NICs");
}

TEST(shape_nic_keys_exact)
{
	static const char *const filt[] = { "security.port_isolation",
	    "security.mac_filtering", "security.ipv4_filtering",
	    "security.ipv6_filtering" };
	char devs[1024];
	size_t i, j, k;

	/* Each contract key missing is named (mac_filtering included: its
	 * absence is the failure now, not its presence). */
	for (i = 0; i < 4; i++) {
		k = (size_t)snprintf(devs, sizeof(devs), "\"eth0\":{\"type\":"
		    "\"nic\",\"network\":\"boxnet\",\"name\":\"eth0\"");
		for (j = 0; j < 4; j++)
			if (j != i)
				k += (size_t)snprintf(devs + k, sizeof(devs) - k,
				    ",\"%s\":\"true\"", filt[j]);
		snprintf(devs + k, sizeof(devs) - k, "}," ROOT);
		if (judge("container", devs, CFG) != 1 ||
		    !named("NIC eth0", filt[i], "is missing", NULL))
			dump(__FILE__, __LINE__, filt[i]);
	}
	ONE("container", "\"eth0\":{\"type\":\"nic\",\"network\":\"boxnet\","
	    "\"name\":\"eth0\",\"security.port_isolation\":\"true\","
	    "\"security.mac_filtering\":\"false\","
	    "\"security.ipv4_filtering\":\"true\","
	    "\"security.ipv6_filtering\":\"true\"}," ROOT, CFG,
	    "security.mac_filtering=false, not true");
	ONE("container", "\"eth0\":{" NIC_KEYS ",\"security.acls\":\"x\"},"
	    ROOT, CFG, "security.acls=x on the NIC");
	ONE("container", "\"eth0\":{" NIC_KEYS ",\"mtu\":\"9000\"}," ROOT,
	    CFG, "extra key mtu=9000");
	/* A key given twice: the reply is refused before any judging. */
	CHECK_INT(judge("container", "\"eth0\":{" NIC_KEYS ",\"network\":"
	    "\"boxtest0\"}," ROOT, CFG), -1);
	/* A pinned address without the record of a door is not box's. */
	ONE("virtual-machine", "\"eth0\":{" NIC_KEYS ",\"ipv4.address\":"
	    "\"10.88.0.5\"}," ROOT, "\"user.box\":\"1\"",
	    "extra key ipv4.address=10.88.0.5");
	ONE("virtual-machine", "\"eth0\":{" NIC_KEYS ",\"ipv4.address\":"
	    "\"10.88.0.6\"}," ROOT, "\"" DOOR_PIN_KEY "\":\"10.88.0.5\"",
	    "extra key ipv4.address=10.88.0.6");
}

TEST(shape_profile_nic_keys)
{
	static const char good[] = "{" NIC_KEYS "}";
	static const char old[] = "{\"type\":\"nic\",\"network\":\"boxnet\","
	    "\"name\":\"eth0\",\"security.port_isolation\":\"true\"}";
	struct incus_kvs kv = { 0 };
	struct json_doc d;
	struct box_err e;
	char why[320];

	err_clear(&e);
	CHECK_INT(json_parse(&d, good, strlen(good), &e), 0);
	CHECK_INT(incus_kv_from_json(&kv, &d, 0), 0);
	shape_nic_kv(&kv, NULL, why, sizeof(why));
	CHECK_STR(why, "");
	json_free(&d);
	/* The profile before filtering was required: each key named. */
	CHECK_INT(json_parse(&d, old, strlen(old), &e), 0);
	CHECK_INT(incus_kv_from_json(&kv, &d, 0), 0);
	shape_nic_kv(&kv, NULL, why, sizeof(why));
	CHECK(strstr(why, "security.mac_filtering is missing") != NULL);
	CHECK(strstr(why, "security.ipv4_filtering is missing") != NULL);
	CHECK(strstr(why, "security.ipv6_filtering is missing") != NULL);
	json_free(&d);
	incus_kv_free(&kv);
}

TEST(shape_disks_named)
{
	ONE("container", NIC "," ROOT ",\"data\":{\"type\":\"disk\","
	    "\"source\":\"/tmp/hm\",\"path\":\"/mnt/host\"}", CFG,
	    "extra disk data", "source=/tmp/hm", "path=/mnt/host");
	/* any pool will do (setup-host chose one; a box may stay on the
	 * pool it was minted on), but a root disk names one */
	ONE("container", NIC ",\"root\":{\"type\":\"disk\",\"path\":\"/\"}",
	    CFG, "root disk root", "pool is missing");
	ONE("container", NIC ",\"root\":{\"type\":\"disk\",\"path\":\"/\","
	    "\"pool\":\"default\",\"readonly\":\"true\"}", CFG,
	    "root disk root", "extra key readonly=true");
	ONE("container", NIC, CFG, "no root disk");
	ONE("container", NIC "," ROOT ",\"root2\":{\"type\":\"disk\","
	    "\"path\":\"/\",\"pool\":\"default\"}", CFG, "second root disk "
	    "root2");
}

TEST(shape_proxies_named)
{
	/* Door-shaped names do not make a door. */
	ONE("container", NIC "," ROOT ",\"expose-80\":{\"type\":\"proxy\","
	    "\"listen\":\"tcp:0.0.0.0:8080\",\"connect\":\"tcp:127.0.0.1:80\","
	    "\"bind\":\"host\"}", CFG, "door expose-80 listens on "
	    "tcp:0.0.0.0:8080");
	ONE("container", NIC "," ROOT ",\"expose-80\":{\"type\":\"proxy\","
	    "\"listen\":\"unix:/run/x.sock\",\"connect\":\"tcp:127.0.0.1:80\"}",
	    CFG, "listens on unix:/run/x.sock");
	ONE("container", NIC "," ROOT ",\"web\":{\"type\":\"proxy\","
	    "\"listen\":\"tcp:127.0.0.1:8080\",\"connect\":\"tcp:127.0.0.1:80\","
	    "\"bind\":\"host\"}", CFG, "proxy web", "not a door");
	ONE("container", NIC "," ROOT ",\"expose-80\":{\"type\":\"proxy\","
	    "\"listen\":\"tcp:127.0.0.1:8080\",\"connect\":\"tcp:10.0.0.1:80\","
	    "\"bind\":\"host\"}", CFG, "connects to tcp:10.0.0.1:80");
	ONE("container", NIC "," ROOT ",\"expose-80\":{\"type\":\"proxy\","
	    "\"listen\":\"tcp:127.0.0.1:8080\",\"connect\":\"tcp:127.0.0.1:22\","
	    "\"bind\":\"host\"}", CFG, "connects to tcp:127.0.0.1:22");
	ONE("container", NIC "," ROOT ",\"expose-80\":{\"type\":\"proxy\","
	    "\"listen\":\"tcp:127.0.0.1:8080\",\"connect\":\"tcp:127.0.0.1:80\","
	    "\"bind\":\"instance\"}", CFG, "bind=instance");
	ONE("container", NIC "," ROOT ",\"expose-80\":{\"type\":\"proxy\","
	    "\"listen\":\"tcp:127.0.0.1:8080\",\"connect\":\"tcp:127.0.0.1:80\","
	    "\"proxy_protocol\":\"true\"}", CFG, "proxy_protocol=true");
	ONE("container", NIC "," ROOT ",\"expose-80\":{\"type\":\"proxy\","
	    "\"listen\":\"tcp:127.0.0.1:8080\",\"connect\":\"tcp:127.0.0.1:80\","
	    "\"nat\":\"true\"}", CFG, "nat set");
	/* A VM's door must NAT to the pinned address, nowhere else. */
	ONE("virtual-machine", "\"eth0\":{" NIC_KEYS ",\"ipv4.address\":"
	    "\"10.88.0.5\"}," ROOT ",\"expose-80\":{\"type\":\"proxy\","
	    "\"listen\":\"tcp:127.0.0.1:8080\",\"connect\":\"tcp:10.88.0.9:80\","
	    "\"bind\":\"host\",\"nat\":\"true\"}",
	    "\"" DOOR_PIN_KEY "\":\"10.88.0.5\"", "connects to tcp:10.88.0.9:80");
	ONE("virtual-machine", "\"eth0\":{" NIC_KEYS ",\"ipv4.address\":"
	    "\"10.88.0.5\"}," ROOT ",\"expose-80\":{\"type\":\"proxy\","
	    "\"listen\":\"tcp:127.0.0.1:8080\",\"connect\":\"tcp:10.88.0.5:80\","
	    "\"bind\":\"host\"}", "\"" DOOR_PIN_KEY "\":\"10.88.0.5\"",
	    "of a VM is not nat=true");
	/* A container-shaped door on a VM, nothing pinned: both said. */
	CHECK_INT(judge("virtual-machine", NIC "," ROOT ",\"expose-80\":"
	    "{\"type\":\"proxy\",\"listen\":\"tcp:127.0.0.1:8080\","
	    "\"connect\":\"tcp:127.0.0.1:80\",\"bind\":\"host\"}",
	    "\"user.box\":\"1\""), 2);
	CHECK(named("not nat=true", NULL));
	CHECK(named("not the box's pinned address", NULL));
}

TEST(shape_host_devices_named)
{
	static const char *const types[] = { "unix-char", "unix-block",
	    "unix-hotplug", "usb", "gpu", "infiniband", "pci", "tpm", "none" };
	char devs[512], want[64];
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		snprintf(devs, sizeof(devs), NIC "," ROOT ",\"dev%zu\":"
		    "{\"type\":\"%s\",\"path\":\"/dev/x\"}", i, types[i]);
		snprintf(want, sizeof(want), "device dev%zu of type %s", i,
		    types[i]);
		if (judge("container", devs, CFG) != 1 ||
		    !named(want, "path=/dev/x", NULL))
			dump(__FILE__, __LINE__, types[i]);
	}
	ONE("container", NIC "," ROOT ",\"odd\":{\"path\":\"/x\"}", CFG,
	    "device odd of type (none given)");
}

TEST(shape_config_named)
{
	ONE("container", NIC "," ROOT, CFG ",\"security.privileged\":\"true\"",
	    "security.privileged=true");
	ONE("container", NIC "," ROOT, CFG ",\"security.privileged\":\"1\"",
	    "security.privileged=1");
	ONE("container", NIC "," ROOT, CFG ",\"raw.lxc\":\"lxc.cap.drop=\"",
	    "raw.lxc is set");
	ONE("container", NIC "," ROOT, CFG ",\"raw.idmap\":\"both 0 0\"",
	    "raw.idmap is set");
	ONE("virtual-machine", NIC "," ROOT, "\"raw.qemu\":\"-S\"",
	    "raw.qemu is set");
	ONE("container", NIC "," ROOT, CFG ",\"linux.kernel_modules\":"
	    "\"ip_tables\"", "linux.kernel_modules=ip_tables");
	ONE("container", NIC "," ROOT, CFG ",\"security.syscalls.intercept."
	    "mknod\":\"true\"", "security.syscalls.intercept.mknod=true");
	ONE("container", NIC "," ROOT, CFG ",\"security.syscalls.intercept."
	    "mount.allowed\":\"ext4\"", "intercept.mount.allowed=ext4");
	ONE("container", NIC "," ROOT, CFG ",\"security.syscalls.allow\":"
	    "\"keyctl\"", "security.syscalls.allow is set");
	ONE("container", NIC "," ROOT, CFG ",\"security.syscalls."
	    "deny_default\":\"false\"", "deny_default=false");
	/* Nesting: box's own "true" on a container only. */
	ONE("virtual-machine", NIC "," ROOT, "\"security.nesting\":\"true\"",
	    "security.nesting=true on a VM");
	ONE("container", NIC "," ROOT, "\"security.nesting\":\"1\"",
	    "security.nesting=1");
	CLEAN("virtual-machine", NIC "," ROOT, "\"security.nesting\":"
	    "\"false\"");
}

TEST(shape_bounded_and_hostile)
{
	char devs[8192];
	size_t k = 0;
	int i, n;

	/* More problems than are kept: all counted, none overflow. */
	k += (size_t)snprintf(devs + k, sizeof(devs) - k, NIC "," ROOT);
	for (i = 0; i < SHAPE_MAX + 6; i++)
		k += (size_t)snprintf(devs + k, sizeof(devs) - k,
		    ",\"g%d\":{\"type\":\"gpu\"}", i);
	n = judge("container", devs, CFG);
	CHECK_INT(n, SHAPE_MAX + 6);
	CHECK_INT(S.n, SHAPE_MAX);
	CHECK_INT(S.more, 6);
	/* Names and values come out whole: the sinks escape them once
	 * (text_shown: doctor's dr_add, the error printer), never here. */
	CHECK_INT(judge("container", NIC "," ROOT ",\"\\u001b]0;pwn\\u0007x\":"
	    "{\"type\":\"usb\",\"vendorid\":\"\\u001b[31mred\"}", CFG), 1);
	CHECK(strstr(S.what[0], "\033]0;pwn\007x") != NULL);
	{
		struct dr_report rr;

		CHECK_INT(dr_report_init(&rr), 0);
		dr_add(&rr, "box.shape", "box x", DR_FAIL, NULL, "%s",
		    S.what[0]);
		CHECK(strchr(rr.f[0].text, 0x1b) == NULL);
		CHECK(strchr(rr.f[0].text, 0x07) == NULL);
		CHECK(strstr(rr.f[0].text, "\\x1b]0;pwn\\x07x") != NULL);
		dr_report_free(&rr);
	}
	/* A long value is cut, not overflowed. */
	memset(devs, 'a', 3000);
	devs[3000] = '\0';
	{
		char cfg[8192 + 16];

		snprintf(cfg, sizeof(cfg), "\"raw.lxc\":\"%s\"", devs);
		CHECK_INT(judge("container", NIC "," ROOT, cfg), 1);
		CHECK(strlen(S.what[0]) < SHAPE_TEXT);
	}
}

TEST(shape_not_an_instance)
{
	static const char *const docs[] = { "[]", "\"x\"", "{}",
	    "{\"expanded_devices\":[],\"expanded_config\":{}}",
	    "{\"expanded_devices\":{},\"expanded_config\":null}",
	    "{\"name\":\"t\",\"expanded_devices\":{\"eth0\":{\"type\":1}}}",
	    "{\"name\":\"t\",\"expanded_config\":{\"raw.lxc\":true}}" };
	struct incus_instance in;
	size_t i;

	/* Refused by the parser, or judged: never a pass. */
	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		if (read_inst(docs[i], &in) < 0)
			continue;
		if (shape_check(&in, &S) == 0)
			t_fail(__FILE__, __LINE__, "'%s' passed", docs[i]);
		incus_instance_free(&in);
	}
	/* Nothing to judge is never a pass: no devices, no config. */
	CHECK_INT(read_inst("{\"name\":\"t\"}", &in), 0);
	CHECK(shape_check(&in, &S) > 0);
	CHECK(named("no NIC eth0", NULL));
	CHECK(named("no root disk", NULL));
	incus_instance_free(&in);
	/* A value that is no string is refused, not judged on its bytes. */
	CHECK(read_inst(docs[6], &in) < 0);
	CHECK(read_inst(docs[5], &in) < 0);
}

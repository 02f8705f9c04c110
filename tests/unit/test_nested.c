/*
 * test_nested.c - the where-am-I verdict from pictures of a host, a plain
 * Incus instance and a box, and the install-tree helpers that need no disk.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/install/install.h"
#include "host/install/nested.h"
#include "t.h"

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | \
	(uint32_t)(c) << 8 | (uint32_t)(d))

static void
addr(struct nested_facts *f, const char *ifn, uint32_t a, int plen,
    int bridge)
{
	snprintf(f->addr[f->naddr].ifname, sizeof(f->addr[0].ifname), "%s",
	    ifn);
	f->addr[f->naddr].addr = a;
	f->addr[f->naddr].plen = (uint8_t)plen;
	f->addr[f->naddr].bridge = bridge;
	f->naddr++;
}

static void
gw(struct nested_facts *f, uint32_t a, const char *dev)
{
	f->has_gw = 1;
	f->gw = a;
	snprintf(f->gw_dev, sizeof(f->gw_dev), "%s", dev);
}

static int
has(const struct nested_report *r, const char *signal, int weight)
{
	int i;

	for (i = 0; i < r->n; i++)
		if (strcmp(r->ev[i].signal, signal) == 0 &&
		    r->ev[i].weight == weight)
			return 1;
	return 0;
}

static void
blank(struct nested_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->stamp = -1;
	f->net_read = 1;
}

TEST(nested_box_range)
{
	CHECK(nested_box_range(IP(10, 88, 0, 1)));
	CHECK(nested_box_range(IP(10, 88, 0, 254)));
	CHECK(!nested_box_range(IP(10, 88, 1, 1)));
	CHECK(nested_box_range(IP(10, 87, 0, 20)));
	CHECK(nested_box_range(IP(10, 89, 0, 1)));
	CHECK(nested_box_range(IP(10, 123, 45, 7)));
	CHECK(nested_box_range(IP(10, 127, 255, 255)));
	CHECK(!nested_box_range(IP(10, 128, 0, 1)));
	CHECK(!nested_box_range(IP(10, 86, 0, 1)));
	CHECK(!nested_box_range(IP(192, 168, 1, 1)));
}

/* A box host: it serves 10.88.0.1 on its bridge; that is not "inside". */
TEST(nested_host_with_boxnet)
{
	struct nested_facts f;
	struct nested_report r;

	blank(&f);
	addr(&f, "eth0", IP(192, 0, 2, 2), 24, 0);
	addr(&f, "boxnet", IP(10, 88, 0, 1), 24, 1);
	gw(&f, IP(192, 0, 2, 1), "eth0");
	nested_classify(&f, &r);
	CHECK_INT(r.verdict, NESTED_HOST);
	CHECK(has(&r, "bridge", NW_INFO));
	CHECK(has(&r, "uplink", NW_INFO));
	CHECK_STR(nested_verdict_name(r.verdict), "host");
}

/* A LAN on 10.88.0.0/24 alone is a hint, never a verdict. */
TEST(nested_network_alone_is_not_a_box)
{
	struct nested_facts f;
	struct nested_report r;

	blank(&f);
	addr(&f, "eth0", IP(10, 88, 0, 50), 24, 0);
	gw(&f, IP(10, 88, 0, 1), "eth0");
	nested_classify(&f, &r);
	CHECK_INT(r.verdict, NESTED_HOST);
	CHECK(has(&r, "uplink", NW_NET));
	CHECK(has(&r, "address", NW_NET));
}

/* An Incus container on an ordinary bridge, not stamped. */
TEST(nested_plain_instance)
{
	struct nested_facts f;
	struct nested_report r;

	blank(&f);
	f.gapi = GAPI_INCUS;
	snprintf(f.instance_type, sizeof(f.instance_type), "container");
	f.stamp = 0;
	snprintf(f.container, sizeof(f.container), "lxc");
	snprintf(f.container_src, sizeof(f.container_src), "/proc/1/environ");
	addr(&f, "eth0", IP(10, 200, 7, 30), 24, 0);
	gw(&f, IP(10, 200, 7, 1), "eth0");
	nested_classify(&f, &r);
	CHECK_INT(r.verdict, NESTED_INSTANCE);
	CHECK(has(&r, "guestapi", NW_INSTANCE));
	CHECK(has(&r, "container", NW_INSTANCE));
	CHECK(has(&r, "stamp", NW_INFO));
}

/* The stamp alone decides. */
TEST(nested_stamped_box)
{
	struct nested_facts f;
	struct nested_report r;

	blank(&f);
	f.gapi = GAPI_INCUS;
	f.stamp = 1;
	nested_classify(&f, &r);
	CHECK_INT(r.verdict, NESTED_BOX);
	CHECK(has(&r, "stamp", NW_BOX));
	f.stamp = 2;	/* legacy */
	nested_classify(&f, &r);
	CHECK_INT(r.verdict, NESTED_BOX);
}

/*
 * The #80 picture: a box VM whose guest API only root may use (a user
 * runs the installer), its uplink on 10.88.0.0/24.
 */
TEST(nested_unstamped_but_box_network)
{
	struct nested_facts f;
	struct nested_report r;

	blank(&f);
	f.gapi = GAPI_REFUSED;
	snprintf(f.gapi_detail, sizeof(f.gapi_detail), "GET /1.0 answered 401");
	f.dmi_incus = 1;
	addr(&f, "enp5s0", IP(10, 88, 0, 202), 24, 0);
	gw(&f, IP(10, 88, 0, 1), "enp5s0");
	nested_classify(&f, &r);
	CHECK_INT(r.verdict, NESTED_BOX);
	CHECK(has(&r, "dmi", NW_INSTANCE));
	CHECK(has(&r, "uplink", NW_NET));
}

/* A NIC on boxnet seen through the guest API is a box, whatever the IP. */
TEST(nested_nic_on_boxnet)
{
	struct nested_facts f;
	struct nested_report r;

	blank(&f);
	f.gapi = GAPI_INCUS;
	f.stamp = 0;
	snprintf(f.nic, sizeof(f.nic), "eth0");
	snprintf(f.nic_network, sizeof(f.nic_network), "boxnet");
	nested_classify(&f, &r);
	CHECK_INT(r.verdict, NESTED_BOX);
	CHECK(has(&r, "nic", NW_BOX));
}

/* Docker and friends are not Incus. */
TEST(nested_docker_is_host)
{
	struct nested_facts f;
	struct nested_report r;

	blank(&f);
	snprintf(f.container, sizeof(f.container), "docker");
	snprintf(f.container_src, sizeof(f.container_src), "/proc/1/environ");
	snprintf(f.hint, sizeof(f.hint), "/.dockerenv");
	nested_classify(&f, &r);
	CHECK_INT(r.verdict, NESTED_HOST);
	CHECK(has(&r, "container", NW_INFO));
	CHECK(has(&r, "hint", NW_INFO));
}

TEST(nested_gateway_held_locally_is_not_uplink)
{
	struct nested_facts f;
	struct nested_report r;

	blank(&f);
	f.gapi = GAPI_INCUS;
	f.stamp = 0;
	addr(&f, "br0", IP(10, 90, 0, 1), 24, 1);
	gw(&f, IP(10, 90, 0, 1), "br0");
	nested_classify(&f, &r);
	CHECK_INT(r.verdict, NESTED_INSTANCE);
	CHECK(!has(&r, "uplink", NW_NET));
}

TEST(install_version_names)
{
	CHECK(inst_version_ok("0.10.0"));
	CHECK(inst_version_ok("1.2.3-rc1+git.abc_d"));
	CHECK(!inst_version_ok(""));
	CHECK(!inst_version_ok(".hidden"));
	CHECK(!inst_version_ok("-x"));
	CHECK(!inst_version_ok("a/b"));
	CHECK(!inst_version_ok(".."));
	CHECK(!inst_version_ok("1 2"));
	CHECK(!inst_version_ok("0123456789012345678901234567890123456789"
	    "012345678901234567890123"));
}

TEST(install_vercmp)
{
	CHECK(inst_vercmp("0.9.0", "0.10.0") < 0);
	CHECK(inst_vercmp("0.10.0", "0.9.0") > 0);
	CHECK(inst_vercmp("1.0", "1.0") == 0);
	CHECK(inst_vercmp("1.0", "1.0.1") < 0);
	CHECK(inst_vercmp("1.02", "1.2") == 0);
	CHECK(inst_vercmp("0.10.0", "0.10.1-t2") < 0);
	CHECK(inst_vercmp("a", "b") < 0);
}

/* A throwaway install tree under /tmp, found through BOX_HOME. */
static void
touch(const char *root, const char *rel, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	if (f != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

TEST(install_tree)
{
	char root[] = "/tmp/box-unit-inst.XXXXXX", p[512], cur[256];
	char v[8][INST_VMAX], links[4][PATH_MAX];
	struct box_err e;
	struct inst in;
	int n;

	err_clear(&e);
	CHECK(mkdtemp(root) != NULL);
	snprintf(p, sizeof(p), "%s/versions", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/versions/0.10.0", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/versions/0.9.1", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/versions/.0.11.0.new.42", root);
	mkdir(p, 0755);		/* a staging directory: not a version */
	touch(root, "versions/0.10.0/box", "x");
	touch(root, "versions/0.9.1/box", "x");
	touch(root, "versions/0.10.0/MANIFEST", "version=0.10.0\n"
	    "source=local:/media/rel/box-0.10.0-x86_64\n");
	setenv("BOX_HOME", root, 1);
	CHECK_INT(inst_locate(&in, 0, &e), 0);
	CHECK_STR(in.root, root);
	CHECK_STR(in.self_version, "");
	n = inst_versions(&in, v, 8, &e);
	CHECK_INT(n, 2);
	CHECK_STR(v[0], "0.9.1");
	CHECK_STR(v[1], "0.10.0");
	CHECK_INT(inst_current(&in, cur, sizeof(cur)), -ENOENT);
	CHECK_INT(inst_flip(&in, "0.9.1", &e), 0);
	CHECK_INT(inst_current(&in, cur, sizeof(cur)), 0);
	CHECK_STR(cur, "0.9.1");
	CHECK_INT(inst_flip(&in, "0.10.0", &e), 0);
	CHECK_INT(inst_current(&in, cur, sizeof(cur)), 0);
	CHECK_STR(cur, "0.10.0");
	CHECK_INT(inst_flip(&in, "0.12.0", &e), 0);	/* dangling */
	CHECK_INT(inst_current(&in, cur, sizeof(cur)), -ESTALE);
	CHECK_STR(inst_manifest(&in, "0.10.0", "source", p, sizeof(p), "-"),
	    "local:/media/rel/box-0.10.0-x86_64");
	CHECK_STR(inst_manifest(&in, "0.9.1", "source", p, sizeof(p), "-"),
	    "-");

	/* PATH links: only those that lead (or dangle) into the root count. */
	snprintf(p, sizeof(p), "%s/bin", root);
	mkdir(p, 0755);
	setenv("BOX_BIN", p, 1);
	snprintf(p, sizeof(p), "%s/bin/box", root);
	snprintf(cur, sizeof(cur), "%s/current/box", root);
	CHECK_INT(symlink(cur, p), 0);
	n = inst_links(&in, NULL, links, 4);
	CHECK_INT(n, 1);
	CHECK_STR(links[0], p);
	unlink(p);
	CHECK_INT(symlink("/usr/bin/true", p), 0);
	CHECK_INT(inst_links(&in, NULL, links, 4), 0);
	unsetenv("BOX_BIN");

	CHECK_INT(inst_rmtree(root), 0);
	CHECK(!inst_exists(root));
	unsetenv("BOX_HOME");
}

/*
 * A fake guest API on a unix socket, served by a child: it answers /1.0,
 * the user.box key and /1.0/devices like Incus, keeps connections alive
 * unless close_each, and reports one byte per accepted connection on the
 * pipe.  Incus 6.0.4 can die when guest connections open and close while a
 * request is served (lxc/incus#3618), so the probe must ask everything over
 * one connection.
 */
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

static void
fake_answer(int fd, const char *req, int close_each)
{
	const char *body = "not found", *status = "404 Not Found";
	char out[1024];

	if (strncmp(req, "GET /1.0 ", 9) == 0) {
		status = "200 OK";
		body = "{\"api_version\":\"1.0\",\"instance_type\":"
		    "\"container\",\"location\":\"none\"}";
	} else if (strncmp(req, "GET /1.0/config/user.box ", 25) == 0) {
		status = "200 OK";
		body = "1";
	} else if (strncmp(req, "GET /1.0/devices ", 17) == 0) {
		status = "200 OK";
		body = "{\"eth0\":{\"type\":\"nic\",\"network\":\"boxnet\"}}";
	}
	snprintf(out, sizeof(out), "HTTP/1.1 %s\r\nContent-Type: "
	    "application/json\r\nContent-Length: %zu\r\n%s\r\n%s", status,
	    strlen(body), close_each ? "Connection: close\r\n" : "", body);
	if (write(fd, out, strlen(out)) < 0)
		_exit(1);
}

static void
fake_gapi(int lfd, int report, int close_each)
{
	char req[4096];
	size_t n;
	ssize_t r;
	int fd;

	for (;;) {
		if ((fd = accept(lfd, NULL, NULL)) < 0)
			_exit(0);
		if (write(report, "c", 1) != 1)
			_exit(1);
		n = 0;
		while ((r = read(fd, req + n, sizeof(req) - 1 - n)) > 0) {
			char *end;

			n += (size_t)r;
			req[n] = '\0';
			while ((end = strstr(req, "\r\n\r\n")) != NULL) {
				size_t used = (size_t)(end + 4 - req);

				fake_answer(fd, req, close_each);
				memmove(req, req + used, n - used + 1);
				n -= used;
			}
			if (close_each || n == sizeof(req) - 1)
				break;
		}
		close(fd);
	}
}

static int
probe_fake(int close_each, struct nested_facts *f)
{
	struct sockaddr_un sa;
	char dir[] = "/tmp/box-gapi-XXXXXX", got[16];
	int lfd, p[2], conns;
	pid_t pid;

	if (mkdtemp(dir) == NULL || pipe(p) < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sock", dir);
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(lfd, 8) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		fake_gapi(lfd, p[1], close_each);
	}
	close(p[1]);
	close(lfd);
	nested_probe(f, sa.sun_path);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	conns = (int)read(p[0], got, sizeof(got));
	close(p[0]);
	unlink(sa.sun_path);
	rmdir(dir);
	return conns;
}

TEST(nested_guest_api_one_connection)
{
	struct nested_facts f;

	memset(&f, 0, sizeof(f));
	CHECK_INT(probe_fake(0, &f), 1);	/* three questions, one socket */
	CHECK_INT(f.gapi, GAPI_INCUS);
	CHECK_STR(f.instance_type, "container");
	CHECK_INT(f.stamp, 1);
	CHECK_STR(f.nic, "eth0");
	CHECK_STR(f.nic_network, "boxnet");
	/* a server that closes after each answer is still asked everything */
	memset(&f, 0, sizeof(f));
	CHECK_INT(probe_fake(1, &f), 3);
	CHECK_INT(f.gapi, GAPI_INCUS);
	CHECK_INT(f.stamp, 1);
	CHECK_STR(f.nic, "eth0");
}

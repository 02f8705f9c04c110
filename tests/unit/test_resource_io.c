/*
 * The typed layer's requests, against a fake daemon (a forked child on a
 * temporary unix socket that answers GETs from recorded replies and logs
 * every request): what a write sends, that an edit keeps what it did not
 * mean to change, and that an absent object is -ENOENT.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box/door.h"
#include "host/stack/stack.h"
#include "incus/acl.h"
#include "incus/network.h"
#include "incus/profile.h"
#include "incus/storage.h"
#include "t.h"

/* The running fake's socket, which client() dials. */
static char fake_sock[108];

struct fake {
	char dir[40], sock[80], log[80];
	const char *acl;	/* corpus file served for the ACL */
	pid_t pid;
};

static char *
corpus(const char *name)
{
	char path[512], *buf = calloc(1, 1 << 16);
	FILE *f;

	snprintf(path, sizeof(path), "%s/fuzz/corpus/fuzz_resource/%s",
	    t_datadir(), name);
	if (buf == NULL || (f = fopen(path, "rb")) == NULL)
		return buf;
	if (fread(buf, 1, (1 << 16) - 1, f) == 0)
		buf[0] = '\0';
	fclose(f);
	return buf;
}

static void
reply(int fd, int status, const char *meta)
{
	char head[256], *body;
	size_t n = (meta ? strlen(meta) : 0) + 256;
	int bl;

	body = malloc(n);
	if (status == 200)
		bl = snprintf(body, n, "{\"type\":\"sync\",\"status\":"
		    "\"Success\",\"status_code\":200,\"metadata\":%s}", meta);
	else
		bl = snprintf(body, n, "{\"type\":\"error\",\"error\":\"not "
		    "found\",\"error_code\":404,\"metadata\":null}");
	snprintf(head, sizeof(head), "HTTP/1.1 %d X\r\nContent-Type: "
	    "application/json\r\nContent-Length: %d\r\n\r\n", status, bl);
	if (write(fd, head, strlen(head)) < 0 || write(fd, body,
	    (size_t)bl) < 0)
		_exit(1);
	free(body);
}

/* One connection: requests until the client closes it. */
static void
serve_conn(int fd, const struct fake *f, FILE *log)
{
	static char buf[1 << 20];
	size_t have = 0;

	for (;;) {
		char *end, *cl, method[16], path[512];
		size_t hl, blen = 0;
		ssize_t k;

		buf[have] = '\0';
		while ((end = strstr(buf, "\r\n\r\n")) == NULL) {
			if ((k = read(fd, buf + have, sizeof(buf) - 1 -
			    have)) <= 0)
				return;
			have += (size_t)k;
			buf[have] = '\0';
		}
		hl = (size_t)(end - buf) + 4;
		if ((cl = strcasestr(buf, "Content-Length:")) != NULL &&
		    cl < end)
			blen = strtoul(cl + 15, NULL, 10);
		while (have < hl + blen) {
			if ((k = read(fd, buf + have, sizeof(buf) - 1 -
			    have)) <= 0)
				return;
			have += (size_t)k;
		}
		if (sscanf(buf, "%15s %511s", method, path) != 2)
			return;
		fprintf(log, "%s %s %.*s\n", method, path, (int)blen,
		    buf + hl);
		fflush(log);
		if (strcmp(method, "GET") != 0)
			reply(fd, 200, "{}");
		else if (strncmp(path, "/1.0/network-acls/box-isolate",
		    29) == 0 && f->acl != NULL) {
			char *m = corpus(f->acl);

			reply(fd, 200, m);
			free(m);
		} else if (strncmp(path, "/1.0/networks/boxnet/leases",
		    27) == 0) {
			char *m = corpus("leases_boxnet.json");

			reply(fd, 200, m);
			free(m);
		} else if (strncmp(path, "/1.0/networks/boxnet", 20) == 0) {
			char *m = corpus("network_boxnet.json");

			reply(fd, 200, m);
			free(m);
		} else if (strncmp(path, "/1.0/storage-pools/default/volumes",
		    34) == 0) {
			reply(fd, 200, "[\"/1.0/storage-pools/default/volumes/"
			    "container/c1\"]");
		} else {
			reply(fd, 404, NULL);
		}
		memmove(buf, buf + hl + blen, have - hl - blen);
		have -= hl + blen;
	}
}

static int
fake_start(struct fake *f, const char *acl)
{
	struct sockaddr_un sa;
	int lfd;

	memset(f, 0, sizeof(*f));
	f->acl = acl;
	snprintf(f->dir, sizeof(f->dir), "/tmp/box-test-res-XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	snprintf(f->sock, sizeof(f->sock), "%s/unix.socket", f->dir);
	snprintf(f->log, sizeof(f->log), "%s/log", f->dir);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", f->sock);
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(lfd, 16) < 0)
		return -1;
	f->pid = fork();
	if (f->pid == 0) {
		FILE *log = fopen(f->log, "w");
		int fd;

		alarm(20);
		while (log != NULL && (fd = accept(lfd, NULL, NULL)) >= 0) {
			serve_conn(fd, f, log);
			close(fd);
		}
		_exit(0);
	}
	close(lfd);
	snprintf(fake_sock, sizeof(fake_sock), "%s", f->sock);
	return 0;
}

/* The log so far (caller frees), then the fake stopped and removed. */
static char *
fake_stop(struct fake *f)
{
	char *log = calloc(1, 1 << 20);
	FILE *fp;

	kill(f->pid, SIGKILL);
	waitpid(f->pid, NULL, 0);
	if (log != NULL && (fp = fopen(f->log, "r")) != NULL) {
		if (fread(log, 1, (1 << 20) - 1, fp) == 0)
			log[0] = '\0';
		fclose(fp);
	}
	unlink(f->log);
	unlink(f->sock);
	rmdir(f->dir);
	fake_sock[0] = '\0';
	return log;
}

static int
client(struct incus *c)
{
	struct incus_settings s;
	struct box_err e;

	memset(&s, 0, sizeof(s));
	snprintf(s.socket_path, sizeof(s.socket_path), "%s", fake_sock);
	err_clear(&e);
	return incus_open(c, &s, &e);
}

TEST(resource_io_door_adds_and_removes_its_rule_only)
{
	struct fake f;
	struct incus c;
	struct box_err e;
	char *log;

	CHECK(fake_start(&f, "acl_isolate.json") == 0);
	CHECK(client(&c) == 0);
	err_clear(&e);
	CHECK_INT(door_acl(&c, "10.88.0.5", 8080, 1, &e), 0);
	incus_close(&c);
	log = fake_stop(&f);
	/* The egress rules go back as read, the door rule is added. */
	CHECK(strstr(log, "PUT /1.0/network-acls/box-isolate {\"description\":"
	    "\"box: a box reaches the internet, nothing private\",\"egress\":"
	    "[{\"action\":\"allow\",\"destination\":\"10.88.0.1/32\","
	    "\"description\":\"the gateway: DNS and DHCP\",\"state\":"
	    "\"enabled\"},{\"action\":\"drop\",\"destination\":"
	    "\"10.0.0.0/8\",\"state\":\"enabled\"},") != NULL);
	CHECK(strstr(log, "\"ingress\":[{\"action\":\"allow\",\"destination\":"
	    "\"10.88.0.5/32\",\"protocol\":\"tcp\",\"destination_port\":"
	    "\"8080\",\"description\":\"box expose\",\"state\":\"enabled\"}],"
	    "\"config\":{}}") != NULL);
	free(log);

	/* Removing: the other door stays; adding one present sends nothing. */
	CHECK(fake_start(&f, "acl_doors.json") == 0);
	CHECK(client(&c) == 0);
	CHECK_INT(door_acl(&c, "10.88.0.5", 8080, 1, &e), 0);
	CHECK_INT(door_acl(&c, "10.88.0.5", 8080, 0, &e), 0);
	incus_close(&c);
	log = fake_stop(&f);
	CHECK(strstr(log, "PUT") == strstr(log, "PUT /1.0/network-acls/"
	    "box-isolate {") && strstr(strstr(log, "PUT") + 1, "PUT") ==
	    NULL);
	CHECK(strstr(log, "\"ingress\":[],") != NULL);
	free(log);

	/* No ACL: -ENOENT, as the callers expect. */
	CHECK(fake_start(&f, NULL) == 0);
	CHECK(client(&c) == 0);
	CHECK_INT(door_acl(&c, "10.88.0.5", 8080, 1, &e), -ENOENT);
	incus_close(&c);
	free(fake_stop(&f));
}

TEST(resource_io_stack_acl_keeps_the_doors)
{
	struct stack_conf sc = { .net = 0x0a580000 };
	struct fake f;
	struct incus c;
	struct box_err e;
	char *log;
	int changed = 0;

	CHECK(stack_dns_parse("127.0.0.1", &sc, &e) == 0);
	CHECK(fake_start(&f, "acl_doors.json") == 0);
	CHECK(client(&c) == 0);
	CHECK_INT(stack_ensure_acl(&c, &sc, &changed, &e), 0);
	CHECK(changed == 1);
	incus_close(&c);
	log = fake_stop(&f);
	CHECK(strstr(log, "PUT /1.0/network-acls/box-isolate") != NULL);
	CHECK(strstr(log, "\"destination\":\"100.64.0.0/10\"") != NULL);
	CHECK(strstr(log, "\"ingress\":[{\"action\":\"allow\",\"destination\":"
	    "\"10.88.0.5/32\",\"protocol\":\"tcp\",\"destination_port\":"
	    "\"8080\",\"description\":\"box expose\",\"state\":"
	    "\"enabled\"}]") != NULL);
	free(log);

	/* The recorded contract ACL: nothing to change, nothing sent. */
	CHECK(fake_start(&f, "acl_isolate.json") == 0);
	CHECK(client(&c) == 0);
	CHECK_INT(stack_ensure_acl(&c, &sc, &changed, &e), 0);
	CHECK(changed == 0);
	incus_close(&c);
	log = fake_stop(&f);
	CHECK(strstr(log, "PUT") == NULL && strstr(log, "POST") == NULL);
	free(log);

	/* None yet: created, with a name and no doors. */
	CHECK(fake_start(&f, NULL) == 0);
	CHECK(client(&c) == 0);
	CHECK_INT(stack_ensure_acl(&c, &sc, &changed, &e), 0);
	incus_close(&c);
	log = fake_stop(&f);
	CHECK(strstr(log, "POST /1.0/network-acls {\"name\":\"box-isolate\","
	    "\"description\":") != NULL);
	CHECK(strstr(log, "\"ingress\":[],\"config\":{}}") != NULL);
	free(log);
}

TEST(resource_io_network_writes_and_absence)
{
	struct incus_network n = { .name = "bxn-x", .type = "bridge" }, got;
	struct incus_kvs cfg = { 0 };
	struct incus_leases l;
	struct incus_profile p;
	struct incus_volume_refs v;
	struct fake f;
	struct incus c;
	struct box_err e;
	char *log;

	CHECK(incus_kv_set(&cfg, "raw.dnsmasq", "a\nb\"") == 0);
	CHECK(incus_kv_set(&n.config, "ipv4.address", "10.9.9.1/24") == 0);
	CHECK(fake_start(&f, NULL) == 0);
	CHECK(client(&c) == 0);
	err_clear(&e);
	CHECK_INT(incus_network_patch(&c, "boxnet", &cfg, &e), 0);
	CHECK_INT(incus_network_create(&c, &n, &e), 0);
	CHECK_INT(incus_network_get(&c, "nope", &got, &e), -ENOENT);
	CHECK(got.name == NULL && got.config.n == 0);
	CHECK_INT(incus_profile_get(&c, "nope", &p, &e), -ENOENT);
	CHECK_INT(incus_network_leases(&c, "boxnet", &l, &e), 0);
	CHECK_INT(l.n, 2);
	incus_leases_free(&l);
	CHECK_INT(incus_pool_volumes(&c, "default", NULL, &v, &e), 0);
	CHECK(v.n == 1 && strcmp(v.v[0].name, "c1") == 0);
	incus_volume_refs_free(&v);
	/* A name that would leave its path segment is escaped. */
	CHECK_INT(incus_network_delete(&c, "a/../b", &e), 0);
	incus_close(&c);
	log = fake_stop(&f);
	CHECK(strstr(log, "PATCH /1.0/networks/boxnet {\"config\":"
	    "{\"raw.dnsmasq\":\"a\\nb\\\"\"}}") != NULL);
	CHECK(strstr(log, "POST /1.0/networks {\"name\":\"bxn-x\",\"type\":"
	    "\"bridge\",\"config\":{\"ipv4.address\":\"10.9.9.1/24\"}}") !=
	    NULL);
	CHECK(strstr(log, "DELETE /1.0/networks/a%2F..%2Fb") != NULL);
	free(log);
	incus_kv_free(&cfg);
	incus_kv_free(&n.config);
}

/*
 * Unit tests for src/incus/exec.c: the request and control messages, and
 * whole sessions against a fake daemon (a forked child on a temporary unix
 * socket that speaks just enough of the exec protocol).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box/remote/incus_env.h"
#include "incus/api.h"
#include "incus/exec.h"
#include "incus/ws.h"
#include "t.h"
#include "util/clock.h"

TEST(exec_request_json_known_answer)
{
	const char *argv[] = { "sh", "-c", "echo \"hi\"", NULL };
	const char *env[] = { "TERM=xterm", "A=b=c", NULL };
	struct exec_req r = { argv, env, "/tmp", 1000, 1000, 1, 80, 24 };
	char *j;
	size_t n;

	CHECK_INT(exec_request_json(&r, &j, &n), 0);
	CHECK_STR(j, "{\"command\":[\"sh\",\"-c\",\"echo \\\"hi\\\"\"],"
	    "\"environment\":{\"TERM\":\"xterm\",\"A\":\"b=c\"},"
	    "\"interactive\":true,\"wait-for-websocket\":true,\"width\":80,"
	    "\"height\":24,\"user\":1000,\"group\":1000,\"cwd\":\"/tmp\"}");
	free(j);
	r.env = NULL;
	r.cwd = NULL;
	r.uid = r.gid = -1;
	r.interactive = 0;
	CHECK_INT(exec_request_json(&r, &j, &n), 0);
	CHECK_STR(j, "{\"command\":[\"sh\",\"-c\",\"echo \\\"hi\\\"\"],"
	    "\"environment\":{},\"interactive\":false,"
	    "\"wait-for-websocket\":true}");
	free(j);
	env[0] = "NOEQUALS";
	r.env = env;
	CHECK_INT(exec_request_json(&r, &j, &n), -EINVAL);
}

TEST(exec_control_json_known_answers)
{
	char b[128];

	CHECK_INT(exec_resize_json(b, sizeof(b), 132, 50), 64);
	CHECK_STR(b, "{\"command\":\"window-resize\",\"args\":{\"width\":"
	    "\"132\",\"height\":\"50\"}}");
	CHECK(exec_signal_json(b, sizeof(b), 15) > 0);
	CHECK_STR(b, "{\"command\":\"signal\",\"signal\":15}");
	CHECK_INT(exec_signal_json(b, 10, 15), -ENOSPC);
}

/* --- a fake daemon -------------------------------------------------------- */

enum { FAKE_NORMAL, FAKE_HANG, FAKE_FLOOD, FAKE_MASKED, FAKE_BADACCEPT,
	FAKE_CMDNOTFOUND };

#define NCONN 16
static const char *const secrets[4] = { "sc", "s0", "s1", "s2" };

struct fconn {
	int fd;
	char in[70000];
	size_t len;
	int ws;			/* -1: http; else 0 ctl, 1..3 fd 0..2 */
	struct ws_parser ps;
};

struct fake {
	int mode;
	struct fconn c[NCONN];
	int wsfd[4];
	int nws;
	int started, done;
	int wait_fd;		/* a /wait waiting for the end, or -1 */
	size_t stdin_bytes;
	int stdin_eof;
	FILE *log;
};

static void
put_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0) {
		ssize_t w = write(fd, c, n);

		if (w <= 0)
			return;
		c += w;
		n -= (size_t)w;
	}
}

static void
reply(int fd, int status, const char *json)
{
	char h[256];

	snprintf(h, sizeof(h), "HTTP/1.1 %d X\r\nContent-Type: application/"
	    "json\r\nContent-Length: %zu\r\n\r\n", status, strlen(json));
	put_all(fd, h, strlen(h));
	put_all(fd, json, strlen(json));
}

static void
frame(int fd, int op, const void *p, size_t n, int masked)
{
	unsigned char h[WS_MAX_HEADER], m[4] = { 1, 2, 3, 4 }, *b = malloc(n + 1);
	size_t hl = ws_frame_header(h, 1, op, n, masked ? m : NULL);

	memcpy(b, p, n);
	if (masked)
		ws_mask(b, n, m, 0);
	put_all(fd, h, hl);
	put_all(fd, b, n);
	free(b);
}

static const char *
final_op(struct fake *f)
{
	static char buf[512];

	if (f->mode == FAKE_CMDNOTFOUND)
		return "{\"type\":\"sync\",\"metadata\":{\"id\":\"op1\",\"status\":"
		    "\"Failure\",\"status_code\":400,\"err\":\"Command not "
		    "found\",\"metadata\":{\"return\":127}}}";
	snprintf(buf, sizeof(buf), "{\"type\":\"sync\",\"metadata\":{\"id\":"
	    "\"op1\",\"status\":\"Success\",\"status_code\":200,\"err\":\"\","
	    "\"metadata\":{\"return\":42}}}");
	return buf;
}

static void
answer_wait(struct fake *f, int fd)
{
	if (f->mode == FAKE_CMDNOTFOUND)
		reply(fd, 200, "{\"type\":\"error\",\"error_code\":400,\"error\":"
		    "\"Command not found\",\"metadata\":null}");
	else
		reply(fd, 200, final_op(f));
}

/* All sockets are up: play the script. */
static void
play(struct fake *f)
{
	static char big[200000];
	int i;

	f->started = 1;
	for (i = 0; i < 4; i++)
		frame(f->wsfd[i], WS_OP_PING, "keepalive", 9, 0);
	switch (f->mode) {
	case FAKE_HANG:
		frame(f->wsfd[2], WS_OP_BINARY, "started\n", 8, 0);
		return;		/* never ends */
	case FAKE_MASKED:
		frame(f->wsfd[2], WS_OP_BINARY, "x", 1, 1);
		return;
	case FAKE_FLOOD:
		memset(big, 'z', sizeof(big));
		frame(f->wsfd[2], WS_OP_BINARY, big, sizeof(big) / 2, 0);
		frame(f->wsfd[2], WS_OP_BINARY, big, sizeof(big) / 2, 0);
		break;
	default:
		frame(f->wsfd[2], WS_OP_BINARY, "hello\n", 6, 0);
		frame(f->wsfd[3], WS_OP_BINARY, "oops\n", 5, 0);
	}
}

/* The script's end: output barriers, then the sockets close. */
static void
finish(struct fake *f)
{
	char msg[64];
	int i;

	snprintf(msg, sizeof(msg), "stdin=%zu\n", f->stdin_bytes);
	frame(f->wsfd[2], WS_OP_BINARY, msg, strlen(msg), 0);
	close(f->wsfd[0]);	/* control first, as incusd does */
	f->wsfd[0] = -1;
	frame(f->wsfd[2], WS_OP_TEXT, "", 0, 0);
	frame(f->wsfd[3], WS_OP_TEXT, "", 0, 0);
	for (i = 1; i < 4; i++) {
		shutdown(f->wsfd[i], SHUT_RDWR);
	}
	f->done = 1;
	if (f->wait_fd >= 0)
		answer_wait(f, f->wait_fd);
}

static void
ws_input(struct fake *f, struct fconn *c)
{
	size_t off = 0;

	while (off < c->len) {
		struct ws_event ev;
		ssize_t r = ws_parse(&c->ps, (unsigned char *)c->in + off,
		    c->len - off, 0, &ev);

		if (r < 0) {
			fprintf(f->log, "bad frame on %d: %s\n", c->ws,
			    c->ps.why);
			break;
		}
		off += (size_t)r;
		if (ev.type == WS_EV_NONE)
			break;
		if (ev.type != WS_EV_DATA)
			continue;
		if (c->ws == 0)
			fprintf(f->log, "control %.*s\n", (int)ev.len,
			    (const char *)ev.data);
		if (c->ws == 1 && ev.opcode == WS_OP_BINARY)
			f->stdin_bytes += ev.len;
		if (c->ws == 1 && ev.opcode == WS_OP_TEXT && !f->stdin_eof) {
			f->stdin_eof = 1;
			if (f->mode == FAKE_NORMAL || f->mode == FAKE_FLOOD ||
			    f->mode == FAKE_CMDNOTFOUND)
				finish(f);
		}
	}
	c->len = 0;
}

static void
http_input(struct fake *f, struct fconn *c)
{
	char *end = memmem(c->in, c->len, "\r\n\r\n", 4), *cl, key[64];
	size_t hl, bl = 0;
	int i;

	if (end == NULL)
		return;
	hl = (size_t)(end - c->in) + 4;
	cl = memmem(c->in, hl, "Content-Length: ", 16);
	if (cl != NULL)
		bl = strtoul(cl + 16, NULL, 10);
	if (c->len < hl + bl)
		return;		/* the body comes in a later read */
	c->in[hl - 1] = '\0';
	if (strncmp(c->in, "POST /1.0/instances/x/exec", 26) == 0) {
		reply(c->fd, 202, "{\"type\":\"async\",\"operation\":\"/1.0/"
		    "operations/op1\",\"metadata\":{\"id\":\"op1\",\"class\":"
		    "\"websocket\",\"metadata\":{\"fds\":{\"0\":\"s0\",\"1\":"
		    "\"s1\",\"2\":\"s2\",\"control\":\"sc\"}}}}");
	} else if (strncmp(c->in, "GET /1.0/operations/op1/websocket", 33) ==
	    0) {
		char acc[29], *k = strstr(c->in, "Sec-WebSocket-Key: "), h[300];

		snprintf(key, sizeof(key), "%.24s", k ? k + 19 : "");
		ws_accept_key(key, acc);
		if (f->mode == FAKE_BADACCEPT)
			acc[0] ^= 1;
		snprintf(h, sizeof(h), "HTTP/1.1 101 Switching Protocols\r\n"
		    "Upgrade: websocket\r\nConnection: Upgrade\r\n"
		    "Sec-WebSocket-Accept: %s\r\n\r\n", acc);
		put_all(c->fd, h, strlen(h));
		k = strstr(c->in, "secret=");
		for (i = 0; i < 4 && k != NULL; i++)
			if (strncmp(k + 7, secrets[i], 2) == 0) {
				c->ws = i;
				f->wsfd[i] = c->fd;
				f->nws++;
				ws_parser_init(&c->ps, 1 << 20, 1 << 30, 1);
			}
		memmove(c->in, c->in + hl, c->len - hl);
		c->len -= hl;
		if (f->nws == 4)
			play(f);
		if (c->len > 0)
			ws_input(f, c);
		return;
	} else if (strstr(c->in, "/wait") != NULL) {
		if (f->done)
			answer_wait(f, c->fd);
		else
			f->wait_fd = c->fd;
	} else if (strncmp(c->in, "GET /1.0/operations/op1 ", 24) == 0) {
		reply(c->fd, 200, final_op(f));
	} else {
		reply(c->fd, 404, "{\"type\":\"error\",\"error_code\":404,"
		    "\"error\":\"not found\"}");
	}
	memmove(c->in, c->in + hl + bl, c->len - hl - bl);
	c->len -= hl + bl;
}

static void
fake_serve(int lfd, int mode, const char *logpath)
{
	struct pollfd p[NCONN + 1];
	struct fake *f = calloc(1, sizeof(*f));
	int i, n;

	f->mode = mode;
	f->wait_fd = -1;
	f->log = fopen(logpath, "w");
	setvbuf(f->log, NULL, _IONBF, 0);
	for (i = 0; i < NCONN; i++)
		f->c[i].fd = -1;
	for (;;) {
		p[0].fd = lfd;
		p[0].events = POLLIN;
		for (i = 0; i < NCONN; i++) {
			p[i + 1].fd = f->c[i].fd;
			p[i + 1].events = POLLIN;
		}
		if (poll(p, NCONN + 1, 10000) <= 0)
			_exit(0);
		if (p[0].revents & POLLIN) {
			int fd = accept(lfd, NULL, NULL);

			for (i = 0; i < NCONN && fd >= 0; i++)
				if (f->c[i].fd < 0) {
					f->c[i].fd = fd;
					f->c[i].len = 0;
					f->c[i].ws = -1;
					break;
				}
		}
		for (i = 0; i < NCONN; i++) {
			struct fconn *c = &f->c[i];

			if (c->fd < 0 || !p[i + 1].revents)
				continue;
			n = (int)read(c->fd, c->in + c->len,
			    sizeof(c->in) - c->len);
			if (n <= 0) {
				if (c->ws == 0 && !f->done)
					fprintf(f->log, "control closed\n");
				close(c->fd);
				c->fd = -1;
				continue;
			}
			c->len += (size_t)n;
			if (c->ws >= 0)
				ws_input(f, c);
			else
				http_input(f, c);
		}
	}
}

struct fake_run {
	char dir[40], sock[80], log[80];
	pid_t pid;
};

static int
fake_start(struct fake_run *r, int mode)
{
	struct sockaddr_un sa;
	int lfd;

	snprintf(r->dir, sizeof(r->dir), "/tmp/box-test-exec-XXXXXX");
	if (mkdtemp(r->dir) == NULL)
		return -1;
	snprintf(r->sock, sizeof(r->sock), "%s/unix.socket", r->dir);
	snprintf(r->log, sizeof(r->log), "%s/log", r->dir);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", r->sock);
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(lfd, 16) < 0)
		return -1;
	r->pid = fork();
	if (r->pid == 0) {
		fake_serve(lfd, mode, r->log);
		_exit(0);
	}
	close(lfd);
	setenv("INCUS_SOCKET", r->sock, 1);
	return 0;
}

static void
fake_stop(struct fake_run *r, char *log, size_t cap)
{
	FILE *fp;
	size_t n = 0;
	int i;

	/* let it read what we sent last (it exits 10 s after the last event) */
	for (i = 0; i < 100 && waitpid(r->pid, NULL, WNOHANG) == 0; i++) {
		fp = fopen(r->log, "r");
		n = fp != NULL ? fread(log, 1, cap - 1, fp) : 0;
		if (fp != NULL)
			fclose(fp);
		log[n] = '\0';
		if (strstr(log, "control closed") != NULL)
			break;
		usleep(10000);
	}
	n = 0;
	kill(r->pid, SIGKILL);
	waitpid(r->pid, NULL, 0);
	fp = fopen(r->log, "r");
	if (fp != NULL) {
		n = fread(log, 1, cap - 1, fp);
		fclose(fp);
	}
	log[n] = '\0';
	unlink(r->log);
	unlink(r->sock);
	rmdir(r->dir);
	unsetenv("INCUS_SOCKET");
}

struct cap_result {
	int rc;
	struct exec_status st;
	char out[4096], err[4096];
	struct exec_buf ob, eb;
	struct box_err e;
	char log[4096];
};

static void
capture(int mode, const char *in, size_t in_len, int timeout_ms,
    struct cap_result *cr)
{
	const char *argv[] = { "cmd", NULL };
	struct exec_req req = { argv, NULL, NULL, -1, -1, 0, 0, 0 };
	struct fake_run fr;
	struct incus c;

	memset(cr, 0, sizeof(*cr));
	cr->ob = (struct exec_buf){ cr->out, sizeof(cr->out), 0, 0 };
	cr->eb = (struct exec_buf){ cr->err, sizeof(cr->err), 0, 0 };
	err_clear(&cr->e);
	if (fake_start(&fr, mode) < 0) {
		t_fail(__FILE__, __LINE__, "fake daemon: %s", strerror(errno));
		return;
	}
	incus_env_apply(NULL, NULL);
	CHECK_INT(incus_init(&c, &cr->e), 0);
	cr->rc = exec_capture(&c, "x", &req, in, in_len, &cr->ob, &cr->eb,
	    timeout_ms, &cr->st, &cr->e);
	incus_close(&c);
	fake_stop(&fr, cr->log, sizeof(cr->log));
	if (getenv("EXEC_DEBUG"))
		fprintf(stderr, "rc %d e [%s] log [%s]\n", cr->rc, cr->e.msg,
		    cr->log);
}

TEST(exec_capture_session)
{
	static struct cap_result r;
	char in[100000];

	memset(in, 'i', sizeof(in));
	capture(FAKE_NORMAL, in, sizeof(in), 5000, &r);
	CHECK_INT(r.rc, 0);
	CHECK_INT(r.st.code, 42);
	CHECK_STR(r.out, "hello\nstdin=100000\n");
	CHECK_STR(r.err, "oops\n");
	CHECK_INT(r.ob.truncated, 0);
	CHECK(strstr(r.log, "bad frame") == NULL);
}

TEST(exec_capture_empty_stdin_and_failed_operation)
{
	static struct cap_result r;

	capture(FAKE_CMDNOTFOUND, NULL, 0, 5000, &r);
	CHECK_INT(r.rc, 0);
	CHECK_INT(r.st.code, 127);
	CHECK_STR(r.st.err, "Command not found");
	CHECK_STR(r.out, "hello\nstdin=0\n");
}

TEST(exec_capture_caps_output)
{
	static struct cap_result r;

	capture(FAKE_FLOOD, "", 0, 5000, &r);
	CHECK_INT(r.rc, 0);
	CHECK_INT(r.st.code, 42);
	CHECK_INT(r.ob.len, sizeof(r.out) - 1);
	CHECK_INT(r.ob.truncated, 1);
	CHECK_INT(strlen(r.out), sizeof(r.out) - 1);
}

TEST(exec_capture_timeout_kills)
{
	static struct cap_result r;
	long long t0 = clock_ms(), dt;

	capture(FAKE_HANG, "", 0, 400, &r);
	dt = clock_ms() - t0;
	CHECK_INT(r.rc, -ETIMEDOUT);
	CHECK(dt >= 400 && dt < 3000);
	CHECK_STR(r.out, "started\n");
	CHECK(strstr(r.log, "control {\"command\":\"signal\",\"signal\":9}") !=
	    NULL);
	CHECK(strstr(r.e.msg, "killed") != NULL);
}

TEST(exec_capture_refuses_masked_server_frames)
{
	static struct cap_result r;

	capture(FAKE_MASKED, "", 0, 5000, &r);
	CHECK_INT(r.rc, -EBOX_PROTO);
	CHECK(strstr(r.e.msg, "exec socket 1: websocket: masked frame from "
	    "the server") != NULL);
}

TEST(exec_capture_refuses_bad_accept)
{
	static struct cap_result r;

	capture(FAKE_BADACCEPT, "", 0, 5000, &r);
	CHECK_INT(r.rc, -EBOX_PROTO);
	CHECK(strstr(r.e.msg, "Sec-WebSocket-Accept") != NULL);
}

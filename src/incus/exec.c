/*
 * exec.c - exec sessions over Incus's websockets (see exec.h).
 *
 * The loop, once per turn: drain what waits for the local outputs, parse
 * what the daemon sent (a stream is parsed only while its local output has
 * nothing pending: that is the back-pressure), read local stdin into the
 * stdin socket's queue (only while the queue has room), act on signals,
 * flush the sockets without blocking; then poll() for whatever is stuck.
 * Memory is fixed: per socket one 64 KiB read buffer (output slices are
 * written to the local descriptor straight out of it) and one 64 KiB write
 * queue.
 */
#include "incus/exec.h"
#include "util/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "incus/json.h"
#include "incus/ws.h"
#include "util/tty.h"

enum { CH_CTL, CH_0, CH_1, CH_2, CH_MAX };

static const char *const ch_key[CH_MAX] = { "control", "0", "1", "2" };

/* After the command exits, how long output may stay silent before we stop. */
#define EXEC_GRACE_MS	10000
/*
 * A third SIGINT/SIGTERM within two seconds escalates to SIGKILL: a remote
 * program that ignores them can still be stopped without killing box (and
 * leaving the command behind).
 */
#define EXEC_KILL_AFTER	3
#define EXEC_KILL_WINDOW_MS 2000
/*
 * The daemon pings every exec socket every 10 s, so a session in which no
 * byte at all arrives for this long is talking to a daemon that is gone.
 */
#define EXEC_LIVE_MS	45000

struct chan {
	int used;
	struct transport *t;
	struct http_conn *h;	/* only during the handshake */
	struct ws_conn *w;
	int open;
	int ready;		/* poll() says readable */
	int eof;		/* the connection ended (or failed) */
	int wdead;		/* writing failed: the daemon hung up */
	int barrier;		/* the daemon's end-of-stream arrived */
	int sent_barrier;	/* ours went into the queue */
};

enum { SINK_NONE, SINK_MEM, SINK_FD };

struct sink {
	int kind;
	int fd;
	int own;		/* fd is our reopened copy: close it */
	int sock;		/* write with send(MSG_DONTWAIT) */
	struct exec_buf *mem;
	const unsigned char *pend;	/* into a websocket's read buffer */
	size_t pend_len;
	int broken;		/* errno of the write that failed */
};

struct source {
	int fd;			/* -1: from mem */
	const unsigned char *mem;
	size_t len, pos;
	int ready;
	int done;		/* EOF seen and passed on */
};

struct sess {
	struct incus *c;
	const struct exec_req *req;
	int interactive;
	char op[128];
	struct chan ch[CH_MAX];
	struct sink out, err;
	struct source in;
	int tty, sig_ready;
	struct tty_sig *sig;
	long long deadline;	/* 0: none */
	long long last_io;
	long long last_rx;	/* any byte from any socket, pings included */
	int ints;		/* SIGINT/SIGTERM in the current window */
	long long ints_since;
	int sent_pipe;
	int wait_sent;		/* a /wait is in flight on the shared connection */
};

/* --- the request and control messages ------------------------------------ */

int
exec_request_json(const struct exec_req *req, char **json, size_t *len)
{
	struct json_w w;
	char key[256];
	size_t i;

	json_w_init(&w, 4u << 20);
	json_w_obj(&w);
	json_w_key(&w, "command");
	json_w_arr(&w);
	for (i = 0; req->argv[i] != NULL; i++)
		json_w_str(&w, req->argv[i]);
	json_w_end(&w, ']');
	json_w_key(&w, "environment");
	json_w_obj(&w);
	for (i = 0; req->env != NULL && req->env[i] != NULL; i++) {
		const char *eq = strchr(req->env[i], '=');
		size_t kn = eq ? (size_t)(eq - req->env[i]) : 0;

		if (kn == 0 || kn >= sizeof(key)) {
			json_w_free(&w);
			return -EINVAL;
		}
		memcpy(key, req->env[i], kn);
		key[kn] = '\0';
		json_w_key(&w, key);
		json_w_str(&w, eq + 1);
	}
	json_w_end(&w, '}');
	json_w_key(&w, "interactive");
	json_w_bool(&w, req->interactive);
	json_w_key(&w, "wait-for-websocket");
	json_w_bool(&w, 1);
	if (req->interactive && req->width > 0 && req->height > 0) {
		json_w_key(&w, "width");
		json_w_int(&w, req->width);
		json_w_key(&w, "height");
		json_w_int(&w, req->height);
	}
	if (req->uid >= 0) {
		json_w_key(&w, "user");
		json_w_int(&w, req->uid);
	}
	if (req->gid >= 0) {
		json_w_key(&w, "group");
		json_w_int(&w, req->gid);
	}
	if (req->cwd != NULL) {
		json_w_key(&w, "cwd");
		json_w_str(&w, req->cwd);
	}
	json_w_end(&w, '}');
	return json_w_finish(&w, json, len);
}

int
exec_resize_json(char *buf, size_t cap, int cols, int rows)
{
	int n = snprintf(buf, cap, "{\"command\":\"window-resize\",\"args\":"
	    "{\"width\":\"%d\",\"height\":\"%d\"}}", cols, rows);

	return n > 0 && (size_t)n < cap ? n : -ENOSPC;
}

int
exec_signal_json(char *buf, size_t cap, int sig)
{
	int n = snprintf(buf, cap, "{\"command\":\"signal\",\"signal\":%d}",
	    sig);

	return n > 0 && (size_t)n < cap ? n : -ENOSPC;
}

/* --- local outputs ------------------------------------------------------- */

/*
 * Writes to our stdout must not block the loop either (a consumer that
 * feeds our stdin while we wait on its pipe would deadlock us).  O_NONBLOCK
 * on the inherited descriptor would leak into the shell and every other
 * holder of the same open file, so pipes and terminals are reopened through
 * /proc for a private non-blocking description; sockets take MSG_DONTWAIT;
 * regular files never block for long and keep the shared offset (>>).
 */
static void
sink_fd(struct sink *k, int fd)
{
	struct stat st;
	char path[32];
	int nfd;

	memset(k, 0, sizeof(*k));
	k->kind = SINK_FD;
	k->fd = fd;
	if (fd < 0 || fstat(fd, &st) < 0) {
		k->kind = SINK_NONE;
		return;
	}
	if (S_ISSOCK(st.st_mode)) {
		k->sock = 1;
		return;
	}
	if (!S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode))
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	nfd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (nfd >= 0) {
		k->fd = nfd;
		k->own = 1;
	}
}

static void
sink_mem(struct sink *k, struct exec_buf *b)
{
	memset(k, 0, sizeof(*k));
	k->kind = b != NULL ? SINK_MEM : SINK_NONE;
	k->mem = b;
	if (b != NULL) {
		b->len = 0;
		b->truncated = 0;
		if (b->cap > 0)
			b->p[0] = '\0';
	}
}

static void
sink_close(struct sink *k)
{
	if (k->own)
		close(k->fd);
	k->own = 0;
}

/* Bytes written (0 when the descriptor is full), or -errno. */
static ssize_t
sink_write(struct sink *k, const unsigned char *p, size_t n)
{
	ssize_t r;

	for (;;) {
		if (k->sock)
			r = send(k->fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
		else
			r = write(k->fd, p, n);
		if (r >= 0)
			return r;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		if (k->sock && errno == ENOTSOCK) {
			k->sock = 0;
			continue;
		}
		return -errno;
	}
}

static void queue_signal(struct sess *, int);

static void
sink_failed(struct sess *s, struct sink *k, int err)
{
	k->broken = err;
	k->pend_len = 0;
	/*
	 * Our reader went away (`box exec b -- yes | head -1`): do to the
	 * remote writer what a local pipe would do to a local one.
	 */
	if (!s->interactive && !s->sent_pipe) {
		s->sent_pipe = 1;
		queue_signal(s, SIGPIPE);
	}
}

static void
sink_put(struct sess *s, struct sink *k, const unsigned char *p, size_t n)
{
	ssize_t w;

	if (k->kind == SINK_MEM) {
		size_t room = k->mem->cap > 0 ? k->mem->cap - 1 - k->mem->len : 0;

		if (n > room) {
			k->mem->truncated = 1;
			n = room;
		}
		memcpy(k->mem->p + k->mem->len, p, n);
		k->mem->len += n;
		if (k->mem->cap > 0)
			k->mem->p[k->mem->len] = '\0';
		return;
	}
	if (k->kind != SINK_FD || k->broken)
		return;
	w = sink_write(k, p, n);
	if (w < 0) {
		sink_failed(s, k, (int)-w);
		return;
	}
	if ((size_t)w < n) {
		k->pend = p + w;
		k->pend_len = n - (size_t)w;
	}
}

static void
sink_flush(struct sess *s, struct sink *k)
{
	ssize_t w;

	if (k->pend_len == 0)
		return;
	w = sink_write(k, k->pend, k->pend_len);
	if (w < 0) {
		sink_failed(s, k, (int)-w);
		return;
	}
	k->pend += w;
	k->pend_len -= (size_t)w;
}

/* --- control ------------------------------------------------------------- */

static void
queue_control(struct sess *s, const char *json, int n)
{
	struct chan *ch = &s->ch[CH_CTL];

	if (n > 0 && ch->open && !ch->eof)
		ws_queue(ch->w, WS_OP_TEXT, json, (size_t)n);
}

static void
queue_signal(struct sess *s, int sig)
{
	char buf[64];

	queue_control(s, buf, exec_signal_json(buf, sizeof(buf), sig));
}

static void
queue_resize(struct sess *s)
{
	char buf[128];
	int cols, rows;

	if (!s->interactive || tty_size(s->tty, &cols, &rows) < 0)
		return;
	queue_control(s, buf, exec_resize_json(buf, sizeof(buf), cols, rows));
}

static void
handle_signals(struct sess *s)
{
	int sig;

	if (!s->sig_ready || s->sig == NULL)
		return;
	s->sig_ready = 0;
	while ((sig = tty_sig_next(s->sig)) > 0) {
		if (sig == SIGWINCH) {
			queue_resize(s);
		} else if (sig == SIGTSTP) {
			tty_suspend();
			queue_resize(s);
		} else if (sig == SIGINT || sig == SIGTERM) {
			if (s->ints == 0 ||
			    clock_ms() - s->ints_since > EXEC_KILL_WINDOW_MS) {
				s->ints = 0;
				s->ints_since = clock_ms();
			}
			queue_signal(s, ++s->ints >= EXEC_KILL_AFTER ? SIGKILL :
			    sig);
		} else {
			queue_signal(s, sig);
		}
	}
}

/* --- the streams ---------------------------------------------------------- */

static int
chan_done(const struct chan *ch)
{
	return !ch->used || ch->eof || ch->barrier;
}

/* The daemon ended a stream. */
static void
on_barrier(struct sess *s, struct chan *ch)
{
	ch->barrier = 1;
	s->last_io = clock_ms();
	/* a terminal session ends only once we answer the daemon's end */
	if (s->interactive && ch == &s->ch[CH_0] && !ch->sent_barrier) {
		ws_queue(ch->w, WS_OP_TEXT, "", 0);
		ch->sent_barrier = 1;
		s->in.done = 1;
	}
}

/* Parse what a socket sent into its local output (k may be NULL). */
static int
pump_ws(struct sess *s, struct chan *ch, struct sink *k, struct box_err *e)
{
	struct ws_event ev;
	int filled = 0, rc;
	ssize_t n;

	if (!ch->used || ch->eof)
		return 0;
	for (;;) {
		if (k != NULL && k->pend_len > 0)
			return 0;	/* back-pressure: leave it in the socket */
		rc = ws_next(ch->w, &ev, 0, e);
		if (rc < 0) {
			err_context(e, "exec socket %s", ch_key[ch - s->ch]);
			return rc;
		}
		if (rc == 0) {
			if (filled || (!ch->ready && !ws_readable(ch->w)))
				return 0;
			ch->ready = 0;
			filled = 1;
			n = ws_fill(ch->w, NULL);
			if (n <= 0) {	/* EOF, or reset by a daemon done with us */
				ch->eof = 1;
				return 0;
			}
			s->last_rx = clock_ms();
			continue;
		}
		if (ev.type == WS_EV_CLOSE) {
			if (!ch->barrier)
				on_barrier(s, ch);
		} else if (ev.type == WS_EV_DATA) {
			if (ev.opcode == WS_OP_TEXT || ch->barrier) {
				if (!ch->barrier)
					on_barrier(s, ch);
			} else if (k != NULL && ev.len > 0) {
				sink_put(s, k, ev.data, ev.len);
				s->last_io = clock_ms();
			}
		}
	}
}

/* Local stdin into the stdin (or terminal) socket. */
static void
pump_stdin(struct sess *s)
{
	struct chan *ch = &s->ch[CH_0];
	unsigned char *p;
	size_t cap;
	ssize_t n;

	if (s->in.done || !ch->used || ch->eof || ch->wdead ||
	    ch->sent_barrier)
		return;
	if (s->in.fd >= 0 && !s->in.ready)
		return;
	p = ws_reserve(ch->w, &cap);
	if (p == NULL)
		return;
	if (s->in.fd >= 0) {
		s->in.ready = 0;
		n = read(s->in.fd, p, cap);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			return;
	} else {
		n = (ssize_t)(s->in.len - s->in.pos < cap ? s->in.len - s->in.pos :
		    cap);
		if (n > 0)
			memcpy(p, s->in.mem + s->in.pos, (size_t)n);
		s->in.pos += (size_t)n;
	}
	if (n > 0) {
		ws_commit(ch->w, WS_OP_BINARY, (size_t)n);
		s->last_io = clock_ms();
		return;
	}
	/* EOF (or a read error, which ends our input just the same) */
	s->in.done = 1;
	if (s->interactive) {
		/* a terminal has no EOF but its EOF character */
		ws_queue(ch->w, WS_OP_BINARY, "\x04", 1);
	} else {
		ws_queue(ch->w, WS_OP_TEXT, "", 0);
		ch->sent_barrier = 1;
	}
}

static void
flush_sockets(struct sess *s)
{
	int i;

	for (i = 0; i < CH_MAX; i++) {
		struct chan *ch = &s->ch[i];

		/*
		 * A failed write (the daemon hung up) ends only our sending:
		 * what it sent before, a barrier included, is still to read.
		 */
		if (ch->used && !ch->eof && !ch->wdead &&
		    ws_pending(ch->w) > 0 && ws_flush(ch->w) < 0)
			ch->wdead = 1;
	}
}

static int
exec_via_user_proxy(const struct incus *c)
{
	const char *base = strrchr(c->socket_path, '/');

	base = base != NULL ? base + 1 : c->socket_path;
	return strcmp(base, "unix.socket.user") == 0;
}

static int
finished(struct sess *s)
{
	long long t = clock_ms();
	int data_done, ctl_done = chan_done(&s->ch[CH_CTL]);

	if (s->out.pend_len > 0 || s->err.pend_len > 0)
		return 0;
	if (s->interactive)
		data_done = chan_done(&s->ch[CH_0]) && (s->ch[CH_0].eof ||
		    s->ch[CH_0].wdead || ws_pending(s->ch[CH_0].w) == 0);
	else
		data_done = chan_done(&s->ch[CH_1]) && chan_done(&s->ch[CH_2]);
	if (ctl_done && data_done)
		return 1;
	/*
	 * incus-user proxies each connection as a byte stream and never
	 * passes on the daemon's close of the control socket (it waits for
	 * ours): there the ended outputs are the end, and the exit status
	 * comes from the operation, as it does for the incus client.
	 */
	if (data_done && exec_via_user_proxy(s->c))
		return 1;
	/*
	 * The command is gone but an output never ended (a daemon that lost
	 * track of it): stop after a silence rather than hang.
	 */
	return ctl_done && t - s->last_io > EXEC_GRACE_MS;
}

/* One turn of non-blocking work. */
static int
step(struct sess *s, struct box_err *e)
{
	int rc;

	sink_flush(s, &s->out);
	sink_flush(s, &s->err);
	if (s->interactive) {
		rc = pump_ws(s, &s->ch[CH_0], &s->out, e);
	} else {
		rc = pump_ws(s, &s->ch[CH_1], &s->out, e);
		if (rc == 0)
			rc = pump_ws(s, &s->ch[CH_2], &s->err, e);
		if (rc == 0)
			rc = pump_ws(s, &s->ch[CH_0], NULL, e);
	}
	if (rc == 0)
		rc = pump_ws(s, &s->ch[CH_CTL], NULL, e);
	if (rc < 0)
		return rc;
	pump_stdin(s);
	handle_signals(s);
	flush_sockets(s);
	return 0;
}

struct pollset {
	struct pollfd p[CH_MAX + 4];
	int n;
};

static int
add(struct pollset *ps, int fd, short ev)
{
	if (fd < 0 || ev == 0)
		return -1;
	ps->p[ps->n].fd = fd;
	ps->p[ps->n].events = ev;
	ps->p[ps->n].revents = 0;
	return ps->n++;
}

static int
run_loop(struct sess *s, struct box_err *e)
{
	int slot[CH_MAX], in_slot, out_slot, err_slot, sig_slot, i, rc, tmo;
	struct pollset ps;
	long long t;

	s->last_io = s->last_rx = clock_ms();
	for (;;) {
		rc = step(s, e);
		if (rc < 0)
			return rc;
		if (finished(s))
			return 0;
		/* Held back by our own output (back-pressure): not the daemon. */
		if (s->out.pend_len > 0 || s->err.pend_len > 0)
			s->last_rx = clock_ms();
		if (clock_ms() - s->last_rx > EXEC_LIVE_MS)
			return err_set(e, -ETIMEDOUT, "exec: the daemon sent "
			    "nothing for %d s, not even its keepalive pings",
			    EXEC_LIVE_MS / 1000);
		ps.n = 0;
		tmo = -1;
		for (i = 0; i < CH_MAX; i++) {
			struct chan *ch = &s->ch[i];
			struct sink *k = i == CH_1 || (i == CH_0 && s->interactive) ?
			    &s->out : i == CH_2 ? &s->err : NULL;
			short ev = 0;

			slot[i] = -1;
			if (!ch->used || ch->eof)
				continue;
			if (k == NULL || k->pend_len == 0) {
				ev |= POLLIN;
				if (ws_readable(ch->w))
					tmo = 0;
			}
			if (ws_pending(ch->w) > 0 && !ch->wdead)
				ev |= POLLOUT;
			slot[i] = add(&ps, ws_fd(ch->w), ev);
		}
		in_slot = -1;
		if (!s->in.done && s->ch[CH_0].used && !s->ch[CH_0].eof &&
		    !s->ch[CH_0].wdead && !s->ch[CH_0].sent_barrier &&
		    ws_room(s->ch[CH_0].w) > 0) {
			if (s->in.fd >= 0)
				in_slot = add(&ps, s->in.fd, POLLIN);
			else
				tmo = 0;	/* stdin from memory: never waits */
		}
		out_slot = s->out.pend_len > 0 ? add(&ps, s->out.fd, POLLOUT) : -1;
		err_slot = s->err.pend_len > 0 ? add(&ps, s->err.fd, POLLOUT) : -1;
		sig_slot = add(&ps, s->sig != NULL ? s->sig->fd : -1, POLLIN);
		t = clock_ms();
		if (s->deadline != 0) {
			long long left = s->deadline - t;

			if (left <= 0)
				return -ETIMEDOUT;
			if (tmo < 0 || left < tmo)
				tmo = (int)(left > 86400000 ? 86400000 : left);
		}
		if (tmo != 0) {		/* wake up to check liveness */
			long long left = s->last_rx + EXEC_LIVE_MS - t + 1;

			if (left < 1)
				left = 1;
			if (tmo < 0 || left < tmo)
				tmo = (int)left;
		}
		if (chan_done(&s->ch[CH_CTL]) && tmo != 0) {
			long long left = s->last_io + EXEC_GRACE_MS - t + 1;

			if (left < 1)
				left = 1;
			if (tmo < 0 || left < tmo)
				tmo = (int)left;
		}
		rc = poll(ps.p, (nfds_t)ps.n, tmo);
		if (rc < 0 && errno != EINTR)
			return err_set(e, -errno, "exec: poll: %s",
			    strerror(errno));
		if (rc <= 0)
			continue;
		for (i = 0; i < CH_MAX; i++)
			if (slot[i] >= 0 && ps.p[slot[i]].revents &
			    (POLLIN | POLLHUP | POLLERR | POLLNVAL))
				s->ch[i].ready = 1;
		if (in_slot >= 0 && ps.p[in_slot].revents)
			s->in.ready = 1;
		(void)out_slot;
		(void)err_slot;
		if (sig_slot >= 0 && ps.p[sig_slot].revents)
			s->sig_ready = 1;
	}
}

/* --- setting up and tearing down ----------------------------------------- */

static int
post_exec(struct sess *s, const char *instance, struct incus_reply *r,
    struct box_err *e)
{
	char name[200], path[300], *body = NULL;
	size_t blen;
	int rc;

	if (url_escape(instance, name, sizeof(name)) < 0)
		return err_usage(e, "instance name too long");
	snprintf(path, sizeof(path), "/1.0/instances/%s/exec", name);
	rc = exec_request_json(s->req, &body, &blen);
	if (rc < 0)
		return err_set(e, rc, "exec: the command cannot be sent (%s)",
		    rc == -EINVAL ? "an environment entry is not NAME=value, "
		    "or an argument is not UTF-8" : err_str(rc));
	rc = incus_call(s->c, "POST", path, body, r, e);
	free(body);
	if (rc < 0) {
		incus_reply_free(r);
		return rc;
	}
	if (r->type != INCUS_ASYNC) {
		incus_reply_free(r);
		return err_set(e, -EBOX_PROTO, "exec: the daemon did not start "
		    "an operation");
	}
	snprintf(s->op, sizeof(s->op), "%s", r->operation);
	return 0;
}

static int
open_chan(struct sess *s, int i, const char *secret, struct box_err *e)
{
	struct chan *ch = &s->ch[i];
	char target[512], raw[400], esc[200];
	int rc;

	if (url_escape(secret, esc, sizeof(esc)) < 0)
		return err_set(e, -EBOX_PROTO, "exec: odd websocket secret");
	snprintf(raw, sizeof(raw), "%s/websocket?secret=%s", s->op, esc);
	if (incus_path(s->c, raw, target, sizeof(target)) < 0)
		return err_set(e, -ENAMETOOLONG, "exec: websocket path too "
		    "long");
	ch->h = malloc(sizeof(*ch->h));
	ch->w = malloc(sizeof(*ch->w));
	if (ch->h == NULL || ch->w == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	rc = incus_dial(s->c, &ch->t, e);
	if (rc < 0)
		return rc;
	ch->open = 1;
	http_conn_init(ch->h, ch->t);
	ws_conn_init(ch->w, ch->t, transport_fd(ch->t));
	return ws_open(ch->w, ch->h, target, e);
}

static int
connect_all(struct sess *s, struct incus_reply *r, struct box_err *e)
{
	char secret[200];
	int fds = json_path(&r->doc, r->metadata, "metadata.fds");
	int i, rc;

	if (json_type(&r->doc, fds) != JSON_OBJECT)
		return err_set(e, -EBOX_PROTO, "exec: the operation names no "
		    "websockets");
	s->ch[CH_CTL].used = s->ch[CH_0].used = 1;
	s->ch[CH_1].used = s->ch[CH_2].used = !s->interactive;
	/* Control first; every request goes out before any answer is read. */
	for (i = 0; i < CH_MAX; i++) {
		if (!s->ch[i].used)
			continue;
		if (json_gets(&r->doc, fds, ch_key[i], secret, sizeof(secret),
		    NULL) == NULL)
			return err_set(e, -EBOX_PROTO, "exec: no secret for "
			    "websocket %s", ch_key[i]);
		rc = open_chan(s, i, secret, e);
		if (rc < 0)
			return rc;
	}
	for (i = 0; i < CH_MAX; i++) {
		struct chan *ch = &s->ch[i];

		if (!ch->used)
			continue;
		ch->h->deadline = clock_ms() + s->c->timeout_ms;
		if (s->deadline != 0 && ch->h->deadline > s->deadline)
			ch->h->deadline = s->deadline;
		rc = ws_accept(ch->w, ch->h, e);
		free(ch->h);
		ch->h = NULL;
		if (rc < 0) {
			err_context(e, "exec socket %s", ch_key[i]);
			return rc;
		}
		/*
		 * incusd SIGKILLs the command when anything arrives on the
		 * stdout socket before it has registered the control socket,
		 * and it pings every socket the moment it is upgraded: a pong
		 * to that first ping could race the registration.  Nothing
		 * checks pongs on exec sockets; the later pings (every 10 s)
		 * are answered.
		 */
		if (i == CH_1 || i == CH_2)
			ch->w->pong_skip = 1;
	}
	return 0;
}

static void
close_all(struct sess *s)
{
	int i;

	for (i = 0; i < CH_MAX; i++) {
		struct chan *ch = &s->ch[i];

		if (ch->open)
			transport_close(ch->t);
		ch->t = NULL;
		ch->open = 0;
		free(ch->h);
		free(ch->w);
		ch->h = NULL;
		ch->w = NULL;
	}
	sink_close(&s->out);
	sink_close(&s->err);
}

/* On timeout: SIGKILL through control, given a moment to leave. */
static void
kill_remote(struct sess *s)
{
	struct chan *ch = &s->ch[CH_CTL];
	struct pollfd p;
	char buf[64];
	int n = exec_signal_json(buf, sizeof(buf), SIGKILL);

	if (!ch->used || ch->eof || ch->w == NULL)
		return;
	ws_queue(ch->w, WS_OP_TEXT, buf, (size_t)n);
	ws_flush(ch->w);
	if (ws_pending(ch->w) > 0) {
		p.fd = ws_fd(ch->w);
		p.events = POLLOUT;
		if (poll(&p, 1, 200) > 0)
			ws_flush(ch->w);
	}
	/* closing control kills the command anyway; this was the polite way */
}

static int
op_return(const struct json_doc *d, int op, int *code)
{
	long long v;
	int ret = json_path(d, op, "metadata.return");

	if (ret < 0 || json_int(d, ret, &v) < 0)
		return -1;
	*code = (int)v;
	return 0;
}

/*
 * The /wait goes out as soon as the sockets are up, on the shared
 * connection, which idles during the session anyway; its answer is read
 * once the session ends.  That saves a round trip on every exec.  Anything
 * unexpected falls back to an ordinary wait on a fresh connection.
 */
static void
wait_send(struct sess *s)
{
	struct incus *c = s->c;
	char path[300], target[400];

	if (!c->connected || c->conn == NULL || !c->conn->reusable ||
	    c->conn->broken)
		return;
	snprintf(path, sizeof(path), "%s/wait", s->op);
	if (incus_path(c, path, target, sizeof(target)) < 0)
		return;
	s->wait_sent = http_send(c->conn, "GET", target, "", NULL, NULL, 0,
	    NULL) == 0;
}

static int
wait_read(struct sess *s, struct exec_status *st)
{
	struct http_conn *h = s->c->conn;
	struct json_doc d = { 0 };
	struct http_resp r;
	int rc = -1, op;

	s->wait_sent = 0;
	h->deadline = clock_ms() + s->c->timeout_ms;
	if (http_read_head(h, &r, NULL) == 0 && r.status == 200 &&
	    http_read_body(h, &r, 1u << 20, NULL) == 0) {
		if (json_parse(&d, r.body, r.body_len, NULL) == 0 &&
		    json_streq(&d, json_get(&d, 0, "type"), "sync")) {
			long long sc = 0;

			op = json_get(&d, 0, "metadata");
			if (json_int(&d, json_get(&d, op, "status_code"), &sc) ==
			    0 && sc == 200 && op_return(&d, op, &st->code) == 0)
				rc = 0;
		}
		json_free(&d);
		http_resp_free(&r);
	}
	if (rc < 0)
		h->broken = 1;	/* whatever is left of that answer: drop it */
	return rc;
}

/* The exit status from the finished operation. */
static int
fetch_status(struct sess *s, int timeout_s, struct exec_status *st,
    struct box_err *e)
{
	struct incus_reply r;
	struct box_err we, ge;
	int rc;

	err_clear(&we);
	rc = incus_wait(s->c, s->op, timeout_s, &r, &we);
	if (rc == 0)
		rc = op_return(&r.doc, r.metadata, &st->code) < 0 ? 1 : 0;
	incus_reply_free(&r);	/* a failed call may leave a reply too */
	if (rc == 1)
		return err_set(e, -EBOX_PROTO, "exec: the finished operation "
		    "carries no exit status");
	if (rc == 0)
		return 0;
	/*
	 * A failed operation ("Command not found") is reported by /wait
	 * without the operation object; the object itself, fetched before
	 * the daemon forgets it (5 s), still has the status (127).
	 */
	if (rc == -EBOX_API || rc == -ENOENT) {
		err_clear(&ge);
		st->code = -1;
		if (incus_call(s->c, "GET", s->op, NULL, &r, &ge) == 0) {
			json_gets(&r.doc, r.metadata, "err", st->err,
			    sizeof(st->err), "");
			op_return(&r.doc, r.metadata, &st->code);
		}
		incus_reply_free(&r);
		if (st->code >= 0 || st->err[0] != '\0') {
			if (st->code < 0)
				st->code = 1;
			return 0;
		}
	}
	if (e != NULL && e->code == 0)
		*e = we;
	err_context(e, "exec: waiting for the exit status");
	return rc;
}

static int
session(struct sess *s, const char *instance, struct exec_status *st,
    struct box_err *e)
{
	struct incus_reply r;
	int rc, left_s;

	memset(st, 0, sizeof(*st));
	st->code = -1;
	rc = post_exec(s, instance, &r, e);
	if (rc < 0)
		return rc;
	rc = connect_all(s, &r, e);
	incus_reply_free(&r);
	if (rc == 0) {
		if (s->deadline == 0)
			wait_send(s);
		queue_resize(s);	/* the size may have changed meanwhile */
		rc = run_loop(s, e);
	}
	if (rc < 0 && s->wait_sent)
		s->c->conn->broken = 1;	/* its answer will never be read */
	if (rc == -ETIMEDOUT) {
		kill_remote(s);
		close_all(s);
		return err_set(e, -ETIMEDOUT, "exec: the command did not "
		    "finish in time and was killed");
	}
	close_all(s);
	if (rc < 0)
		return rc;
	if (s->wait_sent && wait_read(s, st) == 0)
		return 0;
	left_s = 30;
	if (s->deadline != 0) {
		long long left = s->deadline - clock_ms();

		if (left <= 0)
			return err_set(e, -ETIMEDOUT, "exec: no exit status "
			    "in time");
		left_s = (int)((left + 999) / 1000);
	}
	return fetch_status(s, left_s, st, e);
}

static void
sess_init(struct sess *s, struct incus *c, const struct exec_req *req)
{
	memset(s, 0, sizeof(*s));
	s->c = c;
	s->req = req;
	s->interactive = req->interactive;
	s->tty = -1;
	s->in.fd = -1;
}

int
exec_run(struct incus *c, const char *instance, const struct exec_req *req,
    const struct exec_stdio *io, struct exec_status *st, struct box_err *e)
{
	struct sess *s = malloc(sizeof(*s));
	int rc;

	if (s == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	sess_init(s, c, req);
	s->in.fd = io->in;
	s->tty = io->tty;
	s->sig = io->sig;
	if (io->timeout_ms > 0)
		s->deadline = clock_ms() + io->timeout_ms;
	fflush(stdout);
	fflush(stderr);
	sink_fd(&s->out, io->out);
	sink_fd(&s->err, io->err);
	rc = session(s, instance, st, e);
	free(s);
	return rc;
}

/*
 * The daemon calls are bounded by the connection's timeout, not ours: for
 * the duration, shrink it to what is left of ours.
 */
int
exec_capture(struct incus *c, const char *instance, const struct exec_req *req,
    const void *in, size_t in_len, struct exec_buf *out, struct exec_buf *err,
    int timeout_ms, struct exec_status *st, struct box_err *e)
{
	struct sess *s = malloc(sizeof(*s));
	int rc, saved = c->timeout_ms;

	if (s == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	sess_init(s, c, req);
	s->in.mem = in;
	s->in.len = in != NULL ? in_len : 0;
	sink_mem(&s->out, out);
	sink_mem(&s->err, err);
	if (timeout_ms > 0) {
		s->deadline = clock_ms() + timeout_ms;
		if (timeout_ms / 4 < c->timeout_ms)
			c->timeout_ms = timeout_ms / 4 > 0 ? timeout_ms / 4 : 1;
		if (c->connected)
			c->t->timeout_ms = c->timeout_ms;
	}
	rc = session(s, instance, st, e);
	c->timeout_ms = saved;
	if (c->connected)
		c->t->timeout_ms = saved;
	free(s);
	return rc;
}

/*
 * exec.h - running a command in an instance over Incus's exec websockets.
 *
 * The protocol (checked against incusd's instance_exec.go and the incus
 * client, and live; see spec §4):
 *
 *   POST /1.0/instances/<n>/exec {"command":[...],"wait-for-websocket":true,
 *        "interactive":b, "environment":{...}, "width","height", "user",
 *        "group","cwd"}  ->  202, a websocket operation whose metadata.fds
 *        holds one secret per socket: "0","1","2","control" (a terminal:
 *        "0" and "control").
 *   Each socket is a new connection upgraded at
 *        <operation>/websocket?secret=<s>, all of them within 5 s.
 *   Data travels in BINARY messages; any TEXT message on a data socket (in
 *        practice an empty one) is that stream's end: we send one on "0" at
 *        stdin EOF, the daemon sends one on "1"/"2" (or "0" for a terminal)
 *        at output EOF.  A terminal session ends only once we answer the
 *        daemon's end with our own.
 *   Control takes TEXT JSON:
 *        {"command":"window-resize","args":{"width":"80","height":"24"}}
 *        (strings; terminal sessions only) and
 *        {"command":"signal","signal":N}.  Closing it kills the command.
 *   The daemon closes the control socket when the command exits, and the
 *        rest once the output is drained; the exit status is the finished
 *        operation's metadata.return (128+N for signal N).
 *
 * One poll() loop moves the bytes.  Every buffer is bounded and a side is
 * read only while the other side's buffer has room, so a slow reader slows
 * the writer down instead of growing memory, and writes to the daemon never
 * block (a daemon stuck writing our stdout while we wait to write its
 * stdin would otherwise deadlock us both).
 */
#ifndef BOX_EXEC_H
#define BOX_EXEC_H

#include <stddef.h>

#include "incus/api.h"
#include "util/err.h"

struct tty_sig;

struct exec_req {
	const char *const *argv;	/* NULL-terminated, argv[0] required */
	const char *const *env;		/* "NAME=value"..., NULL-terminated, or NULL */
	const char *cwd;		/* NULL: the daemon's default */
	int uid, gid;			/* -1: the daemon's default (root) */
	int interactive;		/* one terminal instead of three pipes */
	int width, height;		/* the terminal's size; 0: unset */
};

/* The local end of exec_run(). */
struct exec_stdio {
	int in, out, err;	/* descriptors; in == -1: empty stdin */
	int tty;		/* interactive: the terminal to size, or -1 */
	struct tty_sig *sig;	/* signals to forward (util/tty.h), or NULL */
	int timeout_ms;		/* 0: none */
};

struct exec_status {
	int code;		/* the exit status; 128+N for signal N */
	char err[256];		/* the operation's error ("Command not found"),
				   or "" when it succeeded */
};

/*
 * Run req in instance with the local descriptors.  0 when the command ran
 * (or the daemon reported why it could not: st->err) and st->code is its
 * status; < 0 when box could not run the session (e says why).  A timeout
 * kills the command (SIGKILL over control) and fails with -ETIMEDOUT.
 */
int exec_run(struct incus *c, const char *instance, const struct exec_req *req,
    const struct exec_stdio *io, struct exec_status *st, struct box_err *e);

/* A caller-owned output buffer: at most cap - 1 bytes, NUL-terminated. */
struct exec_buf {
	char *p;
	size_t cap, len;
	int truncated;		/* more arrived than fitted (and was dropped) */
};

/*
 * The bounded internal exec: stdin is in[0..in_len) (in may be NULL), the
 * output lands in out and err (either may be NULL: discarded), and the
 * whole thing — POST, connections, the command, the exit status — takes at
 * most timeout_ms.  Output beyond a buffer is drained and dropped, so a
 * chatty command cannot stall.  On timeout the command is SIGKILLed, the
 * sockets closed, and -ETIMEDOUT returned.
 */
int exec_capture(struct incus *c, const char *instance,
    const struct exec_req *req, const void *in, size_t in_len,
    struct exec_buf *out, struct exec_buf *err, int timeout_ms,
    struct exec_status *st, struct box_err *e);

/* The request body; *json is malloc'd (tests look at it). */
int exec_request_json(const struct exec_req *req, char **json, size_t *len);

/* The control messages, into buf; the length or -ENOSPC. */
int exec_resize_json(char *buf, size_t cap, int cols, int rows);
int exec_signal_json(char *buf, size_t cap, int sig);

#endif

/* guest.c - the guest API, typed (see guest.h). */
#include "incus/guest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "incus/api.h"
#include "incus/http.h"
#include "incus/json.h"
#include "util/clock.h"

struct incus_guest {
	char sock[108];
	const struct dialer *dialer;
	struct transport *t;
	struct http_conn c;	/* its read buffer is big: g is on the heap */
};

int
incus_guest_open(struct incus_guest **g, const char *sock,
    const struct dialer *d, struct box_err *e)
{
	*g = calloc(1, sizeof(**g));
	if (*g == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	if (strlen(sock) >= sizeof((*g)->sock)) {
		free(*g);
		*g = NULL;
		return err_set(e, -ENAMETOOLONG, "socket path too long: %s",
		    sock);
	}
	memcpy((*g)->sock, sock, strlen(sock) + 1);
	(*g)->dialer = d != NULL ? d : &unix_dialer;
	return 0;
}

static void
hang_up(struct incus_guest *g)
{
	if (g->t != NULL)
		transport_close(g->t);
	g->t = NULL;
}

void
incus_guest_close(struct incus_guest *g)
{
	if (g == NULL)
		return;
	hang_up(g);
	free(g);
}

static int
get_once(struct incus_guest *g, const char *path, int *status, char **body,
    size_t *len, struct box_err *e)
{
	struct http_resp r;
	int rc;

	if (g->t == NULL) {
		rc = dialer_dial(g->dialer, g->sock, INCUS_GUEST_TIMEOUT_MS,
		    &g->t, e);
		if (rc < 0)
			return rc;
		http_conn_init(&g->c, g->t);
	}
	g->c.deadline = clock_ms() + INCUS_GUEST_TIMEOUT_MS;
	memset(&r, 0, sizeof(r));
	rc = http_send(&g->c, "GET", path, "", NULL, NULL, 0, e);
	if (rc == 0)
		rc = http_read_head(&g->c, &r, e);
	if (rc == 0)
		rc = http_read_body(&g->c, &r, INCUS_GUEST_MAX_BODY, e);
	if (rc == 0) {
		*status = r.status;
		*body = r.body;
		*len = r.body_len;
		r.body = NULL;
	}
	http_resp_free(&r);
	if (rc < 0 || !g->c.reusable)
		hang_up(g);
	return rc;
}

/*
 * One GET: the status and the raw body (malloc'd).  < 0 when the socket
 * gave no HTTP answer at all.  A kept connection the server dropped while
 * idle is dialled again, once.
 */
static int
get(struct incus_guest *g, const char *path, int *status, char **body,
    size_t *len, struct box_err *e)
{
	int reused = g->t != NULL, rc;

	*body = NULL;
	*len = 0;
	rc = get_once(g, path, status, body, len, e);
	if (rc < 0 && reused && rc != -ETIMEDOUT) {
		err_clear(e);
		rc = get_once(g, path, status, body, len, e);
	}
	return rc;
}

int
incus_guest_parse_info(const char *body, size_t n,
    struct incus_guest_info *info)
{
	struct json_doc d;
	struct box_err ignore;
	int rc = 0;

	memset(info, 0, sizeof(*info));
	err_clear(&ignore);
	if (json_parse(&d, body, n, &ignore) < 0)
		return -EBOX_PROTO;
	if (json_get(&d, 0, "api_version") >= 0 &&
	    json_get(&d, 0, "instance_type") >= 0) {
		json_gets(&d, 0, "instance_type", info->instance_type,
		    sizeof(info->instance_type), "");
		json_gets(&d, 0, "location", info->location,
		    sizeof(info->location), "");
		rc = 1;
	}
	json_free(&d);
	return rc;
}

int
incus_guest_info(struct incus_guest *g, struct incus_guest_info *info,
    struct box_err *e)
{
	char *body;
	size_t n;
	int st, rc;

	memset(info, 0, sizeof(*info));
	rc = get(g, "/1.0", &st, &body, &n, e);
	if (rc == -EACCES || rc == -EPERM) {
		err_clear(e);
		return err_set(e, -EACCES, "connecting was refused (%s)",
		    err_str(rc));
	}
	if (rc < 0)
		return rc;
	if (st == 401 || st == 403)
		/* Only root inside may ask; the refusal is Incus's own. */
		rc = err_set(e, -EACCES, "GET /1.0 answered %d (only root "
		    "inside the instance may ask)", st);
	else if (st == 200 && (rc = incus_guest_parse_info(body, n, info)) >= 0)
		rc = rc == 1 ? 0 : err_set(e, -EBOX_PROTO, "GET /1.0 answered "
		    "JSON that is not Incus's");
	else
		rc = err_set(e, -EBOX_API, "GET /1.0 answered %d", st);
	free(body);
	return rc;
}

int
incus_guest_config(struct incus_guest *g, const char *key, char *val,
    size_t cap, struct box_err *e)
{
	char path[160], esc[128], *body;
	size_t n, k;
	int st, rc;

	if (cap == 0)
		return -EINVAL;
	val[0] = '\0';
	if (url_escape(key, esc, sizeof(esc)) < 0)
		return err_set(e, -ENAMETOOLONG, "config key too long: %s",
		    key);
	snprintf(path, sizeof(path), "/1.0/config/%s", esc);
	if ((rc = get(g, path, &st, &body, &n, e)) < 0)
		return rc;
	if (st == 200) {
		/* the first line; a value with a NUL byte is no value of ours */
		for (k = 0; k < n && k + 1 < cap && body[k] != '\n'; k++)
			val[k] = body[k];
		val[k] = '\0';
		if (memchr(body, '\0', k) != NULL)
			val[0] = '\0';
		rc = 1;
	} else if (st == 404) {
		rc = 0;
	} else {
		rc = err_set(e, -EBOX_API, "GET %s answered %d", path, st);
	}
	free(body);
	return rc;
}

int
incus_guest_parse_nics(const char *body, size_t n,
    struct incus_guest_nic *out, size_t max, struct box_err *e)
{
	struct json_doc d;
	size_t got = 0;
	int k, v, rc;

	if ((rc = json_parse(&d, body, n, e)) < 0)
		return rc;
	for (k = json_child(&d, 0); k >= 0 && got < max; k = json_next(&d, v)) {
		if ((v = json_next(&d, k)) < 0)
			break;
		memset(&out[got], 0, sizeof(out[got]));
		if (!json_streq(&d, json_get(&d, v, "type"), "nic") ||
		    json_str(&d, k, out[got].name, sizeof(out[got].name)) < 0)
			continue;
		json_gets(&d, v, "network", out[got].network,
		    sizeof(out[got].network), "");
		got++;
	}
	json_free(&d);
	return (int)got;
}

int
incus_guest_nics(struct incus_guest *g, struct incus_guest_nic *out,
    size_t max, struct box_err *e)
{
	char *body;
	size_t n;
	int st, rc;

	if ((rc = get(g, "/1.0/devices", &st, &body, &n, e)) < 0)
		return rc;
	if (st == 200)
		rc = incus_guest_parse_nics(body, n, out, max, e);
	else
		rc = err_set(e, -EBOX_API, "GET /1.0/devices answered %d", st);
	free(body);
	return rc;
}

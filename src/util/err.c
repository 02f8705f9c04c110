#include "util/err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void
err_clear(struct box_err *e)
{
	if (e == NULL)
		return;
	e->code = 0;
	e->status = 0;
	e->msg[0] = '\0';
	e->fix[0] = '\0';
}

static int
err_vset(struct box_err *e, int code, int status, const char *fmt, va_list ap)
{
	if (code >= 0)
		code = -EIO;
	if (e == NULL || e->code != 0)
		return code;
	e->code = code;
	e->status = status;
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	return code;
}

int
err_set(struct box_err *e, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = err_vset(e, code, ERR_FAIL, fmt, ap);
	va_end(ap);
	return code;
}

int
err_usage(struct box_err *e, const char *fmt, ...)
{
	va_list ap;
	int code;

	va_start(ap, fmt);
	code = err_vset(e, -EINVAL, ERR_USAGE, fmt, ap);
	va_end(ap);
	return code;
}

void
err_fix(struct box_err *e, const char *fmt, ...)
{
	va_list ap;

	if (e == NULL || e->fix[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(e->fix, sizeof(e->fix), fmt, ap);
	va_end(ap);
}

void
err_context(struct box_err *e, const char *fmt, ...)
{
	char ctx[256];
	size_t cn, mn;
	va_list ap;

	if (e == NULL || e->code == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(ctx, sizeof(ctx) - 2, fmt, ap);
	va_end(ap);
	/* Shift the message right and put "ctx: " in front; truncate. */
	strcat(ctx, ": ");
	cn = strlen(ctx);
	mn = strlen(e->msg);
	if (cn >= sizeof(e->msg))
		return;
	if (cn + mn >= sizeof(e->msg))
		mn = sizeof(e->msg) - 1 - cn;
	memmove(e->msg + cn, e->msg, mn);
	memcpy(e->msg, ctx, cn);
	e->msg[cn + mn] = '\0';
}

const char *
err_str(int code)
{
	switch (-code) {
	case EBOX_PROTO:
		return "protocol violation";
	case EBOX_TOOBIG:
		return "reply exceeds the size limit";
	case EBOX_API:
		return "the daemon refused";
	case EBOX_NOTBOX:
		return "not a box";
	default:
		return strerror(-code);
	}
}

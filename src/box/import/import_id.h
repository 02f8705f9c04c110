/*
 * import_id.h - an imported container's machine identity, written by the
 * daemon at its first start instead of through the files API.
 *
 * The files API runs the daemon's file helper (forkfile), which syncs the
 * whole filesystem when each session ends; the start that follows stops
 * the helper and, while a sync is still running, polls it once a second.
 * Right after a restore that sync has the whole new disk to write (and
 * every other box's dirty pages on the same filesystem), so the identity
 * cost 0.2-0.5 s of sync, or a full second of waiting without it.
 *
 * Instead: one instance template (the id itself, no template syntax) for
 * /etc/machine-id under a trigger named afresh for each import, and
 * volatile.apply_template set to that trigger, so the daemon renders it
 * once, on the host, when the box first starts, and clears the key.  The
 * file's own templates cannot answer to a trigger nobody could guess.
 * Only for a container export vet_export found safe to template
 * (vet_export.h: nothing planted on the paths the daemon writes through).
 */
#ifndef BOX_IMPORT_ID_H
#define BOX_IMPORT_ID_H

#include "incus/api.h"
#include "util/err.h"

#define IMPORT_ID_TPL	"box-identity.tpl"	/* vet_export.c watches it */

/* The template, its metadata entry and the trigger, for box name. */
int import_id_template(struct incus *c, const char *name, struct box_err *e);

#endif

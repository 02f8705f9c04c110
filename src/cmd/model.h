/*
 * model.h - one box as box's JSON model shows it (docs/json.md): the
 * list entry, written by list.c for box list --json and reused by every
 * verb that prints a box (new, info, start ...).  One writer, so the same
 * thing has the same key everywhere.
 */
#ifndef BOX_MODEL_H
#define BOX_MODEL_H

#include "incus/api.h"
#include "incus/instance.h"
#include "incus/json.h"
#include "util/err.h"

/*
 * Write the list entry of in into w as an open object: the caller may add
 * keys, then closes it with json_w_end(w, '}').
 */
int model_open(struct incus *c, const struct incus_instance *in,
    struct json_w *w, struct box_err *e);

/* The list entry of box name, alone, on stdout. */
int model_print(const char *name, struct box_err *e);

/*
 * "doors": [{port, listen, connect}] of in (its expose-<port> devices), as
 * a key and value of the open object in w.
 */
void model_doors(struct json_w *w, const struct incus_instance *in);

/* w's document on stdout (a line), or -ENOMEM. */
int model_flush(struct json_w *w, struct box_err *e);

#endif

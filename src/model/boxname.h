/*
 * boxname.h - the rule for a box's name, a pure predicate both the box
 * boundary (box/box.h) and placement (box/place.h) apply: it lives on the
 * model floor so that neither has to include the other.
 */
#ifndef MODEL_BOXNAME_H
#define MODEL_BOXNAME_H

/*
 * Instance names as Incus accepts them (letters, digits, hyphens; not
 * starting with a digit or hyphen; at most 63).  Checked before a name is
 * put into a URL.
 */
int box_name_ok(const char *name);

#define BOX_NAME_RULE "letters, digits and hyphens, at most 63, starting " \
	"with a letter and not ending with a hyphen"

#endif

/*
 * box config [--json] - the defaults in force below a verb's flags, and
 * where each comes from: the environment, ~/.config/box/config,
 * /etc/box/config (box/conf.h), or box's own default.
 */
#include <stdio.h>
#include <string.h>

#include "box/conf.h"
#include "cmd/cmd.h"
#include "cmd/model.h"
#include "incus/json.h"
#include "util/opt.h"
#include "util/table.h"
#include "util/text.h"

/* What applies when nothing sets the key (a mint's, box/life/mint.h). */
static const char *const conf_default[CONF_N] = {
	"blank", "the template's", "the template's, else 4",
	"the template's, else 8GiB", "the template's, else 60GiB",
	"the template's, else open", "the template's, else never",
};

int
cmd_config(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct json_w w;
	struct table t;
	const char *v, *from;
	char sv[CONF_VALUE_MAX * 4], sf[2400];
	int rc, json, k;
	const struct opt rows[] = {
		OPT_FLAG("--json", NULL, &json, "[{key, value, from, env}] on "
		    "stdout (value null and from \"default\" where nothing "
		    "sets it)"),
		OPT_END
	};

	if ((rc = opt_parse(argc, argv, rows, &res, e)) < 0)
		return rc;
	if ((rc = conf_load(e)) < 0)
		return rc;
	if (conf_skipped()[0] != '\0') {
		char why[700];

		text_shown(conf_skipped(), strlen(conf_skipped()), why,
		    sizeof(why));
		fprintf(stderr, "box: note: %s\n", why);
	}
	if (json) {
		json_w_init(&w, 1u << 20);
		json_w_arr(&w);
		for (k = 0; k < CONF_N; k++) {
			json_w_obj(&w);
			json_w_key(&w, "key");
			json_w_str(&w, conf_name(k));
			json_w_key(&w, "value");
			if ((v = conf_get(k)) != NULL)
				json_w_str(&w, v);
			else
				json_w_null(&w);
			json_w_key(&w, "from");
			json_w_str(&w, v != NULL ? conf_from(k) : "default");
			json_w_key(&w, "env");
			json_w_str(&w, conf_env(k));
			json_w_end(&w, '}');
		}
		json_w_end(&w, ']');
		return model_flush(&w, e);
	}
	table_init(&t, 3);
	table_row(&t, (const char *[]){ "KEY", "VALUE", "FROM" });
	for (k = 0; k < CONF_N; k++) {
		v = conf_get(k);
		from = v != NULL ? conf_from(k) : "default";
		text_shown(v != NULL ? v : conf_default[k], strlen(v != NULL ?
		    v : conf_default[k]), sv, sizeof(sv));
		text_shown(from, strlen(from), sf, sizeof(sf));
		table_row(&t, (const char *[]){ conf_name(k), sv, sf });
	}
	rc = table_print(&t, stdout);
	table_free(&t);
	if (rc < 0)
		return err_set(e, rc, "out of memory");
	printf("\nflags win over the environment (BOX_CPU, ...), which wins "
	    "over\n~/.config/box/config, then %s, then the template.\n",
	    CONF_SYSTEM);
	return 0;
}

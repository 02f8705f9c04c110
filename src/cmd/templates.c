/* box templates - the templates a box can be minted from. */
#include <stdio.h>
#include <stdlib.h>

#include "box/life/template.h"
#include "cmd/cmd.h"
#include "cmd/model.h"
#include "util/opt.h"
#include "util/table.h"

int
cmd_templates(int argc, char **argv, struct box_err *e)
{
	int json;
	const struct opt rows[] = {
		OPT_FLAG("--json", NULL, &json, "an array of {name, "
		    "description, error (why it does not load, or null)}"),
		OPT_END
	};
	char names[TPL_MAX][TPL_NAME_MAX];
	struct opt_result res;
	struct table tb;
	struct json_w w;
	int n, i, rc;

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	n = template_names(names, TPL_MAX, e);
	if (n < 0)
		return n;
	if (json) {
		json_w_init(&w, 1u << 20);
		json_w_arr(&w);
	}
	for (i = 0; json && i < n; i++) {
		struct template t;
		struct box_err te;

		err_clear(&te);
		json_w_obj(&w);
		json_w_key(&w, "name");
		json_w_str(&w, names[i]);
		rc = template_load(names[i], &t, &te);
		json_w_key(&w, "description");
		if (rc < 0)
			json_w_null(&w);
		else
			json_w_str(&w, t.description);
		json_w_key(&w, "error");
		if (rc < 0)
			json_w_str(&w, te.msg);
		else
			json_w_null(&w);
		if (rc == 0)
			template_free(&t);
		json_w_end(&w, '}');
	}
	if (json) {
		json_w_end(&w, ']');
		return model_flush(&w, e);
	}
	if (n == 0) {
		fprintf(stderr, "box: no templates found%s\n",
		    getenv("BOX_TEMPLATES") ? " in BOX_TEMPLATES" : "");
		return 0;
	}
	table_init(&tb, 2);
	table_row(&tb, (const char *[]){ "TEMPLATE", "DESCRIPTION" });
	for (i = 0; i < n; i++) {
		struct template t;

		/* A broken template is listed as such, not hidden. */
		struct box_err te;

		err_clear(&te);
		if (template_load(names[i], &t, &te) < 0) {
			table_row(&tb, (const char *[]){ names[i], te.msg });
			continue;
		}
		table_row(&tb, (const char *[]){ names[i], t.description });
		template_free(&t);
	}
	rc = table_print(&tb, stdout);
	table_free(&tb);
	if (rc < 0)
		return err_set(e, rc, "out of memory");
	printf("\nmint one:  box new --name <box> --template <template>\n");
	return 0;
}

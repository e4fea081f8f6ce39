/*
 * gpuadmit validate (README.md#the-cli): the cluster's verdict for every object read, as CREATE, mutation first unless
 * --no-mutate. Exit 0 when everything read was admitted, 1 when anything was denied, 2 on a usage error or when
 * any input could not be read (what could be read is still reported).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report/report.h"
#include "verb.h"

typedef struct st_validate_t {
    gpa_verb_t vb;
    int mutate;
    size_t objects, denied;
} validate_t;

static void usage(FILE *out)
{
    fprintf(out, "usage: gpuadmit validate [--no-mutate] [--config F] [--inventory F]... [-o text|json] PATH...\n"
                 "\n"
                 "The cluster's verdict for each object: mutation first (as the API server runs mutating before\n"
                 "validating webhooks), then validation, every object checked as CREATE.\n"
                 "PATH: files, directories (recursive: .yaml, .yml, .json), or - for stdin.\n"
                 "\n"
                 "  --no-mutate       validate the objects as written\n"
                 "  --config F        configuration (rule actions, thresholds, namespaces)\n"
                 "  --inventory F     the cluster's GPUs: enables the infeasible rule (repeatable)\n"
                 "  -o, --output FMT  text (default) or json\n"
                 "\n"
                 "exit: 0 all admitted, 1 something denied, 2 usage error or unreadable input\n");
}

static void on_object(gpa_verb_t *vb, const char *source, gpa_object_t *obj)
{
    validate_t *v = vb->ctx;
    gpa_check_opts_t opts = {
        .operation = GPA_OP_CREATE, .mutate = v->mutate, .as_written = !v->mutate, .validate = 1, .inventory = vb->inv};
    gpa_verdict_t verdict;
    if (gpa_verb_check(vb, source, obj, &opts, &verdict) != 0)
        return;
    v->objects++;
    if (!verdict.allowed)
        v->denied++;
    /* Admitted unchecked: the report says why, not just "allowed". */
    int excluded = obj->npods > 0 && gpa_config_excludes(vb->cfg, obj->ns);
    if (vb->json) {
        json_t *el = gpa_report_json(source, obj, &verdict);
        if (excluded && el != NULL)
            json_object_set_new(el, "excluded", json_true());
        gpa_verb_print_json(vb, el, source, "report", obj->name);
    } else if (excluded) {
        gpa_report_text_excluded(stdout, &vb->scratch, source, obj);
    } else {
        gpa_report_text(stdout, &vb->scratch, source, obj, &verdict);
    }
}

typedef struct st_options_t {
    gpa_verb_opts_t common;
    int no_mutate;
} options_t;

enum { OPT_NO_MUTATE = GPA_OPT_OWN };
static const char *const formats[] = {"text", "json", NULL};

/* Returns -1 after a message on a bad command line, 1 for --help, 0 otherwise; paths start at optind. */
static int parse_args(int argc, char **argv, options_t *o)
{
    static const struct option own[] = {{"no-mutate", no_argument, NULL, OPT_NO_MUTATE}, {NULL, 0, NULL, 0}};
    gpa_verb_opts_init(&o->common, GPA_OPT_CONFIG | GPA_OPT_INVENTORY | GPA_OPT_OUTPUT, own, "text");
    int c;
    while ((c = gpa_verb_getopt(argc, argv, &o->common)) != -1) {
        if (c != OPT_NO_MUTATE)
            return c == 'h' ? 1 : -1;
        o->no_mutate = 1;
    }
    return gpa_verb_opts_check("validate", &o->common, formats, GPA_NEED_PATH, argc);
}

int gpa_cmd_validate(int argc, char **argv)
{
    options_t o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc != 0) {
        usage(rc > 0 ? stdout : stderr);
        gpa_verb_opts_dispose(&o.common);
        return rc > 0 ? GPA_EXIT_OK : GPA_EXIT_USAGE;
    }
    validate_t v = {.vb.json = strcmp(o.common.output, "json") == 0, .mutate = !o.no_mutate};
    rc = GPA_EXIT_USAGE;
    if (gpa_verb_init(&v.vb, &o.common, on_object, &v) == 0) {
        gpa_verb_walk(&v.vb, argv + optind, (size_t)(argc - optind));
        const char *summary = gpa_arena_printf(&v.vb.scratch, "%zu object%s: %zu allowed, %zu denied", v.objects,
                                               v.objects == 1 ? "" : "s", v.objects - v.denied, v.denied);
        rc = gpa_verb_finish(&v.vb, v.denied, summary);
    }
    gpa_verb_dispose(&v.vb);
    gpa_verb_opts_dispose(&o.common);
    return rc;
}

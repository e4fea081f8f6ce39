/*
 * gpuadmit validate (SPEC §6): the cluster's verdict for every object read, as CREATE, mutation first unless
 * --no-mutate. Exit 0 when everything read was admitted, 1 when anything was denied, 2 on a usage error or when
 * any input could not be read (what could be read is still reported).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "input.h"
#include "report.h"

typedef struct st_validate_t {
    gpa_config_t *cfg;
    gpa_inventory_t *inv;
    int mutate;
    int json;
    size_t objects, denied, unreadable;
    gpa_arena_t scratch; /* per object: the verdict and its strings */
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

static void print_json(validate_t *v, const char *source, const gpa_object_t *obj, const gpa_verdict_t *verdict)
{
    json_t *el = gpa_report_json(source, obj, verdict);
    char *s = el != NULL ? json_dumps(el, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    if (s == NULL) { /* only text that is not UTF-8 gets here; say so rather than drop the object */
        fprintf(stderr, "%s: cannot encode the report of %s as JSON\n", source, obj->name);
        v->unreadable++;
    } else {
        printf("%s%s", v->objects > 1 ? ",\n" : "", s);
    }
    free(s);
    json_decref(el);
}

static int check_one(validate_t *v, const char *source, gpa_object_t *obj)
{
    gpa_check_opts_t opts = {.operation = GPA_OP_CREATE, .mutate = v->mutate, .validate = 1, .inventory = v->inv};
    gpa_verdict_t verdict;
    gpa_error_t err;
    gpa_error_init(&err, source);
    gpa_arena_clear(&v->scratch);
    if (gpa_check(&v->scratch, v->cfg, obj, &opts, &verdict, &err) != 0) {
        char line[1024];
        gpa_error_format(&err, line, sizeof(line));
        fprintf(stderr, "%s\n", line);
        v->unreadable++;
        return 0;
    }
    v->objects++;
    if (!verdict.allowed)
        v->denied++;
    if (v->json)
        print_json(v, source, obj, &verdict);
    else
        gpa_report_text(stdout, &v->scratch, source, obj, &verdict);
    return 0;
}

static int on_document(void *ctx, const char *file, const char *source, gpa_arena_t *a, gpa_value_t *doc)
{
    validate_t *v = ctx;
    gpa_objects_t objs = {0};
    if (gpa_cli_decode(a, file, doc, &objs) != 0) {
        v->unreadable++;
        return 0; /* reported; the next document is still checked */
    }
    for (size_t i = 0; i < objs.len; i++)
        check_one(v, source, objs.items[i]);
    return 0;
}

typedef struct st_options_t {
    const char *config;
    char **inventories;
    size_t ninventories;
    int no_mutate;
    const char *output;
} options_t;

/* Returns -1 after printing usage on a bad command line, 1 for --help, 0 otherwise; paths start at optind. */
static int parse_args(int argc, char **argv, options_t *o)
{
    static const struct option longopts[] = {{"no-mutate", no_argument, NULL, 'n'},
                                             {"config", required_argument, NULL, 'c'},
                                             {"inventory", required_argument, NULL, 'i'},
                                             {"output", required_argument, NULL, 'o'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'n':
            o->no_mutate = 1;
            break;
        case 'c':
            o->config = optarg;
            break;
        case 'i':
            o->inventories = gpa_xrealloc(o->inventories, (o->ninventories + 1) * sizeof(char *));
            o->inventories[o->ninventories++] = optarg;
            break;
        case 'o':
            o->output = optarg;
            break;
        case 'h':
            return 1;
        default:
            return -1;
        }
    }
    if (strcmp(o->output, "text") != 0 && strcmp(o->output, "json") != 0) {
        fprintf(stderr, "validate: -o must be text or json, not '%s'\n", o->output);
        return -1;
    }
    if (optind >= argc) {
        fprintf(stderr, "validate: no PATH given (use - for stdin)\n");
        return -1;
    }
    return 0;
}

static int finish(validate_t *v, int walk_rc)
{
    if (v->json)
        printf("%s]\n", v->objects > 0 ? "\n" : "");
    else
        printf("%zu object%s: %zu allowed, %zu denied%s\n", v->objects, v->objects == 1 ? "" : "s", v->objects - v->denied,
               v->denied, v->unreadable > 0 || walk_rc != 0 ? "; some input could not be read (see stderr)" : "");
    if (walk_rc != 0 || v->unreadable > 0)
        return GPA_EXIT_USAGE;
    return v->denied > 0 ? GPA_EXIT_DENIED : GPA_EXIT_OK;
}

int gpa_cmd_validate(int argc, char **argv)
{
    options_t o = {.output = "text"};
    int rc = parse_args(argc, argv, &o);
    if (rc != 0) {
        usage(rc > 0 ? stdout : stderr);
        free(o.inventories);
        return rc > 0 ? GPA_EXIT_OK : GPA_EXIT_USAGE;
    }
    validate_t v = {.mutate = !o.no_mutate, .json = strcmp(o.output, "json") == 0};
    if (gpa_cli_load_config(o.config, &v.cfg) != 0 ||
        (o.ninventories > 0 && gpa_cli_load_inventory(o.inventories, o.ninventories, &v.inv) != 0)) {
        rc = GPA_EXIT_USAGE;
        goto Exit;
    }
    gpa_arena_init(&v.scratch);
    if (v.json)
        fputs("[", stdout);
    rc = finish(&v, gpa_input_walk(argv + optind, (size_t)(argc - optind), on_document, &v));
    gpa_arena_dispose(&v.scratch);
Exit:
    gpa_inventory_release(v.inv);
    gpa_config_release(v.cfg);
    free(o.inventories);
    return rc;
}

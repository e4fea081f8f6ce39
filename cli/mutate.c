/*
 * gpuadmit mutate (README.md#the-cli): what the mutating webhook would make of each object, as CREATE.
 *   -o yaml   every object after mutation, as YAML documents separated by "---" (default)
 *   -o json   the object after mutation; several objects as one `List` (what kubectl apply takes)
 *   -o patch  one line per object: its RFC 6902 JSON Patch ("[]" when nothing changes)
 * Objects that need no change are printed as they are. Exit 0, or 2 on a usage error or unreadable input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "cli.h"
#include "verb.h"
#include "document/emit.h"

typedef enum en_format_t {
    FORMAT_YAML,
    FORMAT_JSON,
    FORMAT_PATCH,
} format_t;

typedef struct st_mutate_t {
    gpa_verb_t vb;
    format_t format;
    size_t objects;
    gpa_buf_t json_items; /* -o json: the first object, held until a second one makes the output a List */
} mutate_t;

static void usage(FILE *out)
{
    fprintf(out, "usage: gpuadmit mutate [--config F] [--inventory F]... [-o yaml|json|patch] PATH...\n"
                 "\n"
                 "What the mutating webhook makes of each object (checked as CREATE).\n"
                 "PATH: files, directories (recursive: .yaml, .yml, .json), or - for stdin.\n"
                 "\n"
                 "  --config F        configuration (dialects, rule actions, excluded namespaces)\n"
                 "  --inventory F     the cluster's GPUs: card memory for ray-gpu-memory (repeatable)\n"
                 "  -o, --output FMT  yaml (default): the mutated objects as YAML documents;\n"
                 "                    json: the mutated object, several as one List;\n"
                 "                    patch: one line per object, its JSON Patch (RFC 6902)\n"
                 "\n"
                 "exit: 0 success, 2 usage error or unreadable input\n");
}

static void emit(mutate_t *m, const gpa_verdict_t *verdict)
{
    gpa_buf_t out = GPA_BUF_INIT;
    switch (m->format) {
    case FORMAT_YAML:
        if (m->objects > 1)
            gpa_buf_puts(&out, "---\n");
        gpa_value_emit_yaml(&out, verdict->mutated);
        break;
    case FORMAT_PATCH:
        gpa_patch_encode(&out, &verdict->patch);
        gpa_buf_putc(&out, '\n');
        break;
    case FORMAT_JSON:
        /* The first object is held back: whether it is the whole output or the first item of a List is known
         * when a second one comes (or at the end); from then on each is printed as it comes. */
        if (m->objects == 1) {
            gpa_value_emit_json(&m->json_items, verdict->mutated, 2);
            break;
        }
        if (m->objects == 2)
            printf("{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": [\n%.*s", (int)m->json_items.len,
                   m->json_items.base);
        gpa_buf_puts(&out, ",\n");
        gpa_value_emit_json(&out, verdict->mutated, 2);
        break;
    }
    if (out.len > 0)
        fwrite(out.base, 1, out.len, stdout);
    gpa_buf_dispose(&out);
}

static void on_object(gpa_verb_t *vb, const char *source, gpa_object_t *obj)
{
    mutate_t *m = vb->ctx;
    gpa_check_opts_t opts = {.operation = GPA_OP_CREATE, .mutate = 1, .validate = 0, .inventory = vb->inv};
    gpa_verdict_t verdict;
    if (gpa_verb_check(vb, source, obj, &opts, &verdict) != 0)
        return;
    m->objects++;
    emit(m, &verdict);
}

static void finish_json(mutate_t *m)
{
    if (m->objects == 0)
        return;
    if (m->objects == 1)
        printf("%.*s\n", (int)m->json_items.len, m->json_items.base);
    else
        fputs("\n  ]\n}\n", stdout);
}

/* -o's names, in format_t's order */
static const char *const formats[] = {"yaml", "json", "patch", NULL};

/* -1 bad command line (reported), 1 --help, 0 go on with paths from optind. */
static int parse_args(int argc, char **argv, gpa_verb_opts_t *o, format_t *format)
{
    gpa_verb_opts_init(o, GPA_OPT_CONFIG | GPA_OPT_INVENTORY | GPA_OPT_OUTPUT, NULL, "yaml");
    int c;
    if ((c = gpa_verb_getopt(argc, argv, o)) != -1)
        return c == 'h' ? 1 : -1;
    if (gpa_verb_opts_check("mutate", o, formats, GPA_NEED_PATH, argc) != 0)
        return -1;
    *format = (format_t)gpa_verb_output(o, formats);
    return 0;
}

int gpa_cmd_mutate(int argc, char **argv)
{
    gpa_verb_opts_t o = {0};
    mutate_t m = {.format = FORMAT_YAML, .json_items = GPA_BUF_INIT};
    int rc = parse_args(argc, argv, &o, &m.format);
    if (rc != 0) {
        gpa_verb_opts_dispose(&o);
        usage(rc > 0 ? stdout : stderr);
        return rc > 0 ? GPA_EXIT_OK : GPA_EXIT_USAGE;
    }
    rc = GPA_EXIT_USAGE;
    if (gpa_verb_init(&m.vb, &o, on_object, &m) == 0) {
        gpa_verb_walk(&m.vb, argv + optind, (size_t)(argc - optind));
        if (m.format == FORMAT_JSON)
            finish_json(&m);
        rc = gpa_verb_finish(&m.vb, 0, NULL);
    }
    gpa_verb_dispose(&m.vb);
    gpa_verb_opts_dispose(&o);
    gpa_buf_dispose(&m.json_items);
    return rc;
}

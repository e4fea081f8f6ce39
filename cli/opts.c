/* The verbs' shared options (opts.h): one table, filtered by what a verb takes. */
#include "opts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"

enum { CODE_CONFIG = 0x100, CODE_INVENTORY, CODE_KUBECONFIG, CODE_CONTEXT };

static const struct {
    unsigned opt;
    struct option long_;
} shared[] = {
    {GPA_OPT_CONFIG, {"config", required_argument, NULL, CODE_CONFIG}},
    {GPA_OPT_INVENTORY, {"inventory", required_argument, NULL, CODE_INVENTORY}},
    {GPA_OPT_OUTPUT, {"output", required_argument, NULL, 'o'}},
    {GPA_OPT_CLUSTER, {"kubeconfig", required_argument, NULL, CODE_KUBECONFIG}},
    {GPA_OPT_CLUSTER, {"context", required_argument, NULL, CODE_CONTEXT}},
    {GPA_OPT_NAMESPACE, {"namespace", required_argument, NULL, 'n'}},
    {GPA_OPT_NAMESPACE, {"all-namespaces", no_argument, NULL, 'A'}},
};

#define MAX_LONGOPTS (sizeof(((gpa_verb_opts_t *)0)->longopts_) / sizeof(struct option))

void gpa_verb_opts_init(gpa_verb_opts_t *o, unsigned takes, const struct option *own, const char *output)
{
    *o = (gpa_verb_opts_t){.output = output};
    size_t n = 0;
    o->longopts_[n++] = (struct option){"help", no_argument, NULL, 'h'};
    for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]); i++)
        if (takes & shared[i].opt)
            o->longopts_[n++] = shared[i].long_;
    for (; own != NULL && own->name != NULL; own++) {
        if (n + 1 >= MAX_LONGOPTS)
            abort(); /* a verb with more options than longopts_ holds: make it larger */
        o->longopts_[n++] = *own;
    }
    o->longopts_[n] = (struct option){0};
    snprintf(o->shortopts_, sizeof(o->shortopts_), "h%s%s", (takes & GPA_OPT_OUTPUT) ? "o:" : "",
             (takes & GPA_OPT_NAMESPACE) ? "n:A" : "");
    optind = 1;
}

static void add_inventory(gpa_verb_opts_t *o, const char *path)
{
    o->inventories = gpa_xrealloc(o->inventories, (o->ninventories + 1) * sizeof(char *));
    o->inventories[o->ninventories++] = path;
}

int gpa_verb_getopt(int argc, char **argv, gpa_verb_opts_t *o)
{
    int c;
    while ((c = getopt_long(argc, argv, o->shortopts_, o->longopts_, NULL)) != -1) {
        switch (c) {
        case CODE_CONFIG:
            o->config = optarg;
            break;
        case CODE_INVENTORY:
            add_inventory(o, optarg);
            break;
        case 'o':
            o->output = optarg;
            break;
        case CODE_KUBECONFIG:
            o->kube.kubeconfig = optarg;
            break;
        case CODE_CONTEXT:
            o->kube.context = optarg;
            break;
        case 'n':
            o->ns = optarg;
            break;
        case 'A':
            o->all = 1;
            break;
        default:
            return c;
        }
    }
    return -1;
}

int gpa_verb_output(const gpa_verb_opts_t *o, const char *const *formats)
{
    for (int i = 0; formats[i] != NULL; i++)
        if (strcmp(o->output, formats[i]) == 0)
            return i;
    return -1;
}

/* "-o must be text, json or junit, not 'x'" */
static void say_formats(const char *verb, const char *output, const char *const *formats)
{
    fprintf(stderr, "%s: -o must be ", verb);
    for (size_t i = 0; formats[i] != NULL; i++)
        fprintf(stderr, "%s%s", i == 0 ? "" : formats[i + 1] == NULL ? " or " : ", ", formats[i]);
    fprintf(stderr, ", not '%s'\n", output);
}

int gpa_verb_opts_check(const char *verb, const gpa_verb_opts_t *o, const char *const *formats, unsigned need, int argc)
{
    if (formats != NULL && gpa_verb_output(o, formats) < 0)
        return say_formats(verb, o->output, formats), -1;
    if (o->all && o->ns != NULL)
        return fprintf(stderr, "%s: -n and -A exclude each other\n", verb), -1;
    if ((need & GPA_NEED_INVENTORY) && o->ninventories == 0)
        return fprintf(stderr, "%s: --inventory F is required\n", verb), -1;
    if ((need & GPA_NEED_PATH) && optind >= argc)
        return fprintf(stderr, "%s: no PATH given (use - for stdin)\n", verb), -1;
    return 0;
}

int gpa_verb_target(const char *verb, const gpa_verb_opts_t *o, gpa_kube_target_t *t, const char **ns)
{
    gpa_error_t err = {0};
    if (gpa_kube_target_load(&o->kube, t, &err) != 0) {
        char line[1024];
        gpa_error_format(&err, line, sizeof(line));
        fprintf(stderr, "%s: %s\n", verb, line);
        return -1;
    }
    if (ns != NULL)
        *ns = o->all ? NULL : o->ns != NULL ? o->ns : t->ns != NULL && t->ns[0] != '\0' ? t->ns : "default";
    return 0;
}

void gpa_verb_opts_dispose(gpa_verb_opts_t *o)
{
    free((void *)o->inventories);
    o->inventories = NULL;
    o->ninventories = 0;
}

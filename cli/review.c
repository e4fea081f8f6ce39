/*
 * gpuadmit review (README.md#the-cli): answers one AdmissionReview exactly as `gpuadmit serve` would, through the same
 * gpa_review() call. Prints the response body and exits 0 whatever the verdict (the verdict is in the body);
 * exits 2 with the reason on stderr when the input is not a readable AdmissionReview (the webhook's HTTP 400).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "input/input.h"
#include "admission/review.h"
#include "verb.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: gpuadmit review --webhook validate|mutate [--config F] [--inventory F]... FILE|-\n"
                 "\n"
                 "The AdmissionReview response the webhook would send for the AdmissionReview in FILE (- = stdin),\n"
                 "v1 or v1beta1, answered in the version asked and with the request's operation.\n"
                 "\n"
                 "  --webhook W       validate (/validate) or mutate (/mutate); required\n"
                 "  --config F        configuration (rule actions, thresholds, namespaces)\n"
                 "  --inventory F     the cluster's GPUs: enables the infeasible rule (repeatable)\n"
                 "\n"
                 "exit: 0 answered (allowed or not: see the body), 2 usage error or unreadable input\n");
}

typedef struct st_options_t {
    gpa_verb_opts_t common;
    const char *webhook;
} options_t;

enum { OPT_WEBHOOK = GPA_OPT_OWN };

/* -1 bad command line (reported), 1 --help, 0 go on with FILE at optind. */
static int parse_args(int argc, char **argv, options_t *o)
{
    static const struct option own[] = {{"webhook", required_argument, NULL, OPT_WEBHOOK}, {NULL, 0, NULL, 0}};
    gpa_verb_opts_init(&o->common, GPA_OPT_CONFIG | GPA_OPT_INVENTORY, own, NULL);
    int c;
    while ((c = gpa_verb_getopt(argc, argv, &o->common)) != -1) {
        if (c != OPT_WEBHOOK)
            return c == 'h' ? 1 : -1;
        o->webhook = optarg;
    }
    if (o->webhook == NULL || (strcmp(o->webhook, "validate") != 0 && strcmp(o->webhook, "mutate") != 0)) {
        fprintf(stderr, "review: --webhook must be validate or mutate\n");
        return -1;
    }
    if (argc - optind != 1) {
        fprintf(stderr, "review: exactly one FILE (or -) expected\n");
        return -1;
    }
    return 0;
}

static int answer(const options_t *o, const char *file, const gpa_config_t *cfg, const gpa_inventory_t *inv)
{
    gpa_error_t err = {0};
    gpa_error_init(&err, file);
    size_t len = 0;
    char *body = gpa_read_file(file, &len, &err);
    if (body == NULL) {
        char line[1024];
        gpa_error_format(&err, line, sizeof(line));
        fprintf(stderr, "%s\n", line);
        return GPA_EXIT_USAGE;
    }
    gpa_arena_t a;
    gpa_arena_init(&a);
    gpa_review_t r;
    gpa_webhook_t hook = strcmp(o->webhook, "mutate") == 0 ? GPA_WEBHOOK_MUTATE : GPA_WEBHOOK_VALIDATE;
    gpa_review_with(&a, cfg, inv, NULL, NULL, hook, body, len, &r); /* as the webhook: the same answer, the same memory */
    int rc = GPA_EXIT_OK;
    if (r.http_status == 200) {
        fwrite(r.body, 1, r.len, stdout);
        putchar('\n');
    } else {
        fprintf(stderr, "%s: %s (the webhook answers HTTP %d)\n", file, r.body != NULL ? r.body : "unreadable", r.http_status);
        rc = GPA_EXIT_USAGE;
    }
    gpa_arena_dispose(&a);
    free(body);
    return rc;
}

int gpa_cmd_review(int argc, char **argv)
{
    options_t o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc != 0) {
        usage(rc > 0 ? stdout : stderr);
        gpa_verb_opts_dispose(&o.common);
        return rc > 0 ? GPA_EXIT_OK : GPA_EXIT_USAGE;
    }
    gpa_verb_t vb = {0};
    rc = gpa_verb_init(&vb, &o.common, NULL, NULL) == 0 ? answer(&o, argv[optind], vb.cfg, vb.inv) : GPA_EXIT_USAGE;
    gpa_verb_dispose(&vb);
    gpa_verb_opts_dispose(&o.common);
    return rc;
}

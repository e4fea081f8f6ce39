/*
 * docs/rules.md is the product's rule reference; this test keeps it, the rule and mutation tables and the
 * README from drifting apart:
 *   - every rule and mutation of the tables has a section, and every section names one of them;
 *   - a rule section's default action is the table's;
 *   - the README's rule and mutation tables list exactly the same ids;
 *   - every resource name gpuadmit reads appears in the dialect reference;
 *   - every kind of the workloads table has a row of its group in docs/rules.md's Objects table and the README's;
 *   - every example runs through the engine: a `fires` example yields the finding (or applies the mutation),
 *     a `passes` example does not. A rule's `inventory` block, when present, is loaded for its examples (its DRA
 *     objects what the cluster is known to hold), and so is a `config` block (a configuration, e.g. turning on a
 *     mutation that is off by default).
 */
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inventory/inventory.h"
#include "document/docs.h"
#include "kube/decode.h"
#include "kube/workloads.h"
#include "kube/resource.h"
#include "policy/config.h"
#include "policy/engine.h"
#include "policy/mutate.h"
#include "policy/rules.h"
#include "run.h"

#define MAX_SECTIONS 64
#define MAX_EXAMPLES 8

typedef struct {
    const char *text; /* NUL-terminated copy */
    const char *kind; /* "fires", "passes", "inventory" */
    int line;
} example_t;

typedef struct {
    char id[64];
    int mutation; /* under "## Mutations" */
    char action[16];
    example_t examples[MAX_EXAMPLES];
    size_t nexamples;
    int line;
} section_t;

static char *docs_text, *readme_text;
static section_t sections[MAX_SECTIONS];
static size_t nsections;

static char *slurp(const char *rel)
{
    const char *dir = getenv("GPA_SOURCE_DIR");
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir != NULL ? dir : ".", rel);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    ck_assert_uint_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

/* The text of the line starting at p (without its newline) into dst. */
static void line_at(const char *p, char *dst, size_t cap)
{
    size_t n = strcspn(p, "\n");
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, p, n);
    dst[n] = '\0';
}

/* "| deny | all | each container |" -> "deny" */
static void first_cell(const char *row, char *dst, size_t cap)
{
    const char *b = row + 1;
    while (*b == ' ')
        b++;
    size_t n = strcspn(b, " |");
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, b, n);
    dst[n] = '\0';
}

static void parse_docs(void)
{
    docs_text = slurp("docs/rules.md");
    int in_rules = 0, in_mutations = 0, lineno = 1;
    section_t *cur = NULL;
    for (char *p = docs_text; *p != '\0';) {
        char line[512];
        line_at(p, line, sizeof(line));
        size_t len = strcspn(p, "\n");
        if (strncmp(line, "## ", 3) == 0) {
            in_rules = strcmp(line, "## Rules") == 0;
            in_mutations = strcmp(line, "## Mutations") == 0;
            cur = NULL;
        } else if (strncmp(line, "### ", 4) == 0 && (in_rules || in_mutations)) {
            ck_assert_uint_lt(nsections, MAX_SECTIONS);
            cur = &sections[nsections++];
            snprintf(cur->id, sizeof(cur->id), "%.63s", line + 4);
            cur->mutation = in_mutations;
            cur->line = lineno;
        } else if (cur != NULL && strncmp(line, "| default |", 11) == 0) {
            char row[512];
            const char *next = p + len + 1;  /* |---|---| */
            next += strcspn(next, "\n") + 1; /* the values */
            line_at(next, row, sizeof(row));
            first_cell(row, cur->action, sizeof(cur->action));
        } else if (cur != NULL && strncmp(line, "```yaml ", 8) == 0) {
            ck_assert_uint_lt(cur->nexamples, MAX_EXAMPLES);
            example_t *ex = &cur->examples[cur->nexamples++];
            ex->kind = strdup(line + 8);
            ex->line = lineno + 1;
            char *body = p + len + 1, *end = strstr(body, "\n```\n");
            ck_assert_msg(end != NULL, "docs/rules.md:%d: unterminated code block", lineno);
            ex->text = strndup(body, (size_t)(end - body) + 1);
            for (char *q = p; q < end + 4; q++)
                lineno += *q == '\n';
            p = end + 5;
            continue;
        }
        p += len;
        if (*p == '\n') {
            p++;
            lineno++;
        }
    }
}

static const section_t *section(const char *id, int mutation)
{
    for (size_t i = 0; i < nsections; i++)
        if (strcmp(sections[i].id, id) == 0 && sections[i].mutation == mutation)
            return &sections[i];
    return NULL;
}

static const char *action_word(gpa_action_t a)
{
    return a == GPA_ACTION_DENY ? "deny" : a == GPA_ACTION_WARN ? "warn" : "off";
}

static void setup(void)
{
    if (docs_text == NULL)
        parse_docs();
    if (readme_text == NULL)
        readme_text = slurp("README.md");
}

START_TEST(every_rule_and_mutation_has_a_section)
{
    for (size_t i = 0; i < gpa_nrules; i++) {
        const section_t *s = section(gpa_rules[i].id, 0);
        ck_assert_msg(s != NULL, "docs/rules.md has no section for rule %s", gpa_rules[i].id);
        ck_assert_msg(strcmp(s->action, action_word(gpa_rules[i].action)) == 0,
                      "docs/rules.md:%d: %s: default '%s', the table says %s", s->line, s->id, s->action,
                      action_word(gpa_rules[i].action));
    }
    for (size_t i = 0; i < gpa_nmutations; i++)
        ck_assert_msg(section(gpa_mutations[i].id, 1) != NULL, "docs/rules.md has no section for mutation %s", gpa_mutations[i].id);
    for (size_t i = 0; i < nsections; i++) {
        int known = sections[i].mutation ? gpa_mutation_index(sections[i].id) >= 0 : gpa_rule_index(sections[i].id) >= 0;
        ck_assert_msg(known, "docs/rules.md:%d: section %s names no %s in the engine's table", sections[i].line, sections[i].id,
                      sections[i].mutation ? "mutation" : "rule");
    }
}
END_TEST

/* The ids listed in the README table under heading `h` ("| `id` | ..." rows), each checked against `want`. */
static size_t readme_ids(const char *h, char ids[][64], size_t cap)
{
    const char *p = strstr(readme_text, h);
    ck_assert_msg(p != NULL, "README.md has no '%s'", h);
    size_t n = 0;
    for (p = strchr(p + 1, '\n'); p != NULL && p[1] != '#'; p = strchr(p + 1, '\n')) {
        if (strncmp(p + 1, "| `", 3) != 0)
            continue;
        const char *b = p + 4, *e = strchr(b, '`');
        ck_assert_uint_lt(n, cap);
        snprintf(ids[n++], 64, "%.*s", (int)(e - b), b);
    }
    return n;
}

START_TEST(readme_lists_the_same_ids)
{
    char ids[64][64];
    size_t n = readme_ids("\n## Rules\n", ids, 64);
    ck_assert_uint_eq(n, gpa_nrules);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(gpa_rule_index(ids[i]) >= 0, "README.md lists rule %s, which the table does not have", ids[i]);
    n = readme_ids("\n## Mutations", ids, 64);
    ck_assert_uint_eq(n, gpa_nmutations);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(gpa_mutation_index(ids[i]) >= 0, "README.md lists mutation %s, which the table does not have", ids[i]);
}
END_TEST

START_TEST(every_resource_is_documented)
{
    for (int r = 0; r < GPA_R__COUNT; r++) {
        const char *name = gpa_resource_name((gpa_resource_t)r);
        ck_assert_msg(strstr(docs_text, name) != NULL, "docs/rules.md does not mention %s", name);
    }
}
END_TEST

/* Whether `word` appears in line[0..n) as a whole word (Job is not found in CronJob). */
static int has_word(const char *line, size_t n, const char *word)
{
    size_t w = strlen(word);
    for (const char *p = line; p + w <= line + n; p++)
        if (strncmp(p, word, w) == 0 && (p == line || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)p[w]))
            return 1;
    return 0;
}

/* Whether `text` has a table row starting with the group's cell ("| `apps` |", "| core") that names the kind. */
static int row_names_kind(const char *text, const gpa_workload_t *w)
{
    char cell[160];
    snprintf(cell, sizeof(cell), w->group[0] != '\0' ? "| `%s` |" : "| core", w->group);
    for (const char *p = strstr(text, cell); p != NULL; p = strstr(p + 1, cell))
        if ((p == text || p[-1] == '\n') && has_word(p, strcspn(p, "\n"), w->kind))
            return 1;
    return 0;
}

START_TEST(every_kind_is_documented)
{
    for (size_t i = 0; i < gpa_workloads_builtin.len; i++) {
        const gpa_workload_t *w = &gpa_workloads_builtin.items[i];
        ck_assert_msg(row_names_kind(docs_text, w), "docs/rules.md has no Objects row for %s %s", w->group, w->kind);
        ck_assert_msg(row_names_kind(readme_text, w), "README.md has no Objects row for %s %s", w->group, w->kind);
    }
}
END_TEST

/* Runs one example: 1 when the rule fired (or the mutation applied). */
static int run_example(const section_t *s, const example_t *ex, const gpa_inventory_t *inv, gpa_config_t *section_cfg)
{
    gpa_arena_t a;
    gpa_arena_init(&a);
    gpa_config_t *cfg = section_cfg != NULL ? gpa_config_retain(section_cfg) : gpa_config_default();
    gpa_docs_t docs;
    gpa_error_t err = {0};
    gpa_error_init(&err, "docs/rules.md");
    ck_assert_msg(gpa_docs_parse(&a, ex->text, strlen(ex->text), &docs, &err) == 0 && docs.len == 1, "docs/rules.md:%d: %s",
                  ex->line + (int)err.line - 1, err.message);
    gpa_object_t *obj = NULL;
    gpa_decode_opts_t decode = cfg->decode; /* the inventory's DeviceClasses known: extended resources read as DRA */
    decode.known = gpa_inventory_dra(inv);
    ck_assert_msg(gpa_decode_object_with(&a, &decode, docs.docs[0], &obj, &err) == 0, "docs/rules.md:%d: %s: %s", ex->line,
                  err.path, err.message);
    gpa_check_opts_t opts = {
        .operation = GPA_OP_CREATE, .mutate = s->mutation, .validate = !s->mutation, .inventory = inv, .known = decode.known};
    gpa_verdict_t v;
    ck_assert_int_eq(gpa_check(&a, cfg, obj, &opts, &v, &err), 0);
    int hit = 0;
    if (s->mutation) {
        for (size_t i = 0; i < v.mutations.len; i++)
            hit |= strcmp(v.mutations.items[i], s->id) == 0;
    } else {
        for (size_t i = 0; i < v.violations.len; i++)
            hit |= strcmp(v.violations.items[i].rule, s->id) == 0;
    }
    gpa_config_release(cfg);
    gpa_arena_dispose(&a);
    return hit;
}

START_TEST(examples_do_what_they_say)
{
    size_t ran = 0;
    for (size_t i = 0; i < nsections; i++) {
        const section_t *s = &sections[i];
        gpa_inventory_t *inv = NULL;
        gpa_config_t *section_cfg = NULL;
        int fires = 0, passes = 0;
        for (size_t k = 0; k < s->nexamples; k++) {
            gpa_error_t err = {0};
            gpa_error_init(&err, "docs/rules.md");
            if (strcmp(s->examples[k].kind, "config") == 0) {
                ck_assert_msg(
                    gpa_config_parse(s->examples[k].text, strlen(s->examples[k].text), "docs/rules.md", &section_cfg, &err) == 0,
                    "docs/rules.md:%d: %s", s->examples[k].line, err.message);
                continue;
            }
            if (strcmp(s->examples[k].kind, "inventory") != 0)
                continue;
            inv = gpa_inventory_new();
            ck_assert_msg(gpa_inventory_parse(inv, s->examples[k].text, strlen(s->examples[k].text), "docs/rules.md", &err) == 0,
                          "docs/rules.md:%d: %s", s->examples[k].line, err.message);
        }
        for (size_t k = 0; k < s->nexamples; k++) {
            const example_t *ex = &s->examples[k];
            if (strcmp(ex->kind, "inventory") == 0 || strcmp(ex->kind, "config") == 0)
                continue;
            int want = strcmp(ex->kind, "fires") == 0;
            ck_assert_msg(want || strcmp(ex->kind, "passes") == 0, "docs/rules.md:%d: unknown example kind '%s'", ex->line,
                          ex->kind);
            ck_assert_msg(run_example(s, ex, inv, section_cfg) == want, "docs/rules.md:%d: the %s example of %s %s", ex->line,
                          ex->kind, s->id, want ? "does not fire" : "fires");
            fires += want;
            passes += !want;
            ran++;
        }
        ck_assert_msg(fires >= 1 && passes >= 1, "docs/rules.md:%d: %s needs an example that fires and one that passes", s->line,
                      s->id);
        gpa_inventory_release(inv);
        gpa_config_release(section_cfg);
    }
    ck_assert_uint_ge(ran, 2 * (gpa_nrules + gpa_nmutations));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("docs_rules");
    TCase *tc = tcase_create("docs");
    tcase_add_unchecked_fixture(tc, setup, NULL);
    tcase_add_test(tc, every_rule_and_mutation_has_a_section);
    tcase_add_test(tc, readme_lists_the_same_ids);
    tcase_add_test(tc, every_resource_is_documented);
    tcase_add_test(tc, every_kind_is_documented);
    tcase_add_test(tc, examples_do_what_they_say);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}

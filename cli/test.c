/*
 * gpuadmit test [--run REGEX] [-o text|json|junit] [--allow-read DIR]... PATH...
 *
 * Finds the suites under PATH (cli/suite/suite.h), runs the selected cases through the engine and prints a table,
 * JSON or JUnit XML. Exit 0 when every case passes, 1 when any fails, 2 when a suite cannot be read or no case
 * was found (an empty selection would otherwise pass a CI job that tests nothing).
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opts.h"
#include "report/report.h"
#include "suite/suite.h"

typedef enum en_format_t {
    FORMAT_TEXT,
    FORMAT_JSON,
    FORMAT_JUNIT,
} format_t;

typedef struct st_options_t {
    gpa_verb_opts_t common; /* -o */
    format_t format;
    const char *run;
    char **paths; /* argv's, after the options */
    size_t npaths;
    const char **allow; /* --allow-read DIR: folders every suite may read from besides its own */
    size_t nallow;
} options_t;

typedef struct st_run_t {
    gpa_suite_t *suites;
    size_t nsuites;
    GPA_VEC(gpa_suite_result_t) results;
    size_t passed, failed, errors;
    int unreadable;
    gpa_arena_t arena; /* the results */
} run_t;

static const char usage[] = "usage: gpuadmit test [--run REGEX] [-o text|json|junit] [--allow-read DIR]... PATH...\n"
                            "\n"
                            "Runs the test suites (files named " GPA_SUITE_FILE_NAME ") found under each PATH.\n"
                            "PATH: suite files, or directories searched recursively for them.\n"
                            "\n"
                            "  --run REGEX       only the cases whose name or suite/case matches (POSIX ERE)\n"
                            "  -o, --output FMT  text (a table, default), json, or junit (JUnit XML)\n"
                            "  --allow-read DIR  a suite may also read files under DIR (repeatable; by default only\n"
                            "                    files under the suite file's own directory are read)\n"
                            "\n"
                            "exit: 0 all passed, 1 a case failed, 2 usage error, no case found or a suite could not be read\n";

enum { OPT_RUN = GPA_OPT_OWN, OPT_ALLOW_READ };
/* -o's names, in format_t's order */
static const char *const formats[] = {"text", "json", "junit", NULL};

/* Returns 0, 1 for --help, or -1 (reported) for a usage error. */
static int parse_args(int argc, char **argv, options_t *o)
{
    static const struct option own[] = {
        {"run", required_argument, NULL, OPT_RUN}, {"allow-read", required_argument, NULL, OPT_ALLOW_READ}, {NULL, 0, NULL, 0}};
    gpa_verb_opts_init(&o->common, GPA_OPT_OUTPUT, own, "text");
    o->allow = gpa_xcalloc((size_t)argc + 1, sizeof(*o->allow));
    int c;
    while ((c = gpa_verb_getopt(argc, argv, &o->common)) != -1) {
        if (c == OPT_RUN)
            o->run = optarg;
        else if (c == OPT_ALLOW_READ)
            o->allow[o->nallow++] = optarg;
        else
            return c == 'h' ? 1 : (fputs(usage, stderr), -1);
    }
    if (gpa_verb_opts_check("gpuadmit test", &o->common, formats, 0, argc) != 0)
        return -1;
    if (optind >= argc) {
        fprintf(stderr, "gpuadmit test: no PATH given\n%s", usage);
        return -1;
    }
    o->format = (format_t)gpa_verb_output(&o->common, formats);
    o->paths = argv + optind;
    o->npaths = (size_t)(argc - optind);
    return 0;
}

/* ---- loading and running ---- */

static void report_error(const gpa_error_t *err)
{
    char msg[1024];
    if (err->source == NULL && err->line == 0)
        snprintf(msg, sizeof(msg), "%s", err->message); /* the message names the path itself */
    else
        gpa_error_format(err, msg, sizeof(msg));
    fprintf(stderr, "gpuadmit test: %s\n", msg);
}

static void load_suite(run_t *r, const options_t *o, const char *file)
{
    gpa_error_t err = {0};
    gpa_suite_t s;
    if (gpa_suite_load_from(file, o->allow, o->nallow, &s, &err) != 0) {
        report_error(&err);
        gpa_suite_dispose(&s);
        r->unreadable = 1;
        return;
    }
    r->suites = gpa_xrealloc(r->suites, (r->nsuites + 1) * sizeof(*r->suites));
    r->suites[r->nsuites++] = s;
}

static void load_all(run_t *r, const options_t *o)
{
    for (size_t i = 0; i < o->npaths; i++) {
        char **files = NULL;
        size_t nfiles = 0;
        gpa_error_t err = {0};
        if (gpa_suite_find(o->paths[i], &files, &nfiles, &err) != 0) {
            report_error(&err);
            r->unreadable = 1;
        }
        for (size_t k = 0; k < nfiles; k++) {
            load_suite(r, o, files[k]);
            free(files[k]);
        }
        free(files);
    }
}

static int selected(const regex_t *re, const gpa_suite_t *s, const gpa_suite_case_t *tc, gpa_arena_t *a)
{
    if (re == NULL)
        return 1;
    const char *full = gpa_arena_printf(a, "%s/%s", s->name, tc->name);
    return regexec(re, tc->name, 0, NULL, 0) == 0 || regexec(re, full, 0, NULL, 0) == 0;
}

static void run_all(run_t *r, const regex_t *re)
{
    for (size_t i = 0; i < r->nsuites; i++) {
        const gpa_suite_t *s = &r->suites[i];
        for (size_t k = 0; k < s->ncases; k++) {
            if (!selected(re, s, &s->cases[k], &r->arena))
                continue;
            gpa_suite_result_t *res = gpa_vec_push(&r->arena, &r->results);
            gpa_suite_run_case(&r->arena, s, &s->cases[k], res);
            r->passed += res->passed;
            r->failed += !res->passed;
            r->errors += res->error;
        }
    }
}

/* ---- text ---- */

/* The width of a column: its longest cell as printed (escaped), at most 60. */
static int column_width(run_t *r, int col, int min)
{
    size_t w = (size_t)min;
    for (size_t i = 0; i < r->results.len; i++) {
        const gpa_suite_result_t *x = &r->results.items[i];
        const char *cell = col == 0 ? x->suite->name : col == 1 ? x->tc->name : col == 2 ? x->expected : x->got;
        size_t n = strlen(gpa_report_printable(&r->arena, cell));
        if (n > w)
            w = n;
    }
    return w > 60 ? 60 : (int)w;
}

static void print_failure(FILE *out, const gpa_suite_result_t *x)
{
    fputc('\n', out);
    gpa_report_line(out, "--- FAIL: %s/%s (%s:%u, %s)", x->suite->name, x->tc->name, x->suite->file, x->tc->line,
                    x->tc->object_desc);
    for (size_t i = 0; i < x->differences.len; i++)
        gpa_report_line(out, "    %s", x->differences.items[i]);
    for (size_t i = 0; i < x->findings.len; i++)
        gpa_report_line(out, "    finding: %s", x->findings.items[i]);
    for (size_t i = 0; i < x->warnings.len; i++)
        gpa_report_line(out, "    warning: %s", x->warnings.items[i]);
    for (size_t i = 0; i < x->mutations.len; i++)
        gpa_report_line(out, "    mutation: %s", x->mutations.items[i]);
}

static void print_text(FILE *out, run_t *r)
{
    int w[4] = {column_width(r, 0, 5), column_width(r, 1, 4), column_width(r, 2, 8), column_width(r, 3, 3)};
    fprintf(out, "%-*s  %-*s  %-*s  %-*s  RESULT\n", w[0], "SUITE", w[1], "CASE", w[2], "EXPECTED", w[3], "GOT");
    for (size_t i = 0; i < r->results.len; i++) {
        const gpa_suite_result_t *x = &r->results.items[i];
        gpa_report_line(out, "%-*s  %-*s  %-*s  %-*s  %s", w[0], gpa_report_printable(&r->arena, x->suite->name), w[1],
                        gpa_report_printable(&r->arena, x->tc->name), w[2], x->expected, w[3], x->got,
                        x->passed  ? "PASS"
                        : x->error ? "ERROR"
                                   : "FAIL");
    }
    for (size_t i = 0; i < r->results.len; i++)
        if (!r->results.items[i].passed)
            print_failure(out, &r->results.items[i]);
    fprintf(out, "%s%zu passed, %zu failed\n", r->failed ? "\n" : "", r->passed, r->failed);
}

/* ---- JSON ---- */

static void json_str(gpa_buf_t *b, const char *s)
{
    gpa_buf_json_string(b, s, strlen(s));
}

static void json_strs(gpa_buf_t *b, const char *key, const gpa_suite_strs_t *x)
{
    gpa_buf_printf(b, ",\"%s\":[", key);
    for (size_t i = 0; i < x->len; i++) {
        if (i)
            gpa_buf_putc(b, ',');
        json_str(b, x->items[i]);
    }
    gpa_buf_putc(b, ']');
}

static void json_result(gpa_buf_t *b, const gpa_suite_result_t *x)
{
    const gpa_suite_expect_t *e = &x->tc->expect;
    gpa_buf_puts(b, "{\"suite\":");
    json_str(b, x->suite->name);
    gpa_buf_puts(b, ",\"file\":");
    json_str(b, x->suite->file);
    gpa_buf_printf(b, ",\"line\":%u,\"case\":", x->tc->line);
    json_str(b, x->tc->name);
    gpa_buf_printf(b, ",\"passed\":%s,\"expected\":{\"allowed\":%s", x->passed ? "true" : "false", e->allowed ? "true" : "false");
    if (e->has_rules)
        json_strs(b, "rules", &e->rules);
    json_strs(b, "warnings", &e->warnings);
    if (e->has_mutations)
        json_strs(b, "mutations", &e->mutations);
    gpa_buf_puts(b, "},\"got\":");
    if (x->error) {
        gpa_buf_puts(b, "null");
    } else {
        gpa_buf_printf(b, "{\"allowed\":%s", x->allowed ? "true" : "false");
        json_strs(b, "rules", &x->rules);
        json_strs(b, "warnings", &x->warnings);
        json_strs(b, "mutations", &x->mutations);
        json_strs(b, "findings", &x->findings);
        gpa_buf_putc(b, '}');
    }
    json_strs(b, "differences", &x->differences);
    gpa_buf_putc(b, '}');
}

static void print_json(FILE *out, const run_t *r)
{
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_buf_printf(&b, "{\"passed\":%zu,\"failed\":%zu,\"results\":[", r->passed, r->failed);
    for (size_t i = 0; i < r->results.len; i++) {
        gpa_buf_puts(&b, i ? ",\n" : "\n");
        json_result(&b, &r->results.items[i]);
    }
    gpa_buf_puts(&b, "\n]}\n");
    fwrite(b.base, 1, b.len, out);
    gpa_buf_dispose(&b);
}

/* ---- JUnit XML ---- */

/* Text for an attribute or element: markup escaped, characters XML 1.0 forbids replaced by U+FFFD. */
static void xml_escape(gpa_buf_t *b, const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    while (*s) {
        unsigned cp = 0;
        size_t n = gpa_utf8_char(s, &cp);
        int allowed = n != 0 && (cp >= 0x20 || cp == '\t' || cp == '\n' || cp == '\r') && cp != 0xFFFE && cp != 0xFFFF;
        if (!allowed)
            gpa_buf_puts(b, "\xEF\xBF\xBD");
        else if (cp == '&' || cp == '<' || cp == '>' || cp == '"' || cp == '\'' || cp < 0x20)
            gpa_buf_printf(b, "&#%u;", cp);
        else
            gpa_buf_append(b, s, n);
        s += n != 0 ? n : 1;
    }
}

static void junit_case(gpa_buf_t *b, const gpa_suite_result_t *x)
{
    gpa_buf_puts(b, "    <testcase name=\"");
    xml_escape(b, x->tc->name);
    gpa_buf_puts(b, "\" classname=\"");
    xml_escape(b, x->suite->name);
    gpa_buf_puts(b, "\" file=\"");
    xml_escape(b, x->suite->file);
    gpa_buf_printf(b, "\" line=\"%u\"", x->tc->line);
    if (x->passed) {
        gpa_buf_puts(b, "/>\n");
        return;
    }
    const char *tag = x->error ? "error" : "failure";
    gpa_buf_printf(b, ">\n      <%s message=\"", tag);
    xml_escape(b, x->differences.len ? x->differences.items[0] : "failed");
    gpa_buf_printf(b, "\" type=\"%s\">", x->error ? "engine-error" : "expectation");
    gpa_buf_t text = GPA_BUF_INIT;
    gpa_buf_printf(&text, "expected: %s\ngot: %s\n", x->expected, x->got);
    for (size_t i = 0; i < x->differences.len; i++)
        gpa_buf_printf(&text, "%s\n", x->differences.items[i]);
    for (size_t i = 0; i < x->findings.len; i++)
        gpa_buf_printf(&text, "finding: %s\n", x->findings.items[i]);
    for (size_t i = 0; i < x->warnings.len; i++)
        gpa_buf_printf(&text, "warning: %s\n", x->warnings.items[i]);
    xml_escape(b, text.base);
    gpa_buf_dispose(&text);
    gpa_buf_printf(b, "</%s>\n    </testcase>\n", tag);
}

static void junit_suite(gpa_buf_t *b, const run_t *r, const gpa_suite_t *s)
{
    size_t tests = 0, failures = 0, errors = 0;
    for (size_t i = 0; i < r->results.len; i++) {
        const gpa_suite_result_t *x = &r->results.items[i];
        if (x->suite != s)
            continue;
        tests++;
        failures += !x->passed && !x->error;
        errors += x->error;
    }
    if (tests == 0)
        return;
    gpa_buf_puts(b, "  <testsuite name=\"");
    xml_escape(b, s->name);
    gpa_buf_printf(b, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" file=\"", tests, failures, errors);
    xml_escape(b, s->file);
    gpa_buf_puts(b, "\">\n");
    for (size_t i = 0; i < r->results.len; i++)
        if (r->results.items[i].suite == s)
            junit_case(b, &r->results.items[i]);
    gpa_buf_puts(b, "  </testsuite>\n");
}

static void print_junit(FILE *out, const run_t *r)
{
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    gpa_buf_printf(&b, "<testsuites name=\"gpuadmit\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n", r->results.len,
                   r->failed - r->errors, r->errors);
    for (size_t i = 0; i < r->nsuites; i++)
        junit_suite(&b, r, &r->suites[i]);
    gpa_buf_puts(&b, "</testsuites>\n");
    fwrite(b.base, 1, b.len, out);
    gpa_buf_dispose(&b);
}

/* ---- the verb ---- */

static int finish(run_t *r, const options_t *o)
{
    if (r->results.len == 0) {
        if (r->unreadable)
            return GPA_EXIT_USAGE; /* already reported */
        fprintf(stderr, "gpuadmit test: no test found%s%s\n", o->run != NULL ? " matching " : "", o->run != NULL ? o->run : "");
        return GPA_EXIT_USAGE;
    }
    if (o->format == FORMAT_JSON)
        print_json(stdout, r);
    else if (o->format == FORMAT_JUNIT)
        print_junit(stdout, r);
    else
        print_text(stdout, r);
    fflush(stdout);
    return r->unreadable ? GPA_EXIT_USAGE : r->failed ? GPA_EXIT_DENIED : GPA_EXIT_OK;
}

static int run_selected(run_t *r, const options_t *o)
{
    regex_t re;
    if (o->run != NULL) {
        int rc = regcomp(&re, o->run, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char msg[256];
            regerror(rc, &re, msg, sizeof(msg));
            fprintf(stderr, "gpuadmit test: --run %s: %s\n", o->run, msg);
            return GPA_EXIT_USAGE;
        }
    }
    load_all(r, o);
    run_all(r, o->run != NULL ? &re : NULL);
    if (o->run != NULL)
        regfree(&re);
    return finish(r, o);
}

int gpa_cmd_test(int argc, char **argv)
{
    options_t o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc != 0) {
        free(o.allow);
        if (rc > 0)
            fputs(usage, stdout);
        return rc > 0 ? GPA_EXIT_OK : GPA_EXIT_USAGE;
    }
    run_t r = {0};
    gpa_arena_init(&r.arena);
    rc = run_selected(&r, &o);
    for (size_t i = 0; i < r.nsuites; i++)
        gpa_suite_dispose(&r.suites[i]);
    free(r.suites);
    gpa_arena_dispose(&r.arena);
    free(o.allow);
    return rc;
}

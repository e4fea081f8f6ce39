/*
 * libFuzzer driver for the test-suite reader and runner (cli/suite/suite.c, cli/suite/suite_run.c): `gpuadmit test`.
 * A suite names other files, so each input is written as gpuadmit-test.yaml in a scratch directory beside
 * links to the files of tests/fuzz/suite-files/ (objects, an AdmissionReview, a configuration, an inventory,
 * a patched object), which the seeds name as a real suite would.
 * Invariants: nothing crashes, hangs or leaks; a refused suite says what, in which file and where; every case of
 * an accepted suite runs, with a verdict or an error, and a failed case says what differed.
 * Seeds: tests/fuzz/seeds/suite/ (suites of examples/tests and tests/cases, and the regressions found).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "suite/suite.h"

#ifndef GPA_FUZZ_SUITE_FILES
#error "GPA_FUZZ_SUITE_FILES: the directory of the files the seeds name (tests/fuzz.cmake sets it)"
#endif

static char scratch[] = "/tmp/gpa-fuzz-suite-XXXXXX";
static char suite_path[sizeof(scratch) + 32];

static void cleanup(void)
{
    DIR *d = opendir(scratch);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        char path[sizeof(scratch) + 256 + 2];
        if (e->d_name[0] != '.' && snprintf(path, sizeof(path), "%s/%s", scratch, e->d_name) < (int)sizeof(path))
            unlink(path);
    }
    if (d != NULL)
        closedir(d);
    rmdir(scratch);
}

/* The scratch directory: a link to each of the suite files, removed at exit. */
static void setup(void)
{
    if (mkdtemp(scratch) == NULL)
        abort();
    atexit(cleanup);
    snprintf(suite_path, sizeof(suite_path), "%s/%s", scratch, GPA_SUITE_FILE_NAME);
    DIR *d = opendir(GPA_FUZZ_SUITE_FILES);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        char from[4096], to[sizeof(scratch) + 256 + 2];
        if (e->d_name[0] == '.')
            continue;
        snprintf(from, sizeof(from), "%s/%s", GPA_FUZZ_SUITE_FILES, e->d_name);
        snprintf(to, sizeof(to), "%s/%s", scratch, e->d_name);
        if (symlink(from, to) != 0)
            abort();
    }
    if (d == NULL)
        abort();
    closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (suite_path[0] == '\0')
        setup();
    FILE *f = fopen(suite_path, "wb");
    if (f == NULL || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    gpa_suite_t suite;
    gpa_error_t err = {0};
    if (gpa_suite_load(suite_path, &suite, &err) != 0) {
        if (err.message[0] == '\0' || err.source == NULL)
            abort();
    } else {
        for (size_t i = 0; i < suite.ncases; i++) {
            gpa_arena_t a;
            gpa_arena_init(&a);
            gpa_suite_result_t r;
            gpa_suite_run_case(&a, &suite, &suite.cases[i], &r);
            if (r.got == NULL || r.expected == NULL || (!r.passed && r.differences.len == 0))
                abort();
            gpa_arena_dispose(&a);
        }
    }
    gpa_suite_dispose(&suite);
    return 0;
}

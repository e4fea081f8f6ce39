/*
 * cli/input/load.c: what the CLI and the webhook's loader read by path. Directories with empty folders (listed without
 * sorting an empty list), and the caps: only regular files, never more than GPA_LOAD_MAX_BYTES, a FIFO refused
 * without waiting for a writer.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input/load.h"
#include "run.h"

static char tmpdir[256];

static void setup(void)
{
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/gpa-test-load-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
}

/* tmpdir/name into buf. */
static const char *at(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", tmpdir, name);
    return buf;
}

/* Reads path expecting a refusal; returns the message. */
static const char *refusal(const char *path)
{
    static gpa_error_t err;
    memset(&err, 0, sizeof(err));
    gpa_error_init(&err, path);
    size_t len = 0;
    char *text = gpa_read_file(path, &len, &err);
    ck_assert_ptr_null(text);
    return err.message;
}

START_TEST(test_directory_with_empty_folders)
{
    char p[512];
    ck_assert_int_eq(mkdir(at(p, sizeof(p), "empty"), 0755), 0);
    ck_assert_int_eq(mkdir(at(p, sizeof(p), "b"), 0755), 0);
    ck_assert_int_eq(mkdir(at(p, sizeof(p), "b/empty"), 0755), 0);
    FILE *f = fopen(at(p, sizeof(p), "b/a.yaml"), "w");
    ck_assert_ptr_nonnull(f);
    fputs("kind: List\nitems: []\n", f);
    fclose(f);
    gpa_load_files_t files = {0};
    const char *paths[] = {tmpdir};
    ck_assert_int_eq(gpa_load_files(paths, 1, &files, NULL), 0);
    ck_assert_uint_eq(files.len, 1);
    ck_assert_str_eq(files.items[0], at(p, sizeof(p), "b/a.yaml"));
    gpa_load_files_dispose(&files);
    /* an empty directory alone: nothing, and no error */
    const char *empty[] = {at(p, sizeof(p), "empty")};
    ck_assert_int_eq(gpa_load_files(empty, 1, &files, NULL), 0);
    ck_assert_uint_eq(files.len, 0);
    gpa_load_files_dispose(&files);
}
END_TEST

START_TEST(test_only_regular_files)
{
    char p[512];
    ck_assert_int_eq(mkfifo(at(p, sizeof(p), "fifo"), 0600), 0);
    ck_assert_str_eq(refusal(p), "a FIFO, not a regular file: refused"); /* returns: no writer is waited for */
    ck_assert_str_eq(refusal("/dev/zero"), "a device, not a regular file: refused");
    ck_assert_str_eq(refusal(tmpdir), "a directory, not a regular file: refused");
    /* a symlink to a device is the device */
    ck_assert_int_eq(symlink("/dev/zero", at(p, sizeof(p), "zero.yaml")), 0);
    ck_assert_str_eq(refusal(p), "a device, not a regular file: refused");
}
END_TEST

START_TEST(test_size_cap)
{
    char p[512], want[128];
    FILE *f = fopen(at(p, sizeof(p), "big.yaml"), "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    /* a sparse file one byte over the cap: refused by its size, nothing read */
    ck_assert_int_eq(truncate(p, (off_t)GPA_LOAD_MAX_BYTES + 1), 0);
    snprintf(want, sizeof(want), "%zu bytes, more than the %zu bytes an input may have: refused", GPA_LOAD_MAX_BYTES + 1,
             GPA_LOAD_MAX_BYTES);
    ck_assert_str_eq(refusal(p), want);
    /* a smaller cap, exactly at it and one over */
    ck_assert_int_eq(truncate(p, 10), 0);
    gpa_error_t err = {0};
    size_t len = 0;
    char *text = gpa_read_file_max(p, 10, &len, &err);
    ck_assert_ptr_nonnull(text);
    ck_assert_uint_eq(len, 10);
    ck_assert_int_eq(text[10], '\0');
    free(text);
    ck_assert_ptr_null(gpa_read_file_max(p, 9, &len, &err));
    ck_assert_str_eq(err.message, "10 bytes, more than the 9 bytes an input may have: refused");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("load");
    TCase *tc = tcase_create("load");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_directory_with_empty_folders);
    tcase_add_test(tc, test_only_regular_files);
    tcase_add_test(tc, test_size_cap);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gpa_test_run(suite());
}

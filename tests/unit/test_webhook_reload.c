/*
 * Check tests for webhook/reload.c: which changes of a watched file are seen (size, mtime, inode, the target of
 * a swapped symlink, and a same-size rewrite in place within one timestamp tick), that an untouched file is not
 * reloaded, and that a broken file keeps the previous configuration in force.
 */
#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reload.h"

static char dir[PATH_MAX];
static char cfg_path[PATH_MAX + 32];
static gpa_reload_opts_t opts;
static gpa_snapshot_t snap;

static void setup(void)
{
    snprintf(dir, sizeof(dir), "%s/gpa-reload-XXXXXX", getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cfg_path, sizeof(cfg_path), "%s/config.yaml", dir);
    memset(&snap, 0, sizeof(snap));
}

static void teardown(void)
{
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

/* Writes text into path in place (same inode when it exists: O_TRUNC, no rename). */
static void write_in_place(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    ck_assert_int_eq(close(fd), 0);
}

static void set_mtime(const char *path, struct timespec mtime)
{
    struct timespec times[2] = {mtime, mtime};
    ck_assert_int_eq(utimensat(AT_FDCWD, path, times, 0), 0);
}

static struct timespec mtime_of(const char *path)
{
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    return sb.st_mtim;
}

static ino_t inode_of(const char *path)
{
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    return sb.st_ino;
}

/* Starts watching `path` as the configuration; returns the generation in force. */
static uint64_t start(const char *path)
{
    opts.config = path;
    char err[256];
    if (gpa_reload_init(&opts, NULL, err, sizeof(err)) != 0)
        ck_abort_msg("init: %s", err);
    gpa_reload_refresh(&snap);
    return snap.generation;
}

static int64_t min_memory(void)
{
    gpa_reload_refresh(&snap);
    return snap.config->min_device_memory;
}

START_TEST(unchanged_file_is_not_reloaded)
{
    write_in_place(cfg_path, "minDeviceMemory: 1Gi\n");
    uint64_t gen = start(cfg_path);
    for (int i = 0; i < 3; i++)
        gpa_reload_poll();
    gpa_reload_refresh(&snap);
    ck_assert_uint_eq(snap.generation, gen);
    ck_assert_int_eq(min_memory(), 1LL << 30);
}
END_TEST

START_TEST(size_change_is_reloaded)
{
    write_in_place(cfg_path, "minDeviceMemory: 1Gi\n");
    uint64_t gen = start(cfg_path);
    write_in_place(cfg_path, "minDeviceMemory: 512Mi\n");
    gpa_reload_poll();
    ck_assert_int_eq(min_memory(), 512LL << 20);
    ck_assert_uint_gt(snap.generation, gen);
}
END_TEST

START_TEST(mtime_change_is_reloaded)
{
    write_in_place(cfg_path, "minDeviceMemory: 1Gi\n");
    struct timespec old = {1000000000, 0};
    set_mtime(cfg_path, old);
    start(cfg_path);
    write_in_place(cfg_path, "minDeviceMemory: 2Gi\n");
    set_mtime(cfg_path, (struct timespec){1000000001, 0});
    gpa_reload_poll();
    ck_assert_int_eq(min_memory(), 2LL << 30);
}
END_TEST

START_TEST(replacement_by_rename_is_reloaded)
{
    /* Same size and mtime, new inode: what an editor's atomic save or `kubectl cp` leaves. */
    write_in_place(cfg_path, "minDeviceMemory: 1Gi\n");
    struct timespec t = mtime_of(cfg_path);
    start(cfg_path);
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof(tmp), "%s/new.yaml", dir);
    write_in_place(tmp, "minDeviceMemory: 3Gi\n");
    set_mtime(tmp, t);
    ino_t before = inode_of(cfg_path);
    ck_assert_int_eq(rename(tmp, cfg_path), 0);
    ck_assert_uint_ne(inode_of(cfg_path), before);
    gpa_reload_poll();
    ck_assert_int_eq(min_memory(), 3LL << 30);
}
END_TEST

START_TEST(symlink_swap_is_reloaded)
{
    /* Kubernetes' ConfigMap update: ..data swapped to a new directory. Hard links give both targets the same inode,
     * size and mtime, so only the resolved path tells them apart. */
    char a[PATH_MAX + 32], b[PATH_MAX + 32], fa[PATH_MAX + 48], fb[PATH_MAX + 48], data[PATH_MAX + 32], tmplink[PATH_MAX + 32];
    snprintf(a, sizeof(a), "%s/a", dir);
    snprintf(b, sizeof(b), "%s/b", dir);
    snprintf(fa, sizeof(fa), "%s/config.yaml", a);
    snprintf(fb, sizeof(fb), "%s/config.yaml", b);
    snprintf(data, sizeof(data), "%s/..data", dir);
    snprintf(tmplink, sizeof(tmplink), "%s/..data_tmp", dir);
    ck_assert_int_eq(mkdir(a, 0755), 0);
    ck_assert_int_eq(mkdir(b, 0755), 0);
    write_in_place(fa, "minDeviceMemory: 1Gi\n");
    set_mtime(fa, (struct timespec){1000000000, 0});
    ck_assert_int_eq(link(fa, fb), 0);
    ck_assert_int_eq(symlink("a", data), 0);
    ck_assert_int_eq(symlink("..data/config.yaml", cfg_path), 0);
    uint64_t gen = start(cfg_path);
    ck_assert_int_eq(symlink("b", tmplink), 0);
    ck_assert_int_eq(rename(tmplink, data), 0);
    gpa_reload_poll();
    gpa_reload_refresh(&snap);
    ck_assert_uint_gt(snap.generation, gen);
}
END_TEST

START_TEST(same_size_rewrite_within_one_tick_is_reloaded)
{
    /* Rewritten in place, same length, and the file system gave both writes the same timestamp (coarse clock):
     * size, mtime and inode all match what was loaded; only the bytes differ. */
    write_in_place(cfg_path, "minDeviceMemory: 1Gi\n");
    struct timespec t = mtime_of(cfg_path);
    ino_t ino = inode_of(cfg_path);
    start(cfg_path);
    write_in_place(cfg_path, "minDeviceMemory: 4Gi\n");
    set_mtime(cfg_path, t);
    ck_assert_uint_eq(inode_of(cfg_path), ino);
    gpa_reload_poll();
    ck_assert_int_eq(min_memory(), 4LL << 30);
    /* and once seen, not again */
    uint64_t gen = snap.generation;
    gpa_reload_poll();
    gpa_reload_refresh(&snap);
    ck_assert_uint_eq(snap.generation, gen);
}
END_TEST

START_TEST(broken_file_keeps_previous_config)
{
    write_in_place(cfg_path, "minDeviceMemory: 1Gi\n");
    start(cfg_path);
    write_in_place(cfg_path, "minDeviceMemory: [oops\n");
    gpa_reload_poll();
    ck_assert_int_eq(min_memory(), 1LL << 30);
    write_in_place(cfg_path, "minDeviceMemory: 8Gi\n");
    gpa_reload_poll();
    ck_assert_int_eq(min_memory(), 8LL << 30);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("webhook_reload");
    TCase *tc = tcase_create("detect");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, unchanged_file_is_not_reloaded);
    tcase_add_test(tc, size_change_is_reloaded);
    tcase_add_test(tc, mtime_change_is_reloaded);
    tcase_add_test(tc, replacement_by_rename_is_reloaded);
    tcase_add_test(tc, symlink_swap_is_reloaded);
    tcase_add_test(tc, same_size_rewrite_within_one_tick_is_reloaded);
    tcase_add_test(tc, broken_file_keeps_previous_config);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/*
 * Check tests for webhook/reload.c: which changes of a watched file are seen (size, mtime, inode, the target of
 * a swapped symlink, and a same-size rewrite in place within one timestamp tick), that an untouched file is not
 * reloaded, that a broken file keeps the previous configuration in force, and that an inventory directory is
 * watched file by file (a file changed, added or removed reloads it). The loader is the CLI's (cli/input/load.h), as
 * `gpuadmit serve` passes it.
 */
#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input/load.h"
#include "reload.h"
#include "run.h"

static char dir[PATH_MAX];
static char cfg_path[PATH_MAX + 32];
static gpa_reload_opts_t opts;
static gpa_snapshot_t snap;

/* ---- the loader: cli/input/load.h, the first error into err ---- */

static void first_error(void *ctx, const gpa_error_t *err)
{
    char *buf = ctx;
    if (buf[0] == '\0')
        gpa_error_format(err, buf, 256);
}

static int load_files(void *ctx, const char *const *paths, size_t n, char ***files, size_t *nfiles, char *err, size_t size)
{
    (void)ctx, (void)size;
    err[0] = '\0';
    gpa_load_report_t rep = {first_error, err, NULL};
    gpa_load_files_t list = {0};
    if (gpa_load_files(paths, n, &list, &rep) != 0) {
        gpa_load_files_dispose(&list);
        return -1;
    }
    *files = list.items;
    *nfiles = list.len;
    return 0;
}

static gpa_config_t *load_config(void *ctx, const char *path, char *err, size_t size)
{
    (void)ctx, (void)size;
    err[0] = '\0';
    gpa_load_report_t rep = {first_error, err, NULL};
    gpa_config_t *cfg = NULL;
    return gpa_load_config(path, &cfg, &rep) == 0 ? cfg : NULL;
}

static gpa_inventory_t *load_inventory(void *ctx, const gpa_config_t *cfg, const char *const *files, size_t n, char *err,
                                       size_t size)
{
    (void)ctx, (void)size;
    err[0] = '\0';
    gpa_load_report_t rep = {first_error, err, NULL};
    gpa_inventory_t *inv = NULL;
    return gpa_load_inventory_files_with(cfg, files, n, &inv, &rep) == 0 ? inv : NULL;
}

static const gpa_reload_loader_t loader = {load_files, load_config, load_inventory, NULL};

static void setup(void)
{
    snprintf(dir, sizeof(dir), "%s/gpa-reload-XXXXXX", getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cfg_path, sizeof(cfg_path), "%s/config.yaml", dir);
    memset(&snap, 0, sizeof(snap));
    memset(&opts, 0, sizeof(opts));
    opts.loader = &loader;
}

static void teardown(void)
{
    gpa_reload_forget(&snap);
    gpa_reload_dispose();
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

/* ---- an inventory directory ---- */

static char inv_dir[PATH_MAX + 32];
static const char *inv_paths[1] = {inv_dir};

/* dir/inventory/<name>: one compact node named after the file. */
static void write_node(const char *name, const char *node)
{
    char path[PATH_MAX + 128], text[256];
    snprintf(path, sizeof(path), "%s/%s", inv_dir, name);
    snprintf(text, sizeof(text), "kind: GPUInventory\nnodes:\n- name: %s\n  gpus: {count: 1, memory: 16Gi}\n", node);
    write_in_place(path, text);
}

/* Starts watching the inventory directory (and no configuration); returns the generation in force. */
static uint64_t start_inventory(void)
{
    opts.inventory = inv_paths;
    opts.ninventory = 1;
    char err[256];
    if (gpa_reload_init(&opts, NULL, err, sizeof(err)) != 0)
        ck_abort_msg("init: %s", err);
    gpa_reload_refresh(&snap);
    return snap.generation;
}

static size_t node_count(void)
{
    gpa_reload_refresh(&snap);
    ck_assert_ptr_nonnull(snap.inventory);
    size_t n;
    gpa_inventory_nodes(snap.inventory, &n);
    return n;
}

static void setup_inventory(void)
{
    setup();
    snprintf(inv_dir, sizeof(inv_dir), "%s/inventory", dir);
    ck_assert_int_eq(mkdir(inv_dir, 0755), 0);
    write_node("a.yaml", "node-a");
    write_node("notes.txt", "ignored"); /* not a manifest: not read, not watched */
}

START_TEST(inventory_directory_is_loaded)
{
    write_node("b.json", "node-b");
    start_inventory();
    ck_assert_uint_eq(node_count(), 2);
    ck_assert_ptr_nonnull(gpa_inventory_find(snap.inventory, "node-b"));
    ck_assert_ptr_null(gpa_inventory_find(snap.inventory, "ignored"));
}
END_TEST

START_TEST(inventory_file_added_changed_removed_is_reloaded)
{
    uint64_t gen = start_inventory();
    ck_assert_uint_eq(node_count(), 1);
    gpa_reload_poll();
    gpa_reload_refresh(&snap);
    ck_assert_uint_eq(snap.generation, gen);
    /* added, one level down */
    char sub[PATH_MAX + 48];
    snprintf(sub, sizeof(sub), "%s/more", inv_dir);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    write_node("more/c.yml", "node-c");
    gpa_reload_poll();
    ck_assert_uint_eq(node_count(), 2);
    /* changed in place: the same size, the same timestamp */
    char a[PATH_MAX + 48];
    snprintf(a, sizeof(a), "%s/a.yaml", inv_dir);
    struct timespec t = mtime_of(a);
    write_node("a.yaml", "node-z");
    set_mtime(a, t);
    gpa_reload_poll();
    ck_assert_uint_eq(node_count(), 2);
    ck_assert_ptr_nonnull(gpa_inventory_find(snap.inventory, "node-z"));
    /* removed */
    ck_assert_int_eq(unlink(a), 0);
    gpa_reload_poll();
    ck_assert_uint_eq(node_count(), 1);
    ck_assert_ptr_nonnull(gpa_inventory_find(snap.inventory, "node-c"));
    /* a file that is not a manifest changes nothing */
    gen = snap.generation;
    write_node("notes.txt", "still-ignored");
    gpa_reload_poll();
    gpa_reload_refresh(&snap);
    ck_assert_uint_eq(snap.generation, gen);
}
END_TEST

START_TEST(inventory_directory_gone_keeps_previous)
{
    start_inventory();
    char a[PATH_MAX + 48];
    snprintf(a, sizeof(a), "%s/a.yaml", inv_dir);
    ck_assert_int_eq(unlink(a), 0);
    ck_assert_int_eq(rename(inv_dir, cfg_path), 0); /* the directory is gone */
    gpa_reload_poll();
    ck_assert_uint_eq(node_count(), 1);
    ck_assert_ptr_nonnull(gpa_inventory_find(snap.inventory, "node-a"));
    ck_assert_int_eq(rename(cfg_path, inv_dir), 0); /* back, empty of manifests */
    gpa_reload_poll();
    ck_assert_uint_eq(node_count(), 0);
}
END_TEST

START_TEST(inventory_configmap_directory_reads_each_file_once)
{
    /* What the kubelet mounts for a ConfigMap: inventory.yaml -> ..data/inventory.yaml, ..data -> ..2024_x. */
    char ts[PATH_MAX + 48], data[PATH_MAX + 48], link_path[PATH_MAX + 48];
    snprintf(ts, sizeof(ts), "%s/..2024_01_01", inv_dir);
    snprintf(data, sizeof(data), "%s/..data", inv_dir);
    snprintf(link_path, sizeof(link_path), "%s/inventory.yaml", inv_dir);
    ck_assert_int_eq(mkdir(ts, 0755), 0);
    write_node("..2024_01_01/inventory.yaml", "node-cm");
    ck_assert_int_eq(symlink("..2024_01_01", data), 0);
    ck_assert_int_eq(symlink("..data/inventory.yaml", link_path), 0);
    start_inventory();
    ck_assert_uint_eq(node_count(), 2); /* node-a and node-cm, the latter once */
}
END_TEST

/* The inventory is read with the configuration in force: a new configuration that renames HAMi's resources reloads
 * it, so the running HAMi Pod that held nothing under the default names now holds its vGPU. */
START_TEST(new_configuration_reloads_the_inventory)
{
    char path[PATH_MAX + 48];
    snprintf(path, sizeof(path), "%s/hami.yaml", inv_dir);
    write_in_place(path, "kind: Node\nmetadata:\n  name: h\n  annotations:\n    hami.io/node-nvidia-register: "
                         "'[{\"id\":\"GPU-0\",\"count\":10,\"devmem\":23028,\"devcore\":100,\"type\":\"NVIDIA A10\","
                         "\"health\":true}]'\n---\nkind: Pod\nmetadata:\n  name: p\n  namespace: ml\n  annotations:\n"
                         "    hami.io/vgpu-devices-allocated: 'GPU-0,NVIDIA,4000,20:;'\nspec:\n  nodeName: h\n  containers:\n"
                         "  - {name: c, resources: {limits: {example.com/vgpu: 1, example.com/vgpu-memory: 4000}}}\n"
                         "status: {phase: Running}\n");
    write_in_place(cfg_path, "minDeviceMemory: 1Gi\n");
    opts.config = cfg_path;
    uint64_t gen = start_inventory();
    const gpa_node_t *h = gpa_inventory_find(snap.inventory, "h");
    ck_assert_ptr_nonnull(h);
    ck_assert_int_eq(h->gpus[0].memory_used, 0);
    write_in_place(cfg_path, "hami: {resourceCountName: example.com/vgpu, resourceMemoryName: example.com/vgpu-memory}\n");
    set_mtime(cfg_path, (struct timespec){1, 0});
    gpa_reload_poll();
    gpa_reload_refresh(&snap);
    ck_assert_uint_gt(snap.generation, gen);
    ck_assert_str_eq(snap.config->hami.device[GPA_HAMI_NVIDIA].name[GPA_HAMI_COUNT], "example.com/vgpu");
    h = gpa_inventory_find(snap.inventory, "h");
    ck_assert_int_eq(h->gpus[0].memory_used, 4000LL << 20);
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
    TCase *inv = tcase_create("inventory_directory");
    tcase_add_checked_fixture(inv, setup_inventory, teardown);
    tcase_add_test(inv, inventory_directory_is_loaded);
    tcase_add_test(inv, inventory_file_added_changed_removed_is_reloaded);
    tcase_add_test(inv, inventory_directory_gone_keeps_previous);
    tcase_add_test(inv, inventory_configmap_directory_reads_each_file_once);
    tcase_add_test(inv, new_configuration_reloads_the_inventory);
    suite_add_tcase(s, inv);
    return gpa_test_run(s);
}

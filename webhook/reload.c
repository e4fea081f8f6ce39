#include "reload.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/arena.h"
#include "base/hash.h"
#include "base/error.h"
#include "log.h"
#include "metrics.h"

/*
 * A rewrite in place that keeps the size and falls within one tick of the file system's clock leaves size, mtime
 * and inode as they were. So while a file's mtime is recent (within SETTLE_SECONDS of the wall clock when it was
 * last looked at), its bytes are hashed on every poll and compared; once a hash was taken that long after the
 * mtime, any later write must move the mtime, and stat() alone decides again. Large inventories are thus read
 * again only in the seconds after they change.
 */
#define SETTLE_SECONDS 2

/* What a path looked like when last loaded; any difference means "reload". */
typedef struct st_filestate_t {
    int exists;
    int settled; /* mtime old enough that stat() alone tells a change; else `hash` is of the bytes */
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    uint64_t hash;
    char real[PATH_MAX];
} filestate_t;

typedef struct st_watch_t {
    const char *path;
    filestate_t seen;
} watch_t;

static struct {
    pthread_mutex_t lock; /* every retain and release of config and inventory */
    gpa_config_t *config;
    gpa_inventory_t *inventory;
    atomic_uint_least64_t generation;
    const gpa_reload_opts_t *opts;
    gpa_tls_t *tls;
    watch_t config_w, cert_w, key_w;
    watch_t *inventory_w; /* the inventory's files as last listed; each path new */
    size_t ninventory_w;
    int inventory_listed; /* whether that list could be made */
} st = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* FNV-1a over the file's bytes; 0 when it cannot be read (so two failed reads compare equal). */
static uint64_t hash_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        return 0;
    uint64_t h = GPA_HASH_START;
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
        h = gpa_hash_bytes(h, buf, n);
    int bad = ferror(fp);
    fclose(fp);
    return bad ? 0 : h;
}

/* Whether a hash taken now, after `mtime`, settles the file: a write from now on gets a later mtime. */
static int settled_now(const struct timespec *mtime)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return now.tv_sec - mtime->tv_sec >= SETTLE_SECONDS;
}

static void observe(const char *path, filestate_t *fs)
{
    struct stat sb;
    memset(fs, 0, sizeof(*fs));
    fs->settled = 1;
    if (stat(path, &sb) != 0)
        return;
    fs->exists = 1;
    fs->dev = sb.st_dev;
    fs->ino = sb.st_ino;
    fs->size = sb.st_size;
    fs->mtime = sb.st_mtim;
    if (realpath(path, fs->real) == NULL)
        fs->real[0] = '\0';
}

/* Whether the file differs from what was last seen; records the new state either way. */
static int changed(watch_t *w)
{
    filestate_t now;
    observe(w->path, &now);
    int diff = now.exists != w->seen.exists || now.dev != w->seen.dev || now.ino != w->seen.ino || now.size != w->seen.size ||
               now.mtime.tv_sec != w->seen.mtime.tv_sec || now.mtime.tv_nsec != w->seen.mtime.tv_nsec ||
               strcmp(now.real, w->seen.real) != 0;
    if (now.exists && (diff || !w->seen.settled)) {
        /* The clock is read before the bytes: a write after that instant moves the mtime past a settled one. */
        now.settled = settled_now(&now.mtime);
        now.hash = hash_file(w->path);
        if (!diff)
            diff = now.hash != w->seen.hash;
    }
    w->seen = now;
    return diff;
}

static gpa_config_t *load_config(char *err, size_t errsize)
{
    if (st.opts->config == NULL)
        return gpa_config_default();
    const gpa_reload_loader_t *l = st.opts->loader;
    return l->config(l->ctx, st.opts->config, err, errsize);
}

static void forget_inventory_files(void)
{
    for (size_t i = 0; i < st.ninventory_w; i++)
        free((char *)st.inventory_w[i].path);
    free(st.inventory_w);
    st.inventory_w = NULL;
    st.ninventory_w = 0;
}

/*
 * Lists the inventory's files again; whether the list or any file in it changed since the last look (a list
 * that cannot be made counts as a change once, when it first fails). Records what it saw either way.
 */
static int inventory_changed(char *err, size_t errsize)
{
    const gpa_reload_loader_t *l = st.opts->loader;
    char **files = NULL;
    size_t n = 0;
    int listed = l->files(l->ctx, st.opts->inventory, st.opts->ninventory, &files, &n, err, errsize) == 0;
    int same = listed == st.inventory_listed && n == st.ninventory_w;
    for (size_t i = 0; same && i < n; i++)
        same = strcmp(files[i], st.inventory_w[i].path) == 0;
    if (!same) {
        forget_inventory_files();
        st.inventory_w = gpa_xcalloc(n + 1, sizeof(watch_t));
        for (size_t i = 0; i < n; i++) {
            st.inventory_w[i].path = files[i];
            changed(&st.inventory_w[i]);
        }
        st.ninventory_w = n;
        st.inventory_listed = listed;
        free(files);
        return 1;
    }
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        any |= changed(&st.inventory_w[i]); /* no short circuit: every file's new state is recorded */
        free(files[i]);
    }
    free(files);
    return any;
}

/* Every inventory file into one new inventory, read with cfg; NULL with err when any fails (nothing half-loaded). */
static gpa_inventory_t *load_inventory(const gpa_config_t *cfg, char *err, size_t errsize)
{
    if (!st.inventory_listed)
        return NULL; /* err says why, from inventory_changed() */
    const char **files = gpa_xcalloc(st.ninventory_w + 1, sizeof(*files));
    for (size_t i = 0; i < st.ninventory_w; i++)
        files[i] = st.inventory_w[i].path;
    const gpa_reload_loader_t *l = st.opts->loader;
    gpa_inventory_t *inv = l->inventory(l->ctx, cfg, files, st.ninventory_w, err, errsize);
    free(files);
    return inv;
}

/* Puts a new pair in force (either may be NULL: keep that one) and moves the generation on. */
static void install(gpa_config_t *cfg, gpa_inventory_t *inv)
{
    pthread_mutex_lock(&st.lock);
    if (cfg != NULL) {
        gpa_config_release(st.config);
        st.config = cfg;
    }
    if (inv != NULL) {
        gpa_inventory_release(st.inventory);
        st.inventory = inv;
    }
    atomic_fetch_add(&st.generation, 1);
    pthread_mutex_unlock(&st.lock);
}

void gpa_reload_set_inventory(gpa_inventory_t *inv)
{
    pthread_mutex_lock(&st.lock);
    gpa_inventory_release(st.inventory);
    st.inventory = inv;
    atomic_fetch_add(&st.generation, 1);
    pthread_mutex_unlock(&st.lock);
}

gpa_config_t *gpa_reload_config(void)
{
    pthread_mutex_lock(&st.lock);
    gpa_config_t *cfg = st.config != NULL ? gpa_config_retain(st.config) : NULL;
    pthread_mutex_unlock(&st.lock);
    return cfg;
}

int gpa_reload_init(const gpa_reload_opts_t *opts, gpa_tls_t *tls, char *err, size_t errsize)
{
    st.opts = opts;
    st.tls = tls;
    st.config_w.path = opts->config;
    st.cert_w.path = opts->cert;
    st.key_w.path = opts->key;
    if (opts->config != NULL)
        changed(&st.config_w);
    if (opts->cert != NULL) {
        changed(&st.cert_w);
        changed(&st.key_w);
    }
    gpa_config_t *cfg = load_config(err, errsize);
    if (cfg == NULL)
        return -1;
    gpa_inventory_t *inv = NULL;
    if (opts->ninventory != 0) {
        inventory_changed(err, errsize);
        if ((inv = load_inventory(cfg, err, errsize)) == NULL) {
            gpa_config_release(cfg);
            return -1;
        }
    }
    install(cfg, inv);
    return 0;
}

static void log_reload(gpa_reload_kind_t kind, const char *what, const char *path, const char *error)
{
    gpa_metrics_reload(kind, error == NULL);
    gpa_log_line_t *l = gpa_log_begin(error == NULL ? GPA_LOG_INFO : GPA_LOG_ERROR,
                                      error == NULL ? "reloaded" : "reload failed; keeping the previous one");
    gpa_log_str(l, "what", what);
    gpa_log_str(l, "file", path);
    if (error != NULL)
        gpa_log_str(l, "error", error);
    gpa_log_end(l);
}

static void poll_config(void)
{
    if (st.opts->config == NULL || !changed(&st.config_w))
        return;
    char err[768];
    gpa_config_t *cfg = load_config(err, sizeof(err));
    log_reload(GPA_RELOAD_CONFIG, "config", st.opts->config, cfg != NULL ? NULL : err);
    if (cfg == NULL)
        return;
    /* The inventory was decoded with the old configuration's names: read it again with the new one, and put both in
     * force together (an inventory that no longer loads keeps the old one). */
    gpa_inventory_t *inv = NULL;
    if (st.opts->ninventory != 0) {
        char ierr[768] = "";
        inventory_changed(ierr, sizeof(ierr));
        inv = load_inventory(cfg, ierr, sizeof(ierr));
        log_reload(GPA_RELOAD_INVENTORY, "inventory", st.opts->inventory[0], inv != NULL ? NULL : ierr);
    }
    install(cfg, inv);
}

static void poll_inventory(void)
{
    char err[768] = "";
    if (st.opts->ninventory == 0 || !inventory_changed(err, sizeof(err)))
        return;
    gpa_config_t *cfg = gpa_reload_config();
    gpa_inventory_t *inv = load_inventory(cfg, err, sizeof(err));
    gpa_config_release(cfg);
    if (inv != NULL)
        install(NULL, inv);
    log_reload(GPA_RELOAD_INVENTORY, "inventory", st.opts->inventory[0], inv != NULL ? NULL : err);
}

static void poll_certificate(void)
{
    if (st.tls == NULL || st.opts->cert == NULL)
        return;
    int cert = changed(&st.cert_w), key = changed(&st.key_w);
    if (!cert && !key)
        return;
    /* A pair written one file at a time fails the match check in between; the next change retries. */
    char err[768];
    int rc = gpa_tls_reload(st.tls, err, sizeof(err));
    if (rc == 0)
        gpa_metrics_set_cert_not_after(gpa_tls_not_after(st.tls));
    log_reload(GPA_RELOAD_CERTIFICATE, "certificate", st.opts->cert, rc == 0 ? NULL : err);
}

void gpa_reload_poll(void)
{
    poll_certificate();
    poll_config();
    poll_inventory();
}

void gpa_reload_refresh(gpa_snapshot_t *snap)
{
    uint64_t gen = atomic_load_explicit(&st.generation, memory_order_acquire);
    if (gen == snap->generation && snap->config != NULL)
        return;
    pthread_mutex_lock(&st.lock);
    gpa_config_release(snap->config);
    gpa_inventory_release(snap->inventory);
    snap->config = gpa_config_retain(st.config);
    snap->inventory = st.inventory != NULL ? gpa_inventory_retain(st.inventory) : NULL;
    snap->generation = atomic_load(&st.generation);
    pthread_mutex_unlock(&st.lock);
}

void gpa_reload_forget(gpa_snapshot_t *snap)
{
    pthread_mutex_lock(&st.lock);
    gpa_config_release(snap->config);
    gpa_inventory_release(snap->inventory);
    pthread_mutex_unlock(&st.lock);
    memset(snap, 0, sizeof(*snap));
}

void gpa_reload_dispose(void)
{
    pthread_mutex_lock(&st.lock);
    gpa_config_release(st.config);
    gpa_inventory_release(st.inventory);
    st.config = NULL;
    st.inventory = NULL;
    pthread_mutex_unlock(&st.lock);
    forget_inventory_files();
    st.inventory_listed = 0;
}

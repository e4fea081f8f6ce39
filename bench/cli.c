/*
 * gpuadmit-bench-cli: `gpuadmit validate` over large inputs made of the realistic Pod, and the webhook's
 * start-up time, printed next to their goals (docs/performance.md).
 *
 *   gpuadmit-bench-cli REVIEW.json GPUADMIT WORKDIR [PODS...]     (PODS default: 10000 100000)
 *
 * For each count it writes, in WORKDIR, a `kubectl get -o json` List (the Pod of REVIEW.json's request.object,
 * byte for byte as written there, one per line, each with its own name; the List's kind after its items, as
 * kubectl writes it) and a multi-document YAML stream of the same Pods, then runs `GPUADMIT validate -o text`
 * and `-o json` on each with stdout to /dev/null, the child pinned to one CPU. Printed per run: Pods/s and
 * MB/s (best wall time of the rounds), the child's peak RSS (wait4's ru_maxrss), and the ratio to each goal
 * (>= 50,000 Pods/s, <= 64 MB). Last, `GPUADMIT serve` start-up: exec to the first 200 from /readyz.
 * Figures only: nothing here fails on timing. The files are removed at the end.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "document/emit.h"
#include "document/json.h"

#define GOAL_PODS_PER_S 50000.0
#define GOAL_RSS_MB 64.0

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    gpa_buf_t b = GPA_BUF_INIT;
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
        gpa_buf_append(&b, chunk, got);
    fclose(f);
    *len = b.len;
    return gpa_buf_steal(&b);
}

/* Reads the file through once (the page cache then holds it, as it does for every round after the first);
 * returns its size. */
static size_t warm(const char *path)
{
    FILE *f = fopen(path, "rb");
    size_t n = 0, got;
    char chunk[65536];
    while (f != NULL && (got = fread(chunk, 1, sizeof(chunk), f)) > 0)
        n += got;
    if (f != NULL)
        fclose(f);
    return n;
}

/* The realistic Pod: request.object of the review, as its bytes stand in the file, and as a tree. */
typedef struct st_pod_t {
    const char *json; /* not NUL-terminated */
    size_t json_len;
    gpa_value_t *tree;
} pod_t;

static int find_pod(gpa_arena_t *a, const char *review, size_t len, pod_t *pod)
{
    const char *at = strstr(review, "\"object\":");
    if (at == NULL)
        return -1;
    at += strlen("\"object\":");
    while (*at == ' ')
        at++;
    gpa_json_pos_t pos = {1, 1, 0};
    gpa_error_t err = {0};
    gpa_error_init(&err, "review");
    int short_input;
    if (gpa_json_parse_value(a, at, len - (size_t)(at - review), &pos, &pod->tree, &pod->json_len, &short_input, &err) != 0)
        return -1;
    pod->json = at;
    return 0;
}

/* Writes text with `insert` put right after the first `after` (each Pod gets its own name). */
static void put_with_name(FILE *f, const char *text, size_t len, const char *after, const char *insert)
{
    const char *p = memmem(text, len, after, strlen(after));
    size_t head = p != NULL ? (size_t)(p - text) + strlen(after) : len;
    fwrite(text, 1, head, f);
    fputs(insert, f);
    fwrite(text + head, 1, len - head, f);
}

static int write_inputs(const pod_t *pod, const char *yaml, size_t yaml_len, long pods, const char *json_path,
                        const char *yaml_path)
{
    FILE *j = fopen(json_path, "w"), *y = fopen(yaml_path, "w");
    if (j == NULL || y == NULL) {
        fprintf(stderr, "cannot write %s / %s: %s\n", json_path, yaml_path, strerror(errno));
        return -1;
    }
    fputs("{\"apiVersion\": \"v1\", \"items\": [\n", j);
    char name[96];
    for (long i = 0; i < pods; i++) {
        snprintf(name, sizeof(name), " \"name\": \"llm-serving-7d9c6b5f4-%06ld\",", i);
        fputs(i > 0 ? ",\n" : "", j);
        put_with_name(j, pod->json, pod->json_len, "\"metadata\": {", name);
        snprintf(name, sizeof(name), "  name: llm-serving-7d9c6b5f4-%06ld\n", i);
        fputs("---\n", y);
        put_with_name(y, yaml, yaml_len, "metadata:\n", name);
    }
    fputs("\n], \"kind\": \"List\", \"metadata\": {\"resourceVersion\": \"\"}}\n", j);
    return fclose(j) | fclose(y);
}

typedef struct st_run_t {
    double wall_s;
    double cpu_s; /* user + system */
    long maxrss_kb;
    int status;
} run_t;

/* Runs argv with stdout (and stderr when quiet) to /dev/null, pinned to `cpu`; fills wall time, peak RSS and the wait status. */
static int run(char *const argv[], int cpu, int quiet, run_t *r)
{
    fflush(stdout);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        (void)sched_setaffinity(0, sizeof(set), &set);
        if (freopen("/dev/null", "w", stdout) == NULL || (quiet && freopen("/dev/null", "w", stderr) == NULL))
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    struct rusage ru;
    int status;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid)
        return -1;
    r->wall_s = now_s() - t0;
    r->maxrss_kb = ru.ru_maxrss;
    r->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
               (double)ru.ru_stime.tv_usec / 1e6;
    r->status = status;
    return 0;
}

static int first_cpu(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &set))
            return cpu;
    return 0;
}

static void bench_validate(const char *gpuadmit, const char *path, const char *label, const char *format, long pods, double mb,
                           int rounds, int cpu)
{
    char *argv[] = {(char *)gpuadmit, "validate", "-o", (char *)format, (char *)path, NULL};
    run_t best = {.wall_s = -1, .cpu_s = -1};
    for (int i = 0; i < rounds; i++) {
        run_t r;
        if (run(argv, cpu, 0, &r) != 0 || !WIFEXITED(r.status) || WEXITSTATUS(r.status) > 1) {
            printf("| %-11s | %-4s | %7ld | %6.1f | failed (status %d) |\n", label, format, pods, mb, r.status);
            return;
        }
        if (best.wall_s < 0 || r.wall_s < best.wall_s)
            best.wall_s = r.wall_s;
        if (best.cpu_s < 0 || r.cpu_s < best.cpu_s)
            best.cpu_s = r.cpu_s;
        if (r.maxrss_kb > best.maxrss_kb)
            best.maxrss_kb = r.maxrss_kb;
    }
    double wall_rate = (double)pods / best.wall_s, cpu_rate = (double)pods / best.cpu_s, rss_mb = (double)best.maxrss_kb / 1024.0;
    printf("| %-11s | %-4s | %7ld | %6.1f | %6.3f | %6.3f | %8.0f | %8.0f | %6.1f | %6.1f | %5.2fx | %5.2fx |\n", label, format,
           pods, mb, best.wall_s, best.cpu_s, wall_rate, cpu_rate, mb / best.cpu_s, rss_mb, cpu_rate / GOAL_PODS_PER_S,
           rss_mb / GOAL_RSS_MB);
}

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(sa);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || getsockname(fd, (struct sockaddr *)&sa, &len) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    return ntohs(sa.sin_port);
}

/* 1 when GET /readyz on the plain-HTTP port answers 200. */
static int ready(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int ok = 0;
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
        static const char req[] = "GET /readyz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
        char resp[64] = {0};
        if (write(fd, req, sizeof(req) - 1) == (ssize_t)sizeof(req) - 1 && read(fd, resp, sizeof(resp) - 1) > 12)
            ok = strncmp(resp + 9, "200", 3) == 0;
    }
    if (fd >= 0)
        close(fd);
    return ok;
}

/* Exec of `gpuadmit serve` to the first 200 from /readyz, polled every 0.2 ms; seconds, or -1. */
static double startup_once(const char *gpuadmit, const char *crt, const char *key)
{
    int port = free_port();
    char metrics[32];
    snprintf(metrics, sizeof(metrics), "127.0.0.1:%d", port);
    fflush(stdout);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        if (freopen("/dev/null", "w", stderr) == NULL || freopen("/dev/null", "w", stdout) == NULL)
            _exit(127);
        execl(gpuadmit, gpuadmit, "serve", "--cert", crt, "--key", key, "--listen", "127.0.0.1:0", "--metrics-listen", metrics,
              "--threads", "1", (char *)NULL);
        _exit(127);
    }
    double t = -1;
    while (pid > 0 && now_s() - t0 < 5) {
        if (ready(port)) {
            t = now_s() - t0;
            break;
        }
        if (waitpid(pid, NULL, WNOHANG) == pid)
            return -1;
        usleep(200);
    }
    if (pid > 0) {
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
    }
    return t;
}

static void bench_startup(const char *gpuadmit, const char *work)
{
    char certs[4096], crt[4200], key[4200];
    snprintf(certs, sizeof(certs), "%s/certs", work);
    snprintf(crt, sizeof(crt), "%s/tls.crt", certs);
    snprintf(key, sizeof(key), "%s/tls.key", certs);
    char *argv[] = {(char *)gpuadmit, "certs", "--service", "gpuadmit", "--namespace", "bench", "--out", certs, NULL};
    run_t r;
    if (run(argv, first_cpu(), 1, &r) != 0 || !WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
        printf("\nserve start-up: cannot make certificates (gpuadmit certs failed)\n");
        return;
    }
    double best = -1;
    for (int i = 0; i < 5; i++) {
        double t = startup_once(gpuadmit, crt, key);
        if (t >= 0 && (best < 0 || t < best))
            best = t;
    }
    if (best < 0)
        printf("\nserve start-up to /readyz 200: failed\n");
    else
        printf("\nserve start-up, exec to the first /readyz 200 (best of 5): %.1f ms (goal <= 50 ms: %.2fx)\n", best * 1e3,
               best * 1e3 / 50);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s REVIEW.json GPUADMIT WORKDIR [PODS...]\n", argv[0]);
        return 2;
    }
    const char *gpuadmit = argv[2], *work = argv[3];
    size_t len;
    char *review = slurp(argv[1], &len);
    gpa_arena_t a;
    gpa_arena_init(&a);
    pod_t pod;
    if (review == NULL || find_pod(&a, review, len, &pod) != 0) {
        fprintf(stderr, "%s: no request.object found\n", argv[1]);
        return 2;
    }
    gpa_buf_t yaml = GPA_BUF_INIT;
    gpa_value_emit_yaml(&yaml, pod.tree);
    long counts[16] = {10000, 100000};
    int ncounts = 2;
    if (argc > 4) {
        ncounts = 0;
        for (int i = 4; i < argc && ncounts < 16; i++)
            counts[ncounts++] = strtol(argv[i], NULL, 10);
    }
    int cpu = first_cpu();
    printf("gpuadmit validate on the realistic Pod (%zu bytes as JSON), child pinned to cpu %d, stdout to /dev/null\n\n",
           pod.json_len, cpu);
    printf(
        "| input       | -o   |    Pods |     MB | wall s |  CPU s | Pods/s w | Pods/s c | MB/s c | RSS MB | /50k/s | /64 MB |\n");
    printf(
        "|-------------|------|---------|--------|--------|--------|----------|----------|--------|--------|--------|--------|\n");
    for (int c = 0; c < ncounts; c++) {
        long pods = counts[c];
        char json_path[4200], yaml_path[4200];
        snprintf(json_path, sizeof(json_path), "%s/pods-%ld.json", work, pods);
        snprintf(yaml_path, sizeof(yaml_path), "%s/pods-%ld.yaml", work, pods);
        if (write_inputs(&pod, yaml.base, yaml.len, pods, json_path, yaml_path) != 0)
            return 2;
        int rounds = pods <= 20000 ? 3 : 1;
        size_t jlen = warm(json_path), ylen = warm(yaml_path);
        const char *formats[] = {"text", "json"};
        for (int f = 0; f < 2; f++)
            bench_validate(gpuadmit, json_path, "JSON List", formats[f], pods, (double)jlen / 1e6, rounds, cpu);
        for (int f = 0; f < 2; f++)
            bench_validate(gpuadmit, yaml_path, "YAML stream", formats[f], pods, (double)ylen / 1e6, rounds, cpu);
        unlink(json_path);
        unlink(yaml_path);
    }
    bench_startup(gpuadmit, work);
    printf("\nBest of 3 rounds (10k) or 1 (100k). CPU s: the child's user + system time; Pods/s c = Pods / CPU s, the rate on one\n"
           "core whatever else the machine runs (the ratio to the goal is taken from it); Pods/s w = Pods / wall s; RSS is the\n"
           "child's peak (ru_maxrss), the largest of the rounds. Figures only: nothing fails on timing.\n");
    gpa_buf_dispose(&yaml);
    gpa_arena_dispose(&a);
    free(review);
    return 0;
}

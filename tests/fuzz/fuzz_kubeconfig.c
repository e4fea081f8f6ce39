/*
 * libFuzzer driver for the kubeconfig reader (cluster/kubeconfig.c, gpa_kubeconfig_parse).
 * Invariants: reading never crashes, hangs or leaks; a kubeconfig that reads gives an https:// server and a
 * client certificate only with its key; one that does not says why. Files it names are "read" from memory:
 * names starting with "ok" hold a PEM line, any other name is missing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kubeconfig.h"

static int read_from_memory(void *ctx, const char *path, char **data, size_t *len, gpa_error_t *err)
{
    (void)ctx;
    const char *base = strrchr(path, '/');
    base = base != NULL ? base + 1 : path;
    if (strncmp(base, "ok", 2) != 0)
        return gpa_error_set(err, 0, 0, NULL, "cannot read %s", path);
    static const char pem[] = "-----BEGIN CERTIFICATE-----\n";
    *data = strdup(pem);
    *len = sizeof(pem) - 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gpa_error_t err = {0};
    gpa_error_init(&err, "fuzz");
    gpa_kube_target_t t;
    const char *context = size > 0 && data[0] == '#' ? "other" : NULL;
    if (gpa_kubeconfig_parse((const char *)data, size, "/etc/kube", context, read_from_memory, NULL, &t, &err) == 0) {
        if (t.server == NULL || strncmp(t.server, "https://", 8) != 0)
            abort();
        if ((t.client_cert_pem == NULL) != (t.client_key_pem == NULL))
            abort();
        gpa_kube_target_dispose(&t);
    } else if (err.message[0] == '\0') {
        abort();
    }
    return 0;
}

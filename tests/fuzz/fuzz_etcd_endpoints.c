/* libFuzzer driver for the --etcd-servers parser. Besides not crashing, it checks what the
 * parser promises: on success sane endpoints whose URL, written back, parses to the same
 * target; on failure GW_EINVAL and a one-line message. Builds on its own:
 *   clang -fsanitize=fuzzer,address,undefined ... tests/fuzz/fuzz_etcd_endpoints.c */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etcd_endpoints.c"
#include "gw_alloc.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_endpoint(const etcd_endpoint_t *ep)
{
    if (ep->host == NULL || ep->host[0] == '\0' || ep->port < 1 || ep->port > 65535)
        abort();
    bool v6 = strncmp(ep->target, "ipv6:[", 6) == 0;
    if (!v6 && strncmp(ep->target, "ipv4:", 5) != 0 && strncmp(ep->target, "dns:///", 7) != 0)
        abort();
    char url[400];
    snprintf(url, sizeof(url), "%s://%s%s%s:%d", ep->tls ? "https" : "http", v6 ? "[" : "",
             ep->host, v6 ? "]" : "", ep->port);
    etcd_endpoint_t *again = NULL;
    size_t n = 0;
    char err[256];
    if (etcd_endpoints_parse(url, &again, &n, err, sizeof(err)) != 0 || n != 1 ||
        strcmp(again[0].target, ep->target) != 0 || again[0].tls != ep->tls)
        abort();
    etcd_endpoints_free(again, n);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *list = malloc(size + 1);
    memcpy(list, data, size);
    list[size] = '\0';
    etcd_endpoint_t *eps = NULL;
    size_t n = 0;
    char err[256];
    memset(err, 'x', sizeof(err));
    int rc = etcd_endpoints_parse(list, &eps, &n, err, sizeof(err));
    if (rc == 0) {
        if (n == 0 || eps == NULL)
            abort();
        for (size_t i = 0; i < n; i++)
            check_endpoint(&eps[i]);
    } else if (rc != GW_EINVAL || memchr(err, '\0', sizeof(err)) == NULL || err[0] == '\0' ||
               strchr(err, '\n') != NULL) {
        abort();
    }
    etcd_endpoints_free(eps, n);
    free(list);
    return 0;
}

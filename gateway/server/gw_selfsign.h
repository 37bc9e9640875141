#ifndef GATEWAY_SERVER_GW_SELFSIGN_H
#define GATEWAY_SERVER_GW_SELFSIGN_H

/*
 * The serving certificate kgate uses when none is given, as kube-apiserver does with
 * --cert-dir: `<dir>/apiserver.crt` and `<dir>/apiserver.key`, kept across restarts.
 */

#include <stddef.h>

/**
 * Make sure <dir>/apiserver.crt and <dir>/apiserver.key exist: keep an existing pair, else
 * create the directory if needed and write a new self-signed EC P-256 certificate (one year,
 * valid for localhost, 127.0.0.1 and this host's name) and its key (mode 0600). On success
 * returns 0 and the two paths in *cert_path and *key_path (caller frees). On error returns
 * GW_EINVAL with a one-line reason in err. Thread: any (the main thread at startup).
 */
int gw_selfsign_ensure(const char *dir, char **cert_path, char **key_path, char *err,
                       size_t err_len);

#endif

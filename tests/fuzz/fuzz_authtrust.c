/* libFuzzer driver for the data of kube-system/extension-apiserver-authentication as the
 * cluster authentication trust controller combines it: the stored data is anything a client
 * wrote (PEM bundles, JSON arrays). The input is, when it is a JSON object, the stored data;
 * else the text of every stored key, and this instance's CAs. Besides not crashing: the result
 * is an object of strings; every request-header list is a JSON array of distinct strings that
 * holds this instance's entries; without a request-header CA none of them is written.
 * Builds on its own: clang -fsanitize=fuzzer,address,undefined ... tests/fuzz/fuzz_authtrust.c */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.c"
#include "gw_buf.c"
#include "gw_json.c"
#include "gw_authtrust_data.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_list(const json_t *out, const char *key, const json_t *ours)
{
    const json_t *v = json_object_get(out, key);
    json_t *arr = gw_json_loadb(json_string_value(v), json_string_length(v), 0, NULL);
    size_t i, j;
    json_t *a;

    if (!json_is_array(arr))
        abort();
    json_array_foreach(arr, i, a)
    {
        if (!json_is_string(a))
            abort();
        for (j = i + 1; j < json_array_size(arr); j++) {
            if (json_equal(a, json_array_get(arr, j)))
                abort();
        }
    }
    json_array_foreach(ours, i, a)
    {
        bool found = false;
        for (j = 0; j < json_array_size(arr) && !found; j++)
            found = json_equal(a, json_array_get(arr, j));
        if (!found)
            abort();
    }
    json_decref(arr);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = gw_strndup((const char *)data, size);
    json_t *old = gw_json_loadb(text, size, 0, NULL), *lists[GW_AUTHTRUST_N_LISTS], *out, *v;
    gw_authtrust_pem_t pem = {text, strlen(text)};
    const char *key;

    if (!json_is_object(old)) {
        json_decref(old);
        old = json_object();
        for (int i = 0; i < GW_AUTHTRUST_N_LISTS; i++)
            json_object_set_new(old, list_keys[i], json_string(text));
        json_object_set_new(old, "client-ca-file", json_string(text));
        json_object_set_new(old, "requestheader-client-ca-file", json_string(text));
    }
    for (int i = 0; i < GW_AUTHTRUST_N_LISTS; i++)
        lists[i] = json_pack("[s,s]", "X-Remote-User", i % 2 ? "a" : "X-Remote-User");
    out = gw_authtrust__data(old, &pem, &pem, lists);
    json_object_foreach(out, key, v)
    {
        if (!json_is_string(v))
            abort();
    }
    for (int i = 0; i < GW_AUTHTRUST_N_LISTS; i++) {
        if (json_object_get(out, "requestheader-client-ca-file") != NULL)
            check_list(out, list_keys[i], lists[i]);
        else if (json_object_get(out, list_keys[i]) != NULL)
            abort();
        json_decref(lists[i]);
    }
    json_decref(out);
    json_decref(old);
    free(text);
    return 0;
}

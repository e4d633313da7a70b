/* Finding ggml's functions in the process that loaded the plugin.
 *
 * The plugin never links against ggml: that could load a second ggml beside
 * the host's. It looks the functions up at registration instead, first in
 * the object its caller lives in (ggml's loader calls ggml_backend_init from
 * its own libggml, which may be loaded RTLD_LOCAL, as Python's ctypes loads
 * llama-cpp-python's libraries, and is then invisible to dlsym's global
 * search), then in the global namespace (a program linked against ggml). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "ggml_abi.h"

struct host_symbol {
    const char *name;
    size_t offset; /* of the function pointer in struct qgg_host */
};

static const struct host_symbol host_symbols[] = {
    {"ggml_version", offsetof(struct qgg_host, version)},
    {"ggml_op_name", offsetof(struct qgg_host, op_name)},
    {"ggml_nbytes", offsetof(struct qgg_host, nbytes)},
    {"ggml_graph_n_nodes", offsetof(struct qgg_host, graph_n_nodes)},
    {"ggml_graph_node", offsetof(struct qgg_host, graph_node)},
    {"ggml_backend_buft_is_host", offsetof(struct qgg_host, buft_is_host)},
    {"ggml_backend_buffer_init", offsetof(struct qgg_host, buffer_init)},
    {"ggml_log_get", offsetof(struct qgg_host, log_get)},
};

/* Resolves every symbol through handle; the name of the first one missing,
 * or NULL when all are there. */
static const char *resolve_all(void *handle, struct qgg_host *host) {
    for (size_t i = 0; i < sizeof host_symbols / sizeof host_symbols[0]; i++) {
        void *fn = dlsym(handle, host_symbols[i].name);
        if (!fn)
            return host_symbols[i].name;
        memcpy((char *)host + host_symbols[i].offset, &fn, sizeof fn);
    }
    return NULL;
}

int qgg_host_find(void *caller, struct qgg_host *host, char *why, size_t why_size) {
    memset(host, 0, sizeof *host);
    Dl_info info;
    const char *missing = "ggml_version";
    if (caller && dladdr(caller, &info) && info.dli_fname) {
        /* NOLOAD: a handle on the copy already in the process, never a new one;
         * dlsym through it also searches that object's dependencies
         * (libggml-base, where most of these live) */
        void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
        if (h) {
            missing = resolve_all(h, host);
            if (!missing)
                return 0; /* the handle stays open: ggml must outlive us */
            dlclose(h);
        }
    }
    missing = resolve_all(RTLD_DEFAULT, host);
    if (!missing)
        return 0;
    snprintf(why, why_size, "ggml's %s was not found in the process that loaded the plugin", missing);
    memset(host, 0, sizeof *host);
    return -1;
}

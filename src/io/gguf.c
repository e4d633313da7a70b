/* (core layer, in progress) */
typedef int qmm_placeholder_gguf_t;

/* (core layer, in progress) */
typedef int qmm_placeholder_pool_t;

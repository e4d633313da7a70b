/* (core layer, in progress) */
typedef int qmm_placeholder_api_t;

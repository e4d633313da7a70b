/* (core layer, in progress) */
typedef int qmm_placeholder_error_t;

/* (core layer, in progress) */
typedef int qmm_placeholder_types_t;

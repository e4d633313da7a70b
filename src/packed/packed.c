/* (core layer, in progress) */
typedef int qmm_placeholder_packed_t;

/* (core layer, in progress) */
typedef int qmm_placeholder_exec_t;

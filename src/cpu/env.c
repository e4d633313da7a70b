/* (core layer, in progress) */
typedef int qmm_placeholder_env_t;

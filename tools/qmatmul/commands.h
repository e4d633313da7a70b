/* Subcommands of the qmatmul tool: each takes its arguments after the
 * command name and returns the process exit code. */
#ifndef QMM_TOOL_COMMANDS_H
#define QMM_TOOL_COMMANDS_H

int cmd_info(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_pack(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_run(int argc, char **argv);

#endif

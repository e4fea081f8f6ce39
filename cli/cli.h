/*
 * The gpuadmit verbs. Each lives in its own file (cli/<verb>.c) and is called by main.c with argv[0] set to
 * the verb's name. Each returns the process exit code: 0 all admitted / success, 1 something denied or a test
 * failed, 2 usage error or unreadable input (README.md#the-cli). Each handles --help itself (exit 0).
 */
#ifndef GPA_CLI_H
#define GPA_CLI_H

int gpa_cmd_validate(int argc, char **argv);
int gpa_cmd_mutate(int argc, char **argv);
int gpa_cmd_review(int argc, char **argv);
int gpa_cmd_fit(int argc, char **argv);
int gpa_cmd_audit(int argc, char **argv);
int gpa_cmd_explain(int argc, char **argv);
int gpa_cmd_test(int argc, char **argv);
int gpa_cmd_serve(int argc, char **argv);
int gpa_cmd_certs(int argc, char **argv);

#define GPA_EXIT_OK 0
#define GPA_EXIT_DENIED 1
#define GPA_EXIT_USAGE 2

#endif

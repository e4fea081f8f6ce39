/* Placeholder dispatcher: replaced by the CLI's main. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "validate") == 0)
        return gpa_cmd_validate(argc - 1, argv + 1);
    fprintf(stderr, "usage: gpuadmit <verb> ...\n");
    return GPA_EXIT_USAGE;
}

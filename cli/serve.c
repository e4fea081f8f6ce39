/* Placeholder: replaced by the real verb. */
#include <stdio.h>

#include "cli.h"

int gpa_cmd_serve(int argc, char **argv)
{
    (void)argc;
    fprintf(stderr, "%s: not built yet\n", argv[0]);
    return GPA_EXIT_USAGE;
}

/* mark_client.c -- libgpumon's gpumon_mark as a command, for the tests
 * that put it in front of a hostile listener on agent.sock
 * (tests/e2e/control_hostile.py).
 *
 * usage: mark_client DATA_DIR TEXT
 * Exit 0 when the agent took the mark; 1 with "mark_client: CODE: MESSAGE"
 * on stderr otherwise (the library's message, printed as it comes: the
 * test checks that the library made it safe).
 */
#include <gpumon/gpumon.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: mark_client DATA_DIR TEXT\n");
        return 2;
    }
    struct gpumon_error err = {0};
    int rc = gpumon_mark(argv[1], NULL, argv[2], &err);
    if (rc != 0) {
        fprintf(stderr, "mark_client: %s: %s\n", gpumon_status_name(rc), err.message);
        return 1;
    }
    return 0;
}

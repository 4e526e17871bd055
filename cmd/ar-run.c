/* ar-run: placeholder until issue 5 lands. */
#include "ar.h"

int
main(int argc, char **argv)
{
	ar_setprog(argv[0]);
	ar_std_args(argc, argv, "");
	ar_die(AR_EX_SOFTWARE, "not built yet");
}

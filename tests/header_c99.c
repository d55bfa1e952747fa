/* The public header compiles on its own as strict C99 (with the GNU
 * cleanup attribute the scoped macros need). */
#include <trms.h>

static int use_scoped(void)
{
	TRMS_SCOPED_REGION("scoped");
	TRMS_REGION("block")
	{
		trms_read(&use_scoped, 1);
	}
	return 0;
}

int main(void)
{
	return use_scoped() + (TRMS_VERSION > 0 ? 0 : 1);
}

// The public header compiles on its own as C++.
#include <trms.h>

int main()
{
	TRMS_SCOPED_REGION("scoped");
	int x = 0;
	TRMS_REGION("block")
	{
		trms_write(&x, sizeof(x));
	}
	return trms_version() ? 0 : 1;
}

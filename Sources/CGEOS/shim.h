#ifndef FOD_CGEOS_SHIM_H
#define FOD_CGEOS_SHIM_H
#include <geos_c.h>
#endif

#ifndef FOD_CMATH_SHIM_H
#define FOD_CMATH_SHIM_H
/// glibc's `sincos` (in libm; a GNU extension that Swift's Glibc module does not declare):
/// sin x and cos x with one argument reduction, the same values as `sin` and `cos`.
void sincos(double x, double *sine, double *cosine);
#endif

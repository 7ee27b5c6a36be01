#ifndef FOD_CSODIUM_SHIM_H
#define FOD_CSODIUM_SHIM_H
#include <sodium.h>

/// crypto_pwhash_* limits are macros over size_t/unsigned long long; expose them as functions.
static inline unsigned long long fod_pwhash_opslimit_interactive(void) { return crypto_pwhash_OPSLIMIT_INTERACTIVE; }
static inline size_t fod_pwhash_memlimit_interactive(void) { return crypto_pwhash_MEMLIMIT_INTERACTIVE; }
static inline unsigned long long fod_pwhash_opslimit_min(void) { return crypto_pwhash_OPSLIMIT_MIN; }
static inline size_t fod_pwhash_memlimit_min(void) { return crypto_pwhash_MEMLIMIT_MIN; }
static inline size_t fod_pwhash_strbytes(void) { return crypto_pwhash_STRBYTES; }
#endif

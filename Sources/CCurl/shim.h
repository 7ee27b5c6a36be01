#ifndef FOD_CCURL_SHIM_H
#define FOD_CCURL_SHIM_H
#include <curl/curl.h>

/// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: typed wrappers.
static inline CURLcode fod_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode fod_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode fod_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode fod_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
typedef size_t (*fod_curl_data_callback)(char *data, size_t size, size_t count, void *context);
static inline CURLcode fod_curl_setopt_callback(CURL *handle, CURLoption option, fod_curl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode fod_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode fod_curl_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}
#endif

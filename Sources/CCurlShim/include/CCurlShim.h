// Typed wrappers for libcurl's variadic curl_easy_setopt / curl_easy_getinfo.
#ifndef CCURLSHIM_H
#define CCURLSHIM_H

#include <curl/curl.h>

typedef size_t (*ccurlshim_data_callback)(char *data, size_t size, size_t count, void *context);

CURLcode ccurlshim_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode ccurlshim_setopt_offset(CURL *handle, CURLoption option, curl_off_t value);
CURLcode ccurlshim_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode ccurlshim_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode ccurlshim_setopt_callback(CURL *handle, CURLoption option, ccurlshim_data_callback callback);
CURLcode ccurlshim_getinfo_long(CURL *handle, CURLINFO info, long *value);

// Progress callback: returning non-zero aborts the transfer (a cancelled task).
typedef int (*ccurlshim_xferinfo_callback)(void *context, curl_off_t download_total, curl_off_t downloaded,
                                           curl_off_t upload_total, curl_off_t uploaded);
CURLcode ccurlshim_setopt_xferinfo(CURL *handle, ccurlshim_xferinfo_callback callback);

// Socket-opening callback: sees every address libcurl is about to connect to (after DNS), and
// may refuse it by returning CURL_SOCKET_BAD.
typedef curl_socket_t (*ccurlshim_opensocket_callback)(void *context, curlsocktype purpose, struct curl_sockaddr *address);
CURLcode ccurlshim_setopt_opensocket(CURL *handle, ccurlshim_opensocket_callback callback);

#endif

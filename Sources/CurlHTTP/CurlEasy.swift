import CCurl
import CCurlShim
import DedicatedThreads
import Foundation

/// Owns one `CURL*` easy handle and cleans it up once. Not thread-safe: one request at a time.
final class CurlEasy {
    private let handle: UnsafeMutableRawPointer

    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    init() throws(HTTPError) {
        guard CurlEasy.globalInit == CURLE_OK, let handle = curl_easy_init() else {
            throw HTTPError(.transport, "libcurl could not be initialised")
        }
        self.handle = handle
    }

    deinit { curl_easy_cleanup(handle) }

    /// Clears per-request options but keeps the connection cache, so the next request on this
    /// handle can reuse a live connection.
    func reset() { curl_easy_reset(handle) }

    /// Performs one request synchronously: call from a dedicated thread only.
    func perform(_ request: HTTPRequest, connectTimeoutSeconds: Double) throws(HTTPError) -> HTTPResponse {
        BlockingCallAudit.check("curl_easy_perform")
        let sink = ResponseSink()
        let context = Unmanaged.passUnretained(sink).toOpaque()
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        var headerList: UnsafeMutablePointer<curl_slist>?
        var mime: OpaquePointer?
        defer {
            curl_slist_free_all(headerList)
            if let mime { curl_mime_free(mime) }
        }

        setLong(CURLOPT_NOSIGNAL, 1)
        setLong(CURLOPT_TIMEOUT_MS, Int(request.timeoutSeconds * 1000))
        setLong(CURLOPT_CONNECTTIMEOUT_MS, Int(connectTimeoutSeconds * 1000))
        _ = ccurlshim_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = ccurlshim_setopt_string(handle, CURLOPT_URL, request.url)
        _ = ccurlshim_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method)
        _ = ccurlshim_setopt_callback(handle, CURLOPT_WRITEFUNCTION, ResponseSink.onBody)
        _ = ccurlshim_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
        _ = ccurlshim_setopt_callback(handle, CURLOPT_HEADERFUNCTION, ResponseSink.onHeader)
        _ = ccurlshim_setopt_pointer(handle, CURLOPT_HEADERDATA, context)

        // Large bodies must not wait for "100 Continue"; S3 and API gateways answer directly.
        for header in request.headers + [HTTPHeader("Expect", "")] {
            headerList = curl_slist_append(headerList, "\(header.name): \(header.value)")
        }
        _ = ccurlshim_setopt_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headerList))

        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errors in
            _ = ccurlshim_setopt_pointer(handle, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errors.baseAddress))
            switch request.body {
            case .none:
                if request.method == "GET" || request.method == "HEAD" { return curl_easy_perform(handle) }
                setOffset(CURLOPT_POSTFIELDSIZE_LARGE, 0)
                _ = ccurlshim_setopt_string(handle, CURLOPT_POSTFIELDS, "")
                return curl_easy_perform(handle)
            case .bytes(let data):
                // The body pointer is valid only inside this scope, and perform completes inside it.
                return data.withUnsafeBytes { bytes in
                    setOffset(CURLOPT_POSTFIELDSIZE_LARGE, Int64(bytes.count))
                    _ = ccurlshim_setopt_pointer(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafeRawPointer(("" as StaticString).utf8Start)))
                    return curl_easy_perform(handle)
                }
            case .multipart(let parts):
                mime = curl_mime_init(handle)
                for part in parts {
                    let field = curl_mime_addpart(mime)
                    curl_mime_name(field, part.name)
                    _ = part.data.withUnsafeBytes { bytes in
                        curl_mime_data(field, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count)
                    }
                    if let filename = part.filename { curl_mime_filename(field, filename) }
                    if let type = part.contentType { curl_mime_type(field, type) }
                }
                _ = ccurlshim_setopt_pointer(handle, CURLOPT_MIMEPOST, UnsafeMutableRawPointer(mime))
                return curl_easy_perform(handle)
            }
        }
        // Nothing may keep pointing at the buffers this call owned.
        _ = ccurlshim_setopt_pointer(handle, CURLOPT_ERRORBUFFER, nil)

        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let text = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            throw HTTPError(HTTPErrorMapping.code(for: code), "\(request.method) \(Redact.url(request.url)) failed: \(text)")
        }
        var status = 0
        _ = ccurlshim_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return HTTPResponse(status: status, headers: sink.finalHeaders(), body: sink.body)
    }

    private func setLong(_ option: CURLoption, _ value: Int) {
        _ = ccurlshim_setopt_long(handle, option, value)
    }

    private func setOffset(_ option: CURLoption, _ value: Int64) {
        _ = ccurlshim_setopt_offset(handle, option, curl_off_t(value))
    }
}

enum HTTPErrorMapping {
    static func code(for code: CURLcode) -> HTTPError.Code {
        switch code {
        case CURLE_OPERATION_TIMEDOUT: return .timeout
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: return .connectFailed
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL, CURLE_BAD_FUNCTION_ARGUMENT: return .invalidRequest
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM: return .tls
        default: return .transport
        }
    }
}

/// Collects the body and the headers of the final response (not of 1xx or redirects).
private final class ResponseSink {
    var body = Data()
    private var headerLines: [String] = []

    func finalHeaders() -> [HTTPHeader] {
        headerLines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return HTTPHeader(String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                              String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    static let onBody: ccurlshim_data_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
        sink.body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: size * count)
        return size * count
    }

    static let onHeader: ccurlshim_data_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: size * count), as: UTF8.self)
        // A status line starts each response; only the last response's headers matter.
        if line.hasPrefix("HTTP/") { sink.headerLines.removeAll() } else { sink.headerLines.append(line) }
        return size * count
    }
}

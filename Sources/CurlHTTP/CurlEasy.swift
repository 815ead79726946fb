import CCurl
import CCurlShim
import DedicatedThreads
import Foundation

/// Owns one `CURL*` easy handle and cleans it up once. Not thread-safe: one request at a time.
/// Sendable only to be handed between the client's threads through its idle stack, which gives
/// each handle to one thread at a time (libcurl allows a handle to move between threads).
final class CurlEasy: @unchecked Sendable {
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
    func perform(_ request: HTTPRequest, connectTimeoutSeconds: Double, abort: LockedFlag = LockedFlag()) throws(HTTPError) -> HTTPResponse {
        BlockingCallAudit.check("curl_easy_perform")
        guard !abort.isSet else { throw HTTPError(.cancelled, "\(request.method) \(Redact.url(request.url)) was cancelled before it started") }
        let sink = ResponseSink(
            maxBodyBytes: request.maxResponseBytes, abort: abort, addressRule: request.addressRule, file: request.responseFile,
            bodyExpected: request.method != "HEAD")
        let context = Unmanaged.passUnretained(sink).toOpaque()
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        var headerList: UnsafeMutablePointer<curl_slist>?
        var mime: OpaquePointer?
        defer {
            curl_slist_free_all(headerList)
            if let mime { curl_mime_free(mime) }
        }

        try set(CURLOPT_NOSIGNAL, long: 1)
        try set(CURLOPT_TIMEOUT_MS, long: Self.milliseconds(request.timeoutSeconds))
        try set(CURLOPT_CONNECTTIMEOUT_MS, long: Self.milliseconds(connectTimeoutSeconds))
        // Refused by an old libcurl, this would silently lift the http/https restriction: so
        // every option's result is checked.
        try set(CURLOPT_PROTOCOLS_STR, string: "http,https")
        try set(CURLOPT_URL, string: request.url)
        // The path goes as written: libcurl would otherwise squash `/./` and `/../` in it, and an
        // S3 key holding them would then be another object, under a signature that no longer
        // matches.
        try set(CURLOPT_PATH_AS_IS, long: 1)
        if let caBundle = request.caBundle { try set(CURLOPT_CAINFO, string: caBundle) }
        try set(CURLOPT_CUSTOMREQUEST, string: request.method)
        try check(ccurlshim_setopt_callback(handle, CURLOPT_WRITEFUNCTION, ResponseSink.onBody), CURLOPT_WRITEFUNCTION)
        try set(CURLOPT_WRITEDATA, pointer: context)
        try check(ccurlshim_setopt_callback(handle, CURLOPT_HEADERFUNCTION, ResponseSink.onHeader), CURLOPT_HEADERFUNCTION)
        try set(CURLOPT_HEADERDATA, pointer: context)
        // About once a second (and on every chunk) libcurl asks whether to go on.
        try set(CURLOPT_NOPROGRESS, long: 0)
        try check(ccurlshim_setopt_xferinfo(handle, ResponseSink.onProgress), CURLOPT_XFERINFOFUNCTION)
        try set(CURLOPT_XFERINFODATA, pointer: context)
        if request.addressRule != .any {
            try check(ccurlshim_setopt_opensocket(handle, ResponseSink.onOpenSocket), CURLOPT_OPENSOCKETFUNCTION)
            try set(CURLOPT_OPENSOCKETDATA, pointer: context)
        }

        // Large bodies must not wait for "100 Continue"; S3 and API gateways answer directly.
        for header in request.headers + [HTTPHeader("Expect", "")] {
            // Bytes, not Characters: Swift sees "\r\n" as one Character, equal to neither.
            guard !"\(header.name)\(header.value)".utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) else {
                throw HTTPError(.invalidRequest, "header \(header.name) holds a line break; refusing to send it")
            }
            guard let appended = curl_slist_append(headerList, "\(header.name): \(header.value)") else {
                throw HTTPError(.transport, "libcurl could not allocate a header list")
            }
            headerList = appended
        }
        try set(CURLOPT_HTTPHEADER, pointer: UnsafeMutableRawPointer(headerList))

        let code: CURLcode = try errorBuffer.withUnsafeMutableBufferPointer { errors throws(HTTPError) -> CURLcode in
            try set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errors.baseAddress))
            defer { _ = ccurlshim_setopt_pointer(handle, CURLOPT_ERRORBUFFER, nil) }
            switch request.body {
            case .none:
                // A HEAD's answer has a Content-Length but no body: libcurl must not wait for one.
                if request.method == "HEAD" { try set(CURLOPT_NOBODY, long: 1) }
                if request.method == "GET" || request.method == "HEAD" { return curl_easy_perform(handle) }
                try set(CURLOPT_POSTFIELDSIZE_LARGE, offset: 0)
                try set(CURLOPT_POSTFIELDS, string: "")
                return curl_easy_perform(handle)
            case .bytes(let data):
                try set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(data.count))
                // The body pointer is valid only inside this scope, and perform completes inside it.
                return data.withUnsafeBytes { bytes -> CURLcode in
                    let body = UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafeRawPointer(("" as StaticString).utf8Start))
                    let set = ccurlshim_setopt_pointer(handle, CURLOPT_POSTFIELDS, body)
                    return set == CURLE_OK ? curl_easy_perform(handle) : set
                }
            case .multipart(let parts):
                mime = try Self.mime(parts, for: handle)
                try set(CURLOPT_MIMEPOST, pointer: UnsafeMutableRawPointer(mime))
                return curl_easy_perform(handle)
            }
        }

        if abort.isSet {
            throw HTTPError(.cancelled, "\(request.method) \(Redact.url(request.url)) was cancelled; the transfer was aborted")
        }
        if let refused = sink.refusedAddress {
            let host = URLComponents(string: request.url)?.host ?? "its host"
            throw HTTPError(
                .destinationRefused,
                "\(request.method) \(Redact.url(request.url)) was not sent: \(host) is \(refused), "
                    + "an address inside a network, not on the internet; refused unless DISCERN_UPLOAD_ALLOWED_HOSTS names it")
        }
        if let failure = sink.fileFailure {
            throw HTTPError(.transport, "\(request.method) \(Redact.url(request.url)): writing the answer to its file failed: \(failure)")
        }
        if sink.overflowed {
            throw HTTPError(
                .responseTooLarge,
                "\(request.method) \(Redact.url(request.url)) answered more than \(request.maxResponseBytes) bytes; the transfer was aborted")
        }
        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let text = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            throw HTTPError(HTTPErrorMapping.code(for: code), "\(request.method) \(Redact.url(request.url)) failed: \(text)")
        }
        var status = 0
        try check(ccurlshim_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status), "CURLINFO_RESPONSE_CODE")
        return HTTPResponse(status: status, headers: sink.finalHeaders(), body: sink.body, fileBytes: sink.fileBytes)
    }

    /// A multipart body; each part's bytes are copied by libcurl (curl_mime_data).
    private static func mime(_ parts: [MultipartPart], for handle: UnsafeMutableRawPointer) throws(HTTPError) -> OpaquePointer {
        guard let mime = curl_mime_init(handle) else { throw HTTPError(.transport, "libcurl could not start a multipart body") }
        for part in parts {
            guard let field = curl_mime_addpart(mime) else {
                curl_mime_free(mime)
                throw HTTPError(.transport, "libcurl could not add a multipart part")
            }
            var codes = [curl_mime_name(field, part.name)]
            codes.append(
                part.data.withUnsafeBytes { bytes in
                    curl_mime_data(field, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count)
                })
            if let filename = part.filename { codes.append(curl_mime_filename(field, filename)) }
            if let type = part.contentType { codes.append(curl_mime_type(field, type)) }
            if let failed = codes.first(where: { $0 != CURLE_OK }) {
                curl_mime_free(mime)
                throw HTTPError(.invalidRequest, "libcurl refused multipart part \(part.name): \(String(cString: curl_easy_strerror(failed)))")
            }
        }
        return mime
    }

    private func set(_ option: CURLoption, long value: Int) throws(HTTPError) {
        try check(ccurlshim_setopt_long(handle, option, value), option)
    }

    private func set(_ option: CURLoption, offset value: Int64) throws(HTTPError) {
        try check(ccurlshim_setopt_offset(handle, option, curl_off_t(value)), option)
    }

    private func set(_ option: CURLoption, string value: String) throws(HTTPError) {
        try check(ccurlshim_setopt_string(handle, option, value), option)
    }

    private func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) throws(HTTPError) {
        try check(ccurlshim_setopt_pointer(handle, option, value), option)
    }

    private func check(_ code: CURLcode, _ option: CURLoption) throws(HTTPError) {
        try check(code, "option \(option.rawValue)")
    }

    private func check(_ code: CURLcode, _ what: String) throws(HTTPError) {
        guard code == CURLE_OK else {
            throw HTTPError(.invalidRequest, "libcurl refused \(what): \(String(cString: curl_easy_strerror(code)))")
        }
    }

    /// Whole milliseconds, within what a C long holds; a timeout below 1 ms means 1 ms.
    static func milliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite else { return Int(Int32.max) }
        return Int(min(max(seconds * 1000, 1), Double(Int32.max)).rounded())
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

/// Collects the body and the headers of the final response (not of 1xx or redirects), and
/// aborts the transfer once the body passes its cap: a service answering 800 MB must not make
/// the worker hold 800 MB.
private final class ResponseSink {
    var body = Data()
    private(set) var overflowed = false
    let maxBodyBytes: Int
    /// A successful answer's body goes here instead (`HTTPRequest.responseFile`).
    let file: Int32?
    private(set) var fileBytes = 0
    private(set) var fileFailure: String?
    /// The status of the response whose headers came last: the final one once the body comes.
    private var status = 0
    private static let maxErrorBodyBytes = 1 << 20
    private let abort: LockedFlag
    private var headerLines: [String] = []
    private var headerBytes = 0
    private static let maxHeaderBytes = 256 * 1024

    private let addressRule: AddressRule
    /// The address a connection was refused to (`AddressRule`), for the error.
    private(set) var refusedAddress: String?

    /// A HEAD's Content-Length is the size of what a GET would answer, not of its own body.
    let bodyExpected: Bool

    init(maxBodyBytes: Int, abort: LockedFlag, addressRule: AddressRule, file: Int32? = nil, bodyExpected: Bool = true) {
        self.maxBodyBytes = maxBodyBytes
        self.file = file
        self.bodyExpected = bodyExpected
        self.abort = abort
        self.addressRule = addressRule
    }

    /// Every address libcurl is about to connect to, after DNS: opened only if the rule admits it.
    static let onOpenSocket: ccurlshim_opensocket_callback = { context, _, address in
        guard let context, let address else { return -1 }
        let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
        var storage = sockaddr_storage()
        let length = min(Int(address.pointee.addrlen), MemoryLayout<sockaddr_storage>.size)
        let offset = MemoryLayout<curl_sockaddr>.offset(of: \.addr) ?? 16
        withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: UnsafeRawPointer(address) + offset, count: length)) }
        guard sink.addressRule.admits(storage) else {
            sink.refusedAddress = AddressRule.describe(storage)
            return -1  // CURL_SOCKET_BAD: libcurl gives up on this address
        }
        return socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
    }

    static let onProgress: ccurlshim_xferinfo_callback = { context, _, _, _, _ in
        guard let context else { return 0 }
        return Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue().abort.isSet ? 1 : 0
    }

    func finalHeaders() -> [HTTPHeader] {
        headerLines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return HTTPHeader(
                String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    static let onBody: ccurlshim_data_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
        let (bytes, overflow) = size.multipliedReportingOverflow(by: count)
        if let file = sink.file, (200..<300).contains(sink.status) {
            guard !overflow, sink.fileBytes + bytes <= sink.maxBodyBytes else {
                sink.overflowed = true
                return 0
            }
            return sink.write(UnsafeRawPointer(data), count: bytes, to: file) ? bytes : 0
        }
        let cap = sink.file == nil ? sink.maxBodyBytes : min(sink.maxBodyBytes, maxErrorBodyBytes)
        guard !overflow, sink.body.count + bytes <= cap else {
            sink.overflowed = true
            return 0  // anything but `bytes` makes libcurl stop with CURLE_WRITE_ERROR
        }
        sink.body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: bytes)
        return bytes
    }

    private func write(_ data: UnsafeRawPointer, count: Int, to file: Int32) -> Bool {
        var written = 0
        while written < count {
            let result = Foundation.write(file, data + written, count - written)
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else {
                fileFailure = String(cString: strerror(errno))
                return false
            }
            written += result
        }
        fileBytes += count
        return true
    }

    static let onHeader: ccurlshim_data_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
        let bytes = size * count
        sink.headerBytes += bytes
        guard sink.headerBytes <= maxHeaderBytes else {
            sink.overflowed = true
            return 0
        }
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: bytes), as: UTF8.self)
        // A status line starts each response; only the last response's headers matter.
        if line.hasPrefix("HTTP/") {
            sink.headerLines.removeAll()
            sink.status = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        } else {
            sink.headerLines.append(line)
            // An answer that says it is over the cap is refused before any of its body arrives.
            if sink.bodyExpected, line.lowercased().hasPrefix("content-length:"), (200..<300).contains(sink.status) || sink.file == nil,
                let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespacesAndNewlines)),
                length > sink.maxBodyBytes
            {
                sink.overflowed = true
                return 0
            }
        }
        return bytes
    }
}

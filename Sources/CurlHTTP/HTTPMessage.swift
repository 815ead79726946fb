import Foundation

public struct HTTPHeader: Sendable, Equatable {
    public let name: String
    public let value: String
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// One part of a multipart/form-data body.
public struct MultipartPart: Sendable {
    public let name: String
    public let data: Data
    public let filename: String?
    public let contentType: String?

    public init(name: String, data: Data, filename: String? = nil, contentType: String? = nil) {
        self.name = name
        self.data = data
        self.filename = filename
        self.contentType = contentType
    }

    public init(name: String, value: String) {
        self.init(name: name, data: Data(value.utf8))
    }
}

public struct HTTPRequest: Sendable {
    public enum Body: Sendable {
        case none
        case bytes(Data)
        case multipart([MultipartPart])
    }

    public var method: String
    public var url: String
    public var headers: [HTTPHeader]
    public var body: Body
    /// The whole exchange, connect to last byte.
    public var timeoutSeconds: Double
    /// The largest answer body accepted; a longer one aborts the transfer (`responseTooLarge`).
    public var maxResponseBytes: Int
    /// Which addresses it may connect to: any, or public ones only (for a URL a service handed
    /// out, which must not reach into this network).
    public var addressRule: AddressRule = .any
    /// Where a successful (2xx) answer's body goes instead of memory: a descriptor open for
    /// writing, written from its current offset, up to `maxResponseBytes`. Any other answer's
    /// body (an error document) is kept in memory, up to 1 MiB.
    public var responseFile: Int32?
    /// A PEM file of the CAs to trust for this request instead of the system's (a private CA
    /// in front of an S3-compatible store: `AWS_CA_BUNDLE`).
    public var caBundle: String?

    /// Every service discern calls answers a few kilobytes of JSON; 4 MiB is far above that.
    public static let defaultMaxResponseBytes = 4 << 20

    public init(
        method: String, url: String, headers: [HTTPHeader] = [], body: Body = .none, timeoutSeconds: Double = 60,
        maxResponseBytes: Int = HTTPRequest.defaultMaxResponseBytes
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeoutSeconds = timeoutSeconds
        self.maxResponseBytes = maxResponseBytes
    }

    /// A POST of a JSON document.
    public static func json(
        _ method: String = "POST", url: String, body: Data, headers: [HTTPHeader] = [], timeoutSeconds: Double = 60
    ) -> HTTPRequest {
        HTTPRequest(
            method: method, url: url, headers: [HTTPHeader("Content-Type", "application/json")] + headers,
            body: .bytes(body), timeoutSeconds: timeoutSeconds)
    }
}

public struct HTTPResponse: Sendable {
    public let status: Int
    public let headers: [HTTPHeader]
    public let body: Data
    /// Bytes written to the request's `responseFile`.
    public let fileBytes: Int

    public init(status: Int, headers: [HTTPHeader], body: Data, fileBytes: Int = 0) {
        self.status = status
        self.headers = headers
        self.body = body
        self.fileBytes = fileBytes
    }

    /// The last value of a header, matched case-insensitively.
    public func header(_ name: String) -> String? {
        headers.last { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The body as text for an error message: short, and on one line.
    public var bodySnippet: String {
        Self.oneLine(body, limit: 300).trimmingCharacters(in: .whitespaces)
    }

    /// The first `limit` bytes of `data` as text on one line, each line break a space.
    /// isNewline: "\r\n" is one Character, which a replacement of "\n" does not find.
    public static func oneLine(_ data: Data, limit: Int) -> String {
        String(decoding: data.prefix(limit), as: UTF8.self).split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            .joined(separator: " ")
    }
}

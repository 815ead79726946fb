import CurlHTTP
import DedicatedThreads
import Foundation
import Logging
import Synchronization

/// What a HEAD says of an object.
public struct ObjectInfo: Sendable, Equatable {
    public let size: Int
    /// Without quotes.
    public let etag: String
}

/// An S3-compatible store, spoken to over libcurl with SigV4-signed requests: HEAD an object,
/// download it into a file, list a prefix (ListObjectsV2, a page at a time).
///
/// A request the store refuses for a reason the next one can fix is sent again, once for each
/// reason (`StoreRefusal.Remedy`): credentials that ran out are fetched anew, a clock that is
/// off is corrected from the store's `Date`, a bucket in another region is asked there (and
/// remembered). The store's weather (SlowDown, 5xx, a lost connection) is waited out a few
/// times with a growing, jittered wait; what lasts longer is the caller's to hold.
public final class ObjectStore: Sendable {
    public let settings: StoreSettings
    public let credentials: CredentialProvider
    private let http: CurlHTTPClient
    private let clock: StoreClock
    private let files: ThreadPool
    /// Buckets found in another region than the settings' one: their region.
    private let regions = Mutex<[String: String]>([:])
    /// The last object each bucket handed over, and to which key id: an AccessDenied for the
    /// next one, soon after, is that object's, not the credential's.
    private let lastRead = Mutex<[String: (keyID: String, at: ContinuousClock.Instant)]>([:])
    private let logger: Logger?

    /// - Parameter logger: told what an operator should know (a clock that is off, a bucket in
    ///   another region, credentials fetched); nothing is said without one.
    public init(settings: StoreSettings, http: CurlHTTPClient = CurlHTTPClient(), logger: Logger? = nil) {
        self.settings = settings
        self.http = http
        self.logger = logger
        clock = StoreClock()
        files = ThreadPool(name: "discern-credentials", threads: 1)
        // A client of their own: a credential fetch never queues behind the objects' downloads.
        let fetcher = CredentialFetcher(http: CurlHTTPClient(configuration: .init(threads: 2)), caBundle: settings.caBundle, files: files)
        credentials = CredentialProvider(source: settings.credentials, clock: clock, fetcher: fetcher, logger: logger)
    }

    deinit { files.shutdown() }

    /// How many times a request meets the store's weather before its failure is thrown.
    public struct Patience: Sendable {
        public let tries: Int
        public let longestWaitSeconds: Double

        /// A worker's read: a job that cannot wait is held by the breaker, not by a thread.
        public static let read = Patience(tries: 3, longestWaitSeconds: 5)
        /// A page of `discern enqueue`'s listing, which has nothing else to do meanwhile.
        public static let listing = Patience(tries: 6, longestWaitSeconds: 20)
    }

    public func head(_ address: ObjectAddress) async throws(ObjectStorageError) -> ObjectInfo {
        let response = try await send(Exchange(method: "HEAD", bucket: address.bucket, key: address.key, what: "\(address)"))
        guard let size = response.header("Content-Length").flatMap(Int.init), size >= 0 else {
            throw ObjectStorageError(.invalid, "the store's answer to HEAD \(address) has no Content-Length")
        }
        return ObjectInfo(size: size, etag: Self.etag(response))
    }

    /// Writes the object's bytes to `descriptor` (from its current offset, again from there if
    /// a try is cut short); refuses one larger than `maxBytes` without keeping what came.
    /// Returns what the store said of what it sent.
    public func download(_ address: ObjectAddress, to descriptor: Int32, maxBytes: Int) async throws(ObjectStorageError) -> ObjectInfo {
        var exchange = Exchange(method: "GET", bucket: address.bucket, key: address.key, what: "\(address)")
        (exchange.file, exchange.maxBytes, exchange.timeoutSeconds) = (descriptor, maxBytes, 600)
        let response = try await send(exchange)
        return ObjectInfo(size: response.fileBytes, etag: Self.etag(response))
    }

    /// Reads an object's first byte (a ranged GET): what proves a credential may read it, its
    /// KMS key included, without taking the rest.
    public func readFirstByte(_ address: ObjectAddress) async throws(ObjectStorageError) {
        var exchange = Exchange(method: "GET", bucket: address.bucket, key: address.key, what: "\(address)")
        (exchange.headers, exchange.maxBytes) = ([("Range", "bytes=0-0")], 4096)
        _ = try await send(exchange)
    }

    /// One page of the keys under `prefix`, 1,000 at most, after `token`'s page (or after the key
    /// `startAfter`, for a listing that resumes).
    public func list(
        bucket: String, prefix: String, after token: String? = nil, startAfter: String? = nil, maxKeys: Int = 1000
    ) async throws(ObjectStorageError) -> ListPage {
        var exchange = Exchange(method: "GET", bucket: bucket, key: "", what: "s3://\(bucket)/\(prefix)")
        exchange.query = [("list-type", "2"), ("prefix", prefix), ("max-keys", String(min(max(maxKeys, 1), 1000))), ("encoding-type", "url")]
        if let token {
            exchange.query.append(("continuation-token", token))
        } else if let startAfter {
            exchange.query.append(("start-after", startAfter))
        }
        // Whether an archived object has been restored (and so can be read) is said only when
        // asked; asked of AWS alone: a store of one's own may refuse the header (NotImplemented),
        // and keeps no archive tier to restore from.
        if settings.endpointIsAWS { exchange.headers = [("x-amz-optional-object-attributes", "RestoreStatus")] }
        (exchange.maxBytes, exchange.patience) = (16 << 20, .listing)
        return try StoreAnswers.listPage(try await send(exchange).body)
    }

    /// The store's time less this host's, as far as the store has said (0 until it refuses a
    /// signature for the difference).
    public var clockCorrection: TimeInterval { clock.correction }

    struct Exchange {
        let method: String
        let bucket: String
        let key: String
        let what: String
        var query: [(String, String)] = []
        var headers: [(String, String)] = []
        var file: Int32?
        var maxBytes = 1 << 20
        var timeoutSeconds: Double = 60
        var patience = Patience.read

        init(method: String, bucket: String, key: String, what: String) {
            (self.method, self.bucket, self.key, self.what) = (method, bucket, key, what)
        }
    }

    private func send(_ exchange: Exchange) async throws(ObjectStorageError) -> HTTPResponse {
        var weather = 0
        var remedied: Set<StoreRefusal.Remedy.Kind> = []
        let start = exchange.file.map { lseek($0, 0, SEEK_CUR) }
        while true {
            let used = try await credentials.credentials()
            let region = regions.withLock { $0[exchange.bucket] } ?? settings.region
            if let file = exchange.file, let start, start >= 0, weather > 0 {
                // A try cut short left part of the body behind it.
                _ = ftruncate(file, start)
                _ = lseek(file, start, SEEK_SET)
            }
            let failure: (error: ObjectStorageError, remedy: StoreRefusal.Remedy?)
            let signedAt = clock.now(), correctionUsed = clock.correction
            do {
                let response = try await http.send(request(exchange, credentials: used, region: region, at: signedAt))
                if (200..<300).contains(response.status) {
                    if !exchange.key.isEmpty { lastRead.withLock { $0[exchange.bucket] = (used.accessKeyID, .now) } }
                    return response
                }
                let read = lastRead.withLock { $0[exchange.bucket] }
                let judged = StoreRefusal.judge(
                    response,
                    StoreRefusal.Asked(
                        method: exchange.method, what: exchange.what, bucket: exchange.bucket, used: used, region: region, source: credentials.source,
                        signedAt: signedAt,
                        readBucketRecently: read.map { $0.keyID == used.accessKeyID && ContinuousClock.now - $0.at < .seconds(60) } ?? false))
                failure = (judged.error, judged.remedy)
            } catch let error as HTTPError where error.code == .responseTooLarge {
                throw ObjectStorageError(.tooLarge, "\(exchange.what) is larger than \(exchange.maxBytes) bytes")
            } catch let error as HTTPError where error.code == .cancelled {
                throw ObjectStorageError(.cancelled, "\(exchange.method) \(exchange.what) was cancelled")
            } catch let error as HTTPError where error.code == .tls {
                throw ObjectStorageError(
                    .unavailable,
                    "\(exchange.method) \(exchange.what) failed: \(error) (a private CA: AWS_CA_BUNDLE names the PEM file to trust)")
            } catch let error as HTTPError where !error.isRetryable {
                // A request that cannot be sent as it is (a malformed URL or header): asking again changes nothing.
                throw ObjectStorageError(.unavailable, "\(exchange.method) \(exchange.what) could not be sent: \(error)")
            } catch {
                failure = (ObjectStorageError(.unavailable, "\(exchange.method) \(exchange.what) failed: \(error)"), .wait(retryAfter: nil))
            }
            guard let remedy = failure.remedy else { throw failure.error }
            switch remedy {
            case .wait(let retryAfter):
                weather += 1
                guard weather < exchange.patience.tries else { throw failure.error }
                try await Self.pause(try: weather, retryAfter: retryAfter, longest: exchange.patience.longestWaitSeconds)
                continue
            case .fetchCredentials:
                guard !remedied.contains(remedy.kind), credentials.refused(used) else { throw failure.error }
            case .correctClock(let storeTime):
                // Another request may have corrected the clock since this one was signed: then
                // signing again helps as much.
                if clock.correct(storeTime: storeTime) {
                    logger?.warning(
                        "this host's clock is off: bucket requests are signed in the store's time; set the clock right (NTP)",
                        metadata: ["store_ahead_seconds": "\(String(format: "%.0f", clock.correction))", "bucket": "\(exchange.bucket)"])
                }
                guard !remedied.contains(remedy.kind), clock.correction != correctionUsed else { throw failure.error }
            case .askRegion(let other):
                guard !remedied.contains(remedy.kind), other != region else { throw failure.error }
                let learnt = regions.withLock { known in
                    defer { known[exchange.bucket] = other }
                    return known[exchange.bucket] != other
                }
                if learnt {
                    logger?.notice(
                        "the bucket is in another region than AWS_REGION: asking it there",
                        metadata: ["bucket": "\(exchange.bucket)", "region": "\(other)"])
                }
            }
            remedied.insert(remedy.kind)
        }
    }

    private func request(_ exchange: Exchange, credentials used: AWSCredentials, region: String, at moment: Date) -> HTTPRequest {
        let (scheme, host, path) = location(bucket: exchange.bucket, key: exchange.key, region: region)
        let signed = RequestSigner(credentials: used, region: region).headers(
            method: exchange.method, host: host, path: path, query: exchange.query, extra: exchange.headers, at: moment)
        let queryText =
            exchange.query.isEmpty
            ? "" : "?" + exchange.query.map { "\(RequestSigner.encode($0.0))=\(RequestSigner.encode($0.1))" }.joined(separator: "&")
        var request = HTTPRequest(
            method: exchange.method, url: "\(scheme)://\(host)\(path)\(queryText)",
            headers: [HTTPHeader("Host", host)] + signed.map { HTTPHeader($0.0, $0.1) },
            timeoutSeconds: exchange.timeoutSeconds, maxResponseBytes: exchange.maxBytes)
        request.responseFile = exchange.file
        request.caBundle = settings.caBundle
        return request
    }

    /// Path style: endpoint/bucket/key; virtual host: bucket.endpoint/key. A bucket whose name
    /// has a dot is asked by path whatever the setting: `a.b.s3.amazonaws.com` is covered by no
    /// certificate (the SDKs do the same). On AWS's own endpoint, the bucket's region's host.
    func location(bucket: String, key: String, region: String) -> (scheme: String, host: String, path: String) {
        let endpoint = settings.endpoint
        let base = settings.endpointIsAWS && region != settings.region ? "s3.\(region).amazonaws.com" : (endpoint.host ?? "")
        let port = endpoint.port.map { ":\($0)" } ?? ""
        let prefix = endpoint.path.hasSuffix("/") ? String(endpoint.path.dropLast()) : endpoint.path
        let encodedKey = RequestSigner.encode(key, keepSlash: true)
        let scheme = endpoint.scheme ?? "https"
        if settings.addressing == .virtual && !bucket.contains(".") {
            return (scheme, "\(bucket).\(base)\(port)", "\(prefix)/\(encodedKey)")
        }
        return (scheme, "\(base)\(port)", "\(prefix)/\(bucket)/\(encodedKey)")
    }

    /// Full jitter over a doubling wait from 0.2 s, or the store's Retry-After, at most `longest`.
    private static func pause(try count: Int, retryAfter: Double?, longest: Double) async throws(ObjectStorageError) {
        let doubling = min(longest, 0.2 * Double(1 << min(count - 1, 10)))
        let wait = min(longest, retryAfter ?? Double.random(in: doubling / 2...doubling))
        do {
            try await Task.sleep(for: .milliseconds(Int64((wait * 1000).rounded())))
        } catch {
            throw ObjectStorageError(.cancelled, "cancelled while waiting to ask the store again")
        }
    }

    private static func etag(_ response: HTTPResponse) -> String {
        (response.header("ETag") ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "\""))
    }
}

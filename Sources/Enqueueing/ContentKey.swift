import Crypto
import Foundation
import MediaFiles

/// The dedupe rule of `discern enqueue`: a file whose key a job (waiting, running or succeeded)
/// or a result already has is skipped. The key is the content's SHA-256 with the service, the
/// action and, when given, a hash of the params: the same photo may be analysed by two
/// services, or enrolled under two template ids.
public struct ContentKey: Sendable {
    private let suffix: String

    public init(service: String, action: String, paramsJSON: String) {
        var suffix = ":\(service):\(action)"
        if paramsJSON.trimmingCharacters(in: .whitespaces) != "{}" {
            suffix += ":" + SHA256.hash(data: Data(paramsJSON.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
        }
        self.suffix = suffix
    }

    public func key(sha256 hex: String) -> String { "sha256:\(hex)\(suffix)" }

    /// An object's key, from what its listing says of it: its ETag (the MD5 of its bytes for a
    /// simple upload, another digest of them for a multipart one) and its size. Read without a
    /// download, it dedupes what the store reports as the same bytes.
    public func key(etag: String, size: Int) -> String { "s3etag:\(etag):\(size)\(suffix)" }

    /// Each file's key, in the order of `paths`, or why it could not be read under `roots`
    /// (`ContentHasher`); `progress` is called with the count hashed so far.
    public func keys(
        _ paths: [String], roots: PathRoots, threads: Int, maxBytes: Int = .max,
        progress: @escaping @Sendable (Int) -> Void
    ) async throws -> [Result<String, EnqueueError>] {
        try await ContentHasher.sha256(paths, roots: roots, threads: threads, maxBytes: maxBytes, progress: progress).map { $0.map(key(sha256:)) }
    }
}

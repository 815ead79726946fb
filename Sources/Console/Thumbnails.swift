import Crypto
import DedicatedThreads
import Foundation
import Imaging
import MediaFiles
import ObjectStorage
import Synchronization

/// Thumbnails of the original photos, made with libvips on dedicated threads (never the
/// cooperative pool), only from files under the path roots (the workers' trust rule) or objects
/// under their s3:// entries (downloaded as a worker downloads them), a few at a time, kept in a
/// bounded cache and served with an ETag so a browser asks once.
final class Thumbnails: Sendable {
    static let sizes = [240, 640]
    private let roots: PathRoots
    private let objects: ObjectReader?
    private let pool: ThreadPool
    private let cache = ThumbnailCache(maxBytes: 48 << 20)
    private let inFlight = InFlightCount()

    init(roots: PathRoots, objects: ObjectReader? = nil, threads: Int = 2) {
        self.roots = roots
        self.objects = objects
        pool = ThreadPool(name: "discern-console-thumbnails", threads: threads, onThreadExit: Vips.threadShutdown)
    }

    deinit { pool.shutdown() }

    enum Outcome: Sendable {
        case image(Data, etag: String)
        case notModified(etag: String)
        case busy
        case unavailable(String)
    }

    func thumbnail(path: String, size: Int, ifNoneMatch: String?) async -> Outcome {
        guard Self.sizes.contains(size) else { return .unavailable("sizes are \(Self.sizes)") }
        guard inFlight.enter(limit: 32) else { return .busy }
        defer { inFlight.leave() }
        if ObjectAddress.isObjectPath(path) { return await objectThumbnail(path: path, size: size, ifNoneMatch: ifNoneMatch) }
        let roots = self.roots
        do {
            return try await pool.run { () -> Outcome in
                let file = try roots.open(path)
                let etag = Self.etag(path: path, size: size, file: file)
                if ifNoneMatch == etag { return .notModified(etag: etag) }
                if let cached = self.cache.get(etag) { return .image(cached, etag: etag) }
                let prepared = try ImagePreparer(policy: Self.policy(size)).prepare(file: file)
                self.cache.put(etag, prepared.data)
                return .image(prepared.data, etag: etag)
            }
        } catch let error as ImagingError {
            return .unavailable(error.message)
        } catch {
            return .unavailable("\(error)")
        }
    }

    /// An object's thumbnail: its ETag from a HEAD (a browser that has it downloads nothing),
    /// else the object downloaded into an unnamed file and shrunk.
    private func objectThumbnail(path: String, size: Int, ifNoneMatch: String?) async -> Outcome {
        guard let objects else { return .unavailable("this console reads no bucket: give it AWS_ACCESS_KEY_ID and an s3:// path root") }
        do {
            let head = try await objects.store.head(try objects.admitted(path))
            let digest = SHA256.hash(data: Data("\(path)\u{0}\(size)\u{0}\(head.size)\u{0}\(head.etag)".utf8))
            let etag = "\"" + digest.prefix(12).map { String(format: "%02x", $0) }.joined() + "\""
            if ifNoneMatch == etag { return .notModified(etag: etag) }
            if let cached = cache.get(etag) { return .image(cached, etag: etag) }
            let fetched = try await objects.fetch(path, maxBytes: ImagePolicy().maxSourceBytes)
            let file = try OpenedFile.adopting(fetched.descriptor, name: path)
            let data = try await pool.run { try ImagePreparer(policy: Self.policy(size)).prepare(file: file).data }
            cache.put(etag, data)
            return .image(data, etag: etag)
        } catch let error as ObjectStorageError {
            return .unavailable(error.message)
        } catch let error as ImagingError {
            return .unavailable(error.message)
        } catch {
            return .unavailable("\(error)")
        }
    }

    /// A small JPEG whatever the original (HEIC and TIFF included): browsers show JPEG.
    static func policy(_ size: Int) -> ImagePolicy {
        ImagePolicy(maxBytes: 400_000, maxDimension: size, minDimension: 1, acceptedFormats: [.jpeg], quality: 78, minQuality: 50)
    }

    /// Changes when the file does (size, modification time) or the thumbnail size does.
    static func etag(path: String, size: Int, file: OpenedFile) -> String {
        var status = stat()
        let modified = fstat(file.descriptor, &status) == 0 ? "\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)" : "?"
        let digest = SHA256.hash(data: Data("\(path)\u{0}\(size)\u{0}\(file.size)\u{0}\(modified)".utf8))
        return "\"" + digest.prefix(12).map { String(format: "%02x", $0) }.joined() + "\""
    }
}

/// Thumbnails by ETag, oldest dropped first once the bytes exceed the bound.
final class ThumbnailCache: Sendable {
    private struct Contents {
        var entries: [String: Data] = [:]
        var order: [String] = []
        var bytes = 0
    }
    private let maxBytes: Int
    private let contents = Mutex(Contents())

    init(maxBytes: Int) { self.maxBytes = maxBytes }

    func get(_ key: String) -> Data? { contents.withLock { $0.entries[key] } }

    func put(_ key: String, _ data: Data) {
        contents.withLock { cache in
            guard cache.entries[key] == nil, data.count <= maxBytes else { return }
            cache.entries[key] = data
            cache.order.append(key)
            cache.bytes += data.count
            while cache.bytes > maxBytes, !cache.order.isEmpty {
                let oldest = cache.order.removeFirst()
                cache.bytes -= cache.entries.removeValue(forKey: oldest)?.count ?? 0
            }
        }
    }
}

/// How many thumbnails are being made or wait for a thread.
final class InFlightCount: Sendable {
    private let count = Mutex(0)
    func enter(limit: Int) -> Bool {
        count.withLock {
            guard $0 < limit else { return false }; $0 += 1; return true
        }
    }
    func leave() { count.withLock { $0 -= 1 } }
}

import Foundation

/// Reads the objects a worker may read (`allowed`: the `s3://` entries of its path roots) into
/// files of its own: an object named outside them is refused before anything is asked of the
/// store; one larger than the caller accepts is refused from the GET's headers (its
/// Content-Length), before a byte of its body is taken; the rest streams into an unnamed
/// temporary file (removed from the folder at once: it goes when its descriptor is closed),
/// never into memory. One request per object: a HEAD before each GET would cost a round trip
/// and a signature per photo (bench/RESULTS.md, "Photos from a bucket").
public struct ObjectReader: Sendable {
    public let store: ObjectStore
    public let allowed: [ObjectPrefix]
    /// Where the temporary files are made (the worker's temporary folder).
    public let directory: String

    public init(store: ObjectStore, allowed: [ObjectPrefix], directory: String = NSTemporaryDirectory()) {
        self.store = store
        self.allowed = allowed
        self.directory = directory
    }

    /// A downloaded object: an open, unnamed file holding its bytes, and what the store said.
    public struct Fetched: Sendable {
        public let descriptor: Int32
        public let info: ObjectInfo
    }

    /// The address a job path names, if this reader may read it.
    public func admitted(_ path: String) throws(ObjectStorageError) -> ObjectAddress {
        guard let address = ObjectAddress(path), allowed.contains(where: { $0.admits(address) }) else {
            throw ObjectStorageError(
                .notAllowed,
                "\(path) is outside the buckets and prefixes this worker may read "
                    + "(DISCERN_PATH_ROOTS: \(allowed.isEmpty ? "no s3:// entry" : allowed.map(\.description).joined(separator: ", ")))")
        }
        return address
    }

    public func fetch(_ path: String, maxBytes: Int) async throws(ObjectStorageError) -> Fetched {
        let address = try admitted(path)
        var template = Array("\(directory)/discern-object-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { $0.baseAddress.map { mkstemp($0) } ?? -1 }
        guard descriptor >= 0 else {
            throw ObjectStorageError(.unavailable, "no temporary file for \(address) in \(directory): \(String(cString: strerror(errno)))")
        }
        template.withUnsafeBufferPointer { _ = $0.baseAddress.map { unlink($0) } }
        do throws(ObjectStorageError) {
            let got = try await store.download(address, to: descriptor, maxBytes: maxBytes)
            guard got.size > 0 else { throw ObjectStorageError(.empty, "\(address) is empty (0 bytes)") }
            return Fetched(descriptor: descriptor, info: got)
        } catch {
            close(descriptor)
            if error.code == .tooLarge {
                throw ObjectStorageError(.tooLarge, "\(address) is over the \(maxBytes)-byte limit on a source; not downloaded")
            }
            throw error
        }
    }
}

import Foundation

/// A file opened for reading and checked on its descriptor: a regular file, inside the allowed
/// roots. Owns the descriptor and closes it once. Everything reads through the descriptor (or
/// `/proc/self/fd/N`, which names the same open file): the path is never looked up again, so a
/// symlink swapped in after the check changes nothing.
public final class OpenedFile: @unchecked Sendable {
    public let descriptor: Int32
    /// The path as resolved (no symlinks, no `..`), for messages.
    public let path: String
    public let size: Int

    init(descriptor: Int32, path: String, size: Int) {
        self.descriptor = descriptor
        self.path = path
        self.size = size
    }

    deinit { close(descriptor) }

    /// Opens a file a person named on the command line (`discern prepare FILE`): any regular
    /// file they can read. Workers open job paths through `PathRoots.open` only.
    public static func named(_ path: String) throws(FileAccessError) -> OpenedFile {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return try PathRoots.unrestricted.open(absolute)
    }

    /// A file this process made and filled itself (a downloaded object in an unnamed temporary
    /// file): it takes the descriptor over, and `name` (the object's address) is what messages say.
    public static func adopting(_ descriptor: Int32, name: String) throws(FileAccessError) -> OpenedFile {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw FileAccessError(.unreadable, "\(name): the downloaded copy cannot be read: \(String(cString: strerror(errno)))")
        }
        return OpenedFile(descriptor: descriptor, path: name, size: Int(info.st_size))
    }

    /// A name for libraries that open by path (libvips): the open file itself, not the path.
    public var procPath: String { "/proc/self/fd/\(descriptor)" }

    /// Up to `count` bytes from `offset`.
    public func read(at offset: Int, count: Int) throws(FileAccessError) -> [UInt8] {
        var failure: FileAccessError?
        let bytes = [UInt8](unsafeUninitializedCapacity: max(0, count)) { buffer, initialized in
            do throws(FileAccessError) {
                initialized = try read(at: offset, into: UnsafeMutableRawBufferPointer(buffer))
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Fills `buffer` from `offset`, as far as the file goes; returns how many bytes were read.
    public func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(FileAccessError) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var filled = 0
        while filled < buffer.count {
            let got = pread(descriptor, base + filled, buffer.count - filled, off_t(offset + filled))
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw FileAccessError(.unreadable, "\(path) cannot be read: \(String(cString: strerror(errno)))") }
            if got == 0 { break }
            filled += got
        }
        return filled
    }

    /// The whole file, as it was sized when opened.
    public func contents() throws(FileAccessError) -> Data {
        let bytes = try read(at: 0, count: size)
        guard bytes.count == size else {
            throw FileAccessError(.truncated, "\(path) shrank from \(size) to \(bytes.count) bytes while it was read (it is being written)")
        }
        return Data(bytes)
    }
}

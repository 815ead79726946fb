import Foundation

/// The folders a worker may read images from (`DISCERN_PATH_ROOTS`): the trust boundary between
/// a job row, which anyone with INSERT on the queue can write, and this machine's files.
///
/// A path is opened only when it is absolute, lies under a root both as written and once every
/// symlink and `..` is resolved, and names a regular file; the check is repeated on the open
/// descriptor. Outside the roots the answer is `path_not_allowed` and nothing else: a job never
/// learns whether a path outside exists.
public struct PathRoots: Sendable, Equatable {
    /// Each root as configured and as resolved.
    public let roots: [(configured: String, resolved: String)]

    public static func == (lhs: PathRoots, rhs: PathRoots) -> Bool { lhs.roots.map(\.resolved) == rhs.roots.map(\.resolved) }

    /// Each root must be an existing directory.
    public init(_ paths: [String]) throws(ImagingError) {
        var roots: [(String, String)] = []
        for path in paths where !path.isEmpty {
            let configured = Self.lexical(path)
            guard path.hasPrefix("/"), let resolved = Self.realPath(path) else {
                throw ImagingError(.pathNotAllowed, "the path root \(path) must be an absolute path to an existing folder")
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: resolved, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ImagingError(.pathNotAllowed, "the path root \(path) is not a folder")
            }
            roots.append((configured, resolved))
        }
        guard !roots.isEmpty else { throw ImagingError(.pathNotAllowed, "no path root given") }
        self.roots = roots
    }

    /// The whole file system: for files a person names on the command line, never for jobs.
    static let unrestricted = PathRoots(uncheckedRoots: [("/", "/")])

    private init(uncheckedRoots: [(configured: String, resolved: String)]) { roots = uncheckedRoots }

    /// `DISCERN_PATH_ROOTS`: folders separated by colons.
    public init(list: String) throws(ImagingError) {
        try self.init(list.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) })
    }

    public var description: String { roots.map(\.configured).joined(separator: ":") }

    /// Whether a path lies under a root as written (no file system access).
    public func admitsLexically(_ path: String) -> Bool {
        guard path.hasPrefix("/"), !path.utf8.contains(0) else { return false }
        let normal = Self.lexical(path)
        return roots.contains { Self.path(normal, isUnder: $0.configured) || Self.path(normal, isUnder: $0.resolved) }
    }

    /// Whether a resolved path (no symlinks) lies under a resolved root.
    public func admitsResolved(_ path: String) -> Bool {
        roots.contains { Self.path(path, isUnder: $0.resolved) }
    }

    /// Opens a job's file for reading, or says why not (see the type's comment).
    public func open(_ path: String) throws(ImagingError) -> OpenedFile {
        let refused = ImagingError(.pathNotAllowed, "\(path) is not under the folders this worker may read (DISCERN_PATH_ROOTS); nothing outside them is opened")
        guard admitsLexically(path) else { throw refused }
        guard let resolved = Self.realPath(path) else {
            throw errno == EACCES ? ImagingError(.unreadable, "\(path) cannot be reached by the worker's user (permissions)")
                                  : ImagingError(.fileNotFound, "\(path) does not exist (moved, deleted, or not mounted on this machine?)")
        }
        guard admitsResolved(resolved) else { throw refused }
        // O_NOFOLLOW: a final symlink swapped in since realpath is refused; O_NONBLOCK: a FIFO
        // does not hang the open (it is refused below as not a regular file).
        let descriptor = Foundation.open(resolved, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard descriptor >= 0 else {
            switch errno {
            case ELOOP: throw refused
            case ENOENT: throw ImagingError(.fileNotFound, "\(path) does not exist (moved, deleted, or not mounted on this machine?)")
            default: throw ImagingError(.unreadable, "\(path) cannot be opened by the worker's user: \(String(cString: strerror(errno)))")
            }
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            close(descriptor)
            throw ImagingError(.unreadable, "\(path) cannot be read: \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw ImagingError(.notRegularFile, "\(path) is not a regular file")
        }
        // The descriptor's own name: a folder on the way swapped for a symlink since realpath
        // shows here.
        guard let actual = Self.linkTarget("/proc/self/fd/\(descriptor)"), admitsResolved(actual) else {
            close(descriptor)
            throw refused
        }
        return OpenedFile(descriptor: descriptor, path: actual, size: Int(info.st_size))
    }

    static func path(_ path: String, isUnder root: String) -> Bool {
        root == "/" || path == root || path.hasPrefix(root + "/")
    }

    /// `.` and `..` removed and slashes collapsed, without touching the file system.
    static func lexical(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    static func realPath(_ path: String) -> String? {
        guard !path.utf8.contains(0), let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func linkTarget(_ link: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(link, &buffer, Int(PATH_MAX))
        guard length > 0 else { return nil }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

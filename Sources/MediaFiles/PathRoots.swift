import CFileShim
import Foundation

/// The folders a worker may read images from (`DISCERN_PATH_ROOTS`): the trust boundary between
/// a job row, which anyone with INSERT on the queue can write, and this machine's files.
///
/// A path is opened only when it is absolute, lies under a root as written (`..` taken out
/// without touching the file system), reaches its file from the root **through no symbolic
/// link**, and names a regular file. The open itself enforces it, in one step that no swap can
/// race: `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS` from the root's directory, or,
/// where the kernel lacks it, one `openat(O_NOFOLLOW)` per component. Outside the roots the
/// answer is `path_not_allowed` and nothing else: a job never learns whether a path outside
/// exists, since no symlink is ever followed to find out.
public struct PathRoots: Sendable, Equatable {
    /// Each root as configured and as resolved.
    public let roots: [(configured: String, resolved: String)]

    public static func == (lhs: PathRoots, rhs: PathRoots) -> Bool { lhs.roots.map(\.resolved) == rhs.roots.map(\.resolved) }

    /// Each root must be an existing directory.
    public init(_ paths: [String]) throws(FileAccessError) {
        var roots: [(String, String)] = []
        for path in paths where !path.isEmpty {
            let configured = Self.lexical(path)
            guard path.hasPrefix("/"), let resolved = Self.realPath(path) else {
                throw FileAccessError(.pathNotAllowed, "the path root \(path) must be an absolute path to an existing folder")
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: resolved, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw FileAccessError(.pathNotAllowed, "the path root \(path) is not a folder")
            }
            roots.append((configured, resolved))
        }
        guard !roots.isEmpty else { throw FileAccessError(.pathNotAllowed, "no path root given") }
        self.roots = roots
    }

    /// The whole file system, symlinks followed: for files a person names on the command line,
    /// never for jobs.
    static let unrestricted = PathRoots(uncheckedRoots: [("/", "/")], unrestricted: true)
    private var isUnrestricted = false

    private init(uncheckedRoots: [(configured: String, resolved: String)], unrestricted: Bool) {
        roots = uncheckedRoots
        isUnrestricted = unrestricted
    }

    /// Every root of every one of `list`.
    public init(merging list: [PathRoots]) {
        roots = list.flatMap(\.roots)
    }

    /// `DISCERN_PATH_ROOTS`: folders separated by colons.
    public init(list: String) throws(FileAccessError) {
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
    public func open(_ path: String) throws(FileAccessError) -> OpenedFile {
        let refused = FileAccessError(
            .pathNotAllowed,
            "\(path) is not under the folders this worker may read (DISCERN_PATH_ROOTS), or is reached through a symbolic link, which is never followed; nothing else is opened"
        )
        guard path.hasPrefix("/"), !path.utf8.contains(0) else { throw refused }
        if isUnrestricted { return try Self.openNamed(path) }
        let normal = Self.lexical(path)
        guard let (root, relative) = locate(normal) else { throw refused }
        // The root itself (`/photos`, `/photos/x/..`) is a folder, not a photo; said before any
        // call, so no stale errno decides the verdict.
        guard !relative.isEmpty else { throw FileAccessError(.notRegularFile, "\(path) is a folder (a path root), not a file") }
        let directory = Foundation.open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else {
            throw FileAccessError(.unreadable, "the path root \(root) cannot be opened: \(String(cString: strerror(errno)))")
        }
        defer { close(directory) }
        // O_NONBLOCK: a FIFO does not hang the open (it is refused below as not a regular file).
        let flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK
        var descriptor = cfileshim_openat2_beneath(directory, relative, flags)
        if descriptor < 0, [ENOSYS, EPERM, EINVAL].contains(errno) {
            descriptor = Self.openComponents(relative.split(separator: "/").map(String.init), from: directory, flags: flags)
        }
        guard descriptor >= 0 else {
            switch errno {
            case ELOOP, EXDEV, EISDIR: throw refused
            case ENOENT, ENOTDIR: throw FileAccessError(.fileNotFound, "\(path) does not exist (moved, deleted, or not mounted on this machine?)")
            case EACCES: throw FileAccessError(.unreadable, "\(path) cannot be reached by the worker's user (permissions)")
            // A socket or a device with no driver behind it: no later attempt reads it either.
            case ENXIO, ENODEV: throw FileAccessError(.notRegularFile, "\(path) is not a regular file (a socket or a device)")
            case ENAMETOOLONG:
                throw FileAccessError(
                    .fileNotFound, "\(path) has a name longer than the file system allows (255 bytes a part), so no such file can exist")
            default: throw FileAccessError(.unreadable, "\(path) cannot be opened by the worker's user: \(String(cString: strerror(errno)))")
            }
        }
        return try Self.regularFile(descriptor, path: root == "/" ? "/" + relative : root + "/" + relative, named: path)
    }

    /// The root a lexically normal path lies under, resolved, and the rest of the path.
    private func locate(_ normal: String) -> (root: String, relative: String)? {
        for root in roots {
            for prefix in [root.configured, root.resolved] where Self.path(normal, isUnder: prefix) {
                let rest = prefix == "/" ? String(normal.dropFirst()) : String(normal.dropFirst(prefix.count))
                return (root.resolved, rest.hasPrefix("/") ? String(rest.dropFirst()) : rest)
            }
        }
        return nil
    }

    /// openat2's rule by hand: one component at a time, never `..` (the path is lexically
    /// normal). Each folder on the way is opened as itself (O_PATH | O_NOFOLLOW) and checked on
    /// its descriptor, so a link is seen as a link (ELOOP) whatever it points at; the last
    /// component is opened with `flags`, which hold O_NOFOLLOW.
    private static func openComponents(_ components: [String], from root: Int32, flags: Int32) -> Int32 {
        guard !components.isEmpty else { errno = EISDIR; return -1 }
        var current = dup(root)
        for (index, component) in components.enumerated() {
            guard current >= 0 else { return -1 }
            let last = index == components.count - 1
            var next = openat(current, component, last ? flags : cfileshim_component_flags())
            var failure = errno
            if !last, next >= 0 {
                var info = stat()
                let kind = fstat(next, &info) == 0 ? info.st_mode & S_IFMT : 0
                if kind != S_IFDIR {
                    close(next)
                    next = -1
                    failure = kind == S_IFLNK ? ELOOP : ENOTDIR
                }
            }
            close(current)
            errno = failure
            current = next
        }
        return current
    }

    /// A file a person named (`discern prepare FILE`): any regular file they can read, through
    /// symlinks if they gave one.
    private static func openNamed(_ path: String) throws(FileAccessError) -> OpenedFile {
        let descriptor = Foundation.open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw errno == ENOENT
                ? FileAccessError(.fileNotFound, "\(path) does not exist")
                : FileAccessError(.unreadable, "\(path) cannot be opened: \(String(cString: strerror(errno)))")
        }
        return try regularFile(descriptor, path: realPath(path) ?? path, named: path)
    }

    /// The descriptor as an `OpenedFile` if it is a regular file; closed otherwise.
    private static func regularFile(_ descriptor: Int32, path: String, named: String) throws(FileAccessError) -> OpenedFile {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let message = String(cString: strerror(errno))
            close(descriptor)
            throw FileAccessError(.unreadable, "\(named) cannot be read: \(message)")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw FileAccessError(.notRegularFile, "\(named) is not a regular file")
        }
        return OpenedFile(descriptor: descriptor, path: path, size: Int(info.st_size))
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
}

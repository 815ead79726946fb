import Foundation

/// Secrets read from files, as systemd's `LoadCredential=` and Kubernetes' Secret volumes
/// provide them.
///
/// Kubernetes mounts each key as a symlink (`KEY -> ..data/KEY -> ..2026_11_22_…/KEY`), often
/// with mode 0440 and the pod's `fsGroup`: the file is checked where the links lead. A file
/// others can read is refused, always; one its group can read is accepted only when that group
/// is one of this process's groups (the fsGroup case), since then nobody else gains by it.
enum SecretFiles {
    static let maxBytes = 64 * 1024

    /// nil when the file does not exist.
    static func read(_ path: String) throws(ServiceError) -> Secret? {
        guard let resolved = realpath(path, nil) else { return nil }
        let target = String(cString: resolved)
        free(resolved)
        var info = stat()
        guard stat(target, &info) == 0 else { return nil }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw ServiceError.misconfigured("\(path) is not a regular file")
        }
        let mode = Int(info.st_mode & 0o777)
        guard mode & 0o007 == 0 else {
            throw ServiceError.misconfigured("\(path) can be read by other users (mode \(String(mode, radix: 8))); run chmod o-rwx on it")
        }
        if mode & 0o070 != 0, !processGroups().contains(info.st_gid) {
            throw ServiceError.misconfigured(
                "\(path) can be read by its group \(info.st_gid), which this process is not in (mode \(String(mode, radix: 8))); run chmod 600 on it, or set the group to the worker's"
            )
        }
        guard info.st_size <= maxBytes else {
            throw ServiceError.misconfigured("\(path) is \(info.st_size) bytes; a credential file holds at most \(maxBytes)")
        }
        guard let data = FileManager.default.contents(atPath: target) else {
            throw ServiceError.misconfigured("\(path) cannot be read by the worker's user")
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw ServiceError.misconfigured("\(path) is empty") }
        return Secret(text)
    }

    /// The effective group and the supplementary groups.
    static func processGroups() -> Set<gid_t> {
        var groups = Set([getegid(), getgid()])
        let count = getgroups(0, nil)
        if count > 0 {
            var list = [gid_t](repeating: 0, count: Int(count))
            let filled = getgroups(count, &list)
            if filled > 0 { groups.formUnion(list.prefix(Int(filled))) }
        }
        return groups
    }
}

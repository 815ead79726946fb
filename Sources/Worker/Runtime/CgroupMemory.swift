import Foundation

/// The memory limit of the cgroup this process is in: the tightest of its own and its
/// ancestors' limits, cgroup v1 and v2 alike (`memory.max` and `memory.high`, or
/// `memory.limit_in_bytes`). A worker that systemd started with `MemoryMax=`, or that runs in a
/// container without a cgroup namespace, sees the whole hierarchy under /sys/fs/cgroup: its
/// limit is at the path /proc/self/cgroup names, not at the root.
struct CgroupMemory: Equatable {
    let bytes: Int
    /// The file the limit was read from.
    let file: String

    /// From this process's /proc files; nil when no cgroup limits it.
    static func detect() -> CgroupMemory? {
        guard let membership = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8),
            let mounts = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)
        else { return nil }
        return limit(membership: membership, mountinfo: mounts) { try? String(contentsOfFile: $0, encoding: .utf8) }
    }

    /// - Parameters:
    ///   - membership: /proc/self/cgroup ("0::/system.slice/x.service", "4:memory:/docker/abc").
    ///   - mountinfo: /proc/self/mountinfo, where each hierarchy is mounted and which part of it.
    ///   - read: a file's text, nil when it does not exist.
    static func limit(membership: String, mountinfo: String, read: (String) -> String?) -> CgroupMemory? {
        var tightest: CgroupMemory?
        for hierarchy in Hierarchy.all(membership: membership, mountinfo: mountinfo) {
            var folder = hierarchy.folder
            while true {
                for name in hierarchy.limitFiles {
                    let file = folder + "/" + name
                    if let bytes = read(file).flatMap(MemoryBudget.parseLimit), bytes < (tightest?.bytes ?? .max) {
                        tightest = CgroupMemory(bytes: bytes, file: file)
                    }
                }
                guard folder.count > hierarchy.mountPoint.count, let slash = folder.lastIndex(of: "/") else { break }
                folder = String(folder[..<slash])
            }
        }
        return tightest
    }

    /// A mounted hierarchy with memory limits, and the folder of this process's cgroup in it.
    struct Hierarchy: Equatable {
        let mountPoint: String
        let folder: String
        let limitFiles: [String]

        static func all(membership: String, mountinfo: String) -> [Hierarchy] {
            var paths: (v2: String?, v1: String?) = (nil, nil)
            for line in membership.split(separator: "\n") {
                let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
                guard fields.count == 3 else { continue }
                if fields[0] == "0", fields[1].isEmpty { paths.v2 = String(fields[2]) }
                if fields[1].split(separator: ",").contains("memory") { paths.v1 = String(fields[2]) }
            }
            var found: [Hierarchy] = []
            for line in mountinfo.split(separator: "\n") {
                // "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - FSTYPE SOURCE SUPEROPTIONS"
                let parts = line.components(separatedBy: " - ")
                guard parts.count == 2 else { continue }
                let before = parts[0].split(separator: " "), after = parts[1].split(separator: " ")
                guard before.count >= 5, let type = after.first else { continue }
                let root = unescape(String(before[3])), mountPoint = unescape(String(before[4]))
                if type == "cgroup2", let path = paths.v2 {
                    found.append(
                        Hierarchy(
                            mountPoint: mountPoint, folder: folder(path, root: root, mountPoint: mountPoint),
                            limitFiles: ["memory.max", "memory.high"]))
                } else if type == "cgroup", after.count >= 3, after[2].split(separator: ",").contains("memory"), let path = paths.v1 {
                    found.append(
                        Hierarchy(
                            mountPoint: mountPoint, folder: folder(path, root: root, mountPoint: mountPoint),
                            limitFiles: ["memory.limit_in_bytes"]))
                }
            }
            return found
        }

        /// The cgroup's folder under the mount; the mount itself when the mount shows another
        /// part of the hierarchy (a namespace's root).
        static func folder(_ path: String, root: String, mountPoint: String) -> String {
            let trimmedRoot = root == "/" ? "" : root
            guard path == trimmedRoot || path.hasPrefix(trimmedRoot + "/") else { return mountPoint }
            let relative = String(path.dropFirst(trimmedRoot.count))
            return relative.isEmpty || relative == "/" ? mountPoint : mountPoint + relative
        }

        /// mountinfo writes a space as \040 (and a tab, newline and backslash likewise).
        static func unescape(_ field: String) -> String {
            field.replacingOccurrences(of: "\\040", with: " ").replacingOccurrences(of: "\\011", with: "\t")
                .replacingOccurrences(of: "\\012", with: "\n").replacingOccurrences(of: "\\134", with: "\\")
        }
    }
}

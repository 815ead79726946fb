import Foundation
@testable import Worker

/// A memory cgroup made by a test under the test process's own (cgroup v1, or v2 where its
/// memory controller is delegated there), with a limit, removed by `remove()` once its processes
/// are gone. As systemd's `MemoryMax=` does, or a container runtime without a cgroup namespace:
/// the limit is not at the hierarchy's root.
final class MemoryCgroup: @unchecked Sendable {
    let folder: String
    /// The file holding its limit, and the one counting OOM kills in it.
    let limitFile: String
    private let eventsFile: String
    private let peakFile: String

    /// nil where this machine lets no test make one (not root, no memory controller to use).
    init?(limitBytes: Int) {
        let membership = (try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)) ?? ""
        let mounts = (try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) ?? ""
        for hierarchy in CgroupMemory.Hierarchy.all(membership: membership, mountinfo: mounts) {
            let folder = hierarchy.folder + "/discern-test-\(TestRun.id)-\(UUID().uuidString.prefix(8).lowercased())"
            guard (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)) != nil else { continue }
            let v2 = hierarchy.limitFiles.contains("memory.max")
            let limit = folder + (v2 ? "/memory.max" : "/memory.limit_in_bytes")
            guard FileManager.default.fileExists(atPath: limit),
                (try? "\(limitBytes)".write(toFile: limit, atomically: false, encoding: .utf8)) != nil
            else {
                rmdir(folder)
                continue
            }
            self.folder = folder
            self.limitFile = limit
            self.eventsFile = folder + (v2 ? "/memory.events" : "/memory.oom_control")
            self.peakFile = folder + (v2 ? "/memory.peak" : "/memory.max_usage_in_bytes")
            return
        }
        return nil
    }

    /// Processes the kernel killed in it for want of memory.
    var oomKills: Int {
        let text = (try? String(contentsOfFile: eventsFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line -> Int? in
            let parts = line.split(separator: " ")
            return parts.count == 2 && parts[0] == "oom_kill" ? Int(parts[1]) : nil
        }.first ?? 0
    }

    /// The most memory it held, in bytes (nil where the kernel does not say).
    var peakBytes: Int? {
        (try? String(contentsOfFile: peakFile, encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// Removes it; its processes must have exited.
    func remove() { rmdir(folder) }
}
